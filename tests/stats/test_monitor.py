import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from fairbound.cli import app, main
from fairbound.errors import FairboundError
from fairbound.stats.monitor import Monitor, monitor, row_costs


def _stream(rng, p_a, p_b, size=100, groups=("a", "b")):
    while True:
        g = rng.choice(list(groups), size=size)
        yield g, rng.binomial(1, np.where(g == groups[0], p_a, p_b)).astype(float)


def test_detects_gap_and_stops():
    rng = np.random.default_rng(0)
    r = monitor(_stream(rng, 0.30, 0.10), group_a="a", group_b="b")
    f = r.final
    assert f.verdict == "A disadvantaged" and f.stop and f.low > 0
    assert len(r.steps) < 40
    lows = [s.low for s in r.steps]
    highs = [s.high for s in r.steps]
    assert lows == sorted(lows) and highs == sorted(highs, reverse=True)  # nested
    assert f.n_pairs == min(f.n_a, f.n_b)
    frame = r.to_frame()
    assert list(frame.batch) == list(range(1, len(r.steps) + 1))
    assert json.loads(json.dumps(r.to_dict()))["steps"][-1]["verdict"] == "A disadvantaged"


def test_union_method_and_tolerance():
    rng = np.random.default_rng(1)
    r = monitor(_stream(rng, 0.2, 0.2, size=500), group_a="a", group_b="b",
                method="betting-union", tolerance=0.08)
    assert r.final.verdict == "within tolerance"
    assert -0.08 <= r.final.low and r.final.high <= 0.08
    assert r.final.n_pairs == 0 and r.method == "betting-union"


def test_other_groups_and_nan_costs_are_ignored():
    mon = Monitor(group_a="x", group_b="y")
    s = mon.update(["x", "y", "z", "x"], [1.0, 0.0, 1.0, float("nan")])
    assert (s.n_a, s.n_b, s.n_pairs) == (1, 1, 1)
    assert s.estimate == 1.0 and s.verdict == "not enough evidence"


def test_anytime_validity_on_null_streams():
    # 50 null streams looked at after every batch of 40 rows, 1,200 rows each: the share of
    # streams with any wrong verdict must stay near 5% (recomputed Wald: about 30-45%)
    rng = np.random.default_rng(7)
    wrong = 0
    for _ in range(50):
        batches = (next(_stream(rng, 0.1, 0.1, size=40)) for _ in range(30))
        wrong += monitor(batches, group_a="a", group_b="b").final.stop
    assert wrong <= 7  # binomial(50, 0.05): P(X > 7) < 0.01


@pytest.mark.slow
def test_anytime_validity_many_streams():
    rng = np.random.default_rng(8)
    wrong = 0
    for _ in range(400):
        batches = (next(_stream(rng, 0.15, 0.15, size=25)) for _ in range(100))
        wrong += monitor(batches, group_a="a", group_b="b").final.stop
    assert wrong / 400 <= 0.07


def test_row_costs_follow_metric_definitions():
    y = [1, 1, 0, 0]
    p = [1, 0, 1, 0]
    assert row_costs(y, p, metric="equal_opportunity").tolist()[:2] == [0.0, 1.0]
    # a false positive is the cost when the positive prediction harms (flagged, high risk)
    fpr = row_costs(y, p, metric="false_positive_rate", favourable="negative")
    assert np.isnan(fpr[:2]).all() and fpr[2:].tolist() == [1.0, 0.0]
    fpr = row_costs(y, p, metric="false_positive_rate")  # favourable: not being selected
    assert np.isnan(fpr[:2]).all() and fpr[2:].tolist() == [0.0, 1.0]
    assert row_costs(y, p, metric="accuracy_parity").tolist() == [0.0, 1.0, 1.0, 0.0]
    dp = row_costs(["yes", "no"], ["yes", "no"], metric="demographic_parity", pos_label="yes")
    assert dp.tolist() == [0.0, 1.0]  # not being selected is the cost
    with pytest.raises(FairboundError, match="metric must have one component"):
        row_costs(y, p, metric="equalized_odds")


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"group_a": "a", "group_b": "a"}, "group_a and group_b must be two different groups"),
        ({"cost_max": -1}, "cost_max must be a positive number; got -1"),
        ({"method": "wald"}, "method must be one of betting, betting-union; got 'wald'"),
        ({"horizon": 0}, "horizon must be a positive integer; got 0"),
        ({"tolerance": 2.0}, r"tolerance must be in \(0, 1\]; got 2.0"),
        ({"confidence_level": 0}, r"confidence_level must be in \(0, 1\); got 0"),
    ],
)
def test_validation_messages(kwargs, match):
    base = {"group_a": "a", "group_b": "b"}
    base.update(kwargs)
    with pytest.raises(FairboundError, match=match):
        Monitor(**base)


def test_update_validation():
    mon = Monitor(group_a="a", group_b="b")
    with pytest.raises(FairboundError, match=r"costs must lie in \[0, 1\]; got 2.0"):
        mon.update(["a"], [2.0])
    with pytest.raises(FairboundError, match="groups and costs must be 1-D of the same length"):
        mon.update(["a", "b"], [1.0])


def _write_csv(path, n, p_a, p_b, seed):
    rng = np.random.default_rng(seed)
    g = rng.choice(["f", "m"], size=n)
    y = rng.binomial(1, 0.5, size=n)
    err = rng.binomial(1, np.where(g == "f", p_a, p_b))
    pred = np.where(err == 1, 1 - y, y)
    cost = err
    lines = ["gender,label,pred,cost"] + [f"{a},{b},{c},{d}" for a, b, c, d in
                                         zip(g, y, pred, cost, strict=True)]
    path.write_text("\n".join(lines) + "\n")


def test_cli_monitor_file_stops_at_verdict(tmp_path, capsys):
    f = tmp_path / "rows.csv"
    _write_csv(f, 6000, 0.35, 0.10, seed=1)
    code = main(["monitor", str(f), "--group", "gender", "--cost", "cost", "--batch-size",
                 "200"])
    out = capsys.readouterr().out
    assert code == 0
    assert "A disadvantaged" in out and "verdict after" in out
    assert 1 <= len(re.findall(r"^batch \d+:", out, re.M)) < 30  # stopped early
    assert "confidence sequences" in out
    code = main(["monitor", str(f), "--group", "gender", "--label", "label", "--prediction",
                 "pred", "--metric", "accuracy_parity", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["steps"][-1]["verdict"] == "A disadvantaged"
    assert data["group_a"] == "f"


def test_cli_monitor_stdin_and_follow(tmp_path):
    f = tmp_path / "rows.csv"
    _write_csv(f, 300, 0.1, 0.1, seed=2)
    runner = CliRunner()
    res = runner.invoke(app, ["monitor", "-", "--group", "gender", "--cost", "cost",
                              "--groups", "m,f", "--batch-size", "100"], input=f.read_text())
    assert res.exit_code == 0, res.output
    assert len(re.findall(r"^batch \d+:", res.output, re.M)) == 3
    assert "no verdict yet" in res.output
    res = runner.invoke(app, ["monitor", str(f), "--group", "gender", "--cost", "cost",
                              "--follow", "--poll", "0.05", "--timeout", "0.2"])
    assert res.exit_code == 0 and "no verdict yet" in res.output


def test_cli_monitor_errors(tmp_path, capsys):
    f = tmp_path / "rows.csv"
    _write_csv(f, 50, 0.1, 0.1, seed=3)
    assert main(["monitor", str(f), "--group", "sex", "--cost", "cost"]) == 2
    assert "column 'sex' not found" in capsys.readouterr().err
    assert main(["monitor", str(f), "--group", "gender"]) == 2
    assert "give either --cost or both --label and --prediction" in capsys.readouterr().err
    assert main(["monitor", str(tmp_path / "nope.csv"), "--group", "g", "--cost", "c"]) == 2
    assert "source file not found" in capsys.readouterr().err
    assert main(["monitor", str(f), "--group", "gender", "--cost", "cost",
                 "--groups", "a,b,c"]) == 2
    assert "groups must name exactly two groups" in capsys.readouterr().err
    assert not math.isnan(0.0)


DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"


def test_compas_false_positive_gap_found_early(tmp_path):
    # ProPublica COMPAS: among people who did not reoffend, "Medium/High" risk scores
    # (decile >= 5) went to about 45% of African-American vs 23% of Caucasian defendants.
    path = DATA / "compas" / "compas-scores-two-years.csv"
    if not path.exists():
        pytest.skip("shared COMPAS data not available")
    import pandas as pd

    df = pd.read_csv(path, usecols=["race", "decile_score", "two_year_recid"])
    df = df[df.race.isin(["African-American", "Caucasian"])]
    df = df.sample(frac=1.0, random_state=0)  # arrival order unrelated to cost
    df["label"] = df.two_year_recid
    df["pred"] = (df.decile_score >= 5).astype(int)
    f = tmp_path / "compas.csv"
    df[["race", "label", "pred"]].to_csv(f, index=False)
    res = CliRunner().invoke(app, ["monitor", str(f), "--group", "race", "--label", "label",
                                   "--prediction", "pred", "--metric", "false_positive_rate",
                                   "--favourable", "negative",  # flagged as high risk harms
                                   "--groups", "African-American,Caucasian",
                                   "--batch-size", "250", "--format", "json"])
    assert res.exit_code == 0, res.output
    steps = json.loads(res.output)["steps"]
    final = steps[-1]
    assert final["verdict"] == "A disadvantaged"
    assert 0.1 < final["estimate"] < 0.35
    assert len(steps) * 250 < len(df) / 2  # stopped before reading half of the rows


def test_cli_monitor_follows_a_growing_file(tmp_path):
    import threading
    import time

    f = tmp_path / "grow.csv"
    f.write_text("g,c\n")
    rng = np.random.default_rng(4)

    def writer():
        for _ in range(40):
            g = rng.choice(["x", "y"], size=100)
            c = rng.binomial(1, np.where(g == "x", 0.5, 0.1))
            with f.open("a") as fh:
                fh.write("".join(f"{a},{b}\n" for a, b in zip(g, c, strict=True)))
            time.sleep(0.02)

    t = threading.Thread(target=writer)
    t.start()
    try:
        res = CliRunner().invoke(app, ["monitor", str(f), "--group", "g", "--cost", "c",
                                       "--groups", "x,y", "--follow", "--poll", "0.01",
                                       "--timeout", "3", "--batch-size", "50"])
    finally:
        t.join()
    assert res.exit_code == 0, res.output
    assert "verdict after" in res.output and "A disadvantaged" in res.output


# ----------------------------------------------------------------------------- labels as audit


def _labelled(n, seed, fpr_a=0.45, fpr_b=0.2):
    """Rows with yes/no labels and predictions, group a with the higher false-positive rate."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], size=n)
    y = rng.binomial(1, 0.4, size=n)
    fp = rng.random(n) < np.where(g == "a", fpr_a, fpr_b)
    p = np.where(y == 1, rng.random(n) < 0.7, fp).astype(int)
    return pd.DataFrame({"g": g, "y01": y, "p01": p, "score": np.where(p == 1, 7, 3)
                         + rng.integers(-2, 3, size=n),
                         "y": np.where(y == 1, "yes", "no"), "p": np.where(p == 1, "yes", "no"),
                         "risk": np.where(y == 1, "High", "Low")})


def _monitor_json(path, *args):
    res = CliRunner().invoke(app, ["monitor", str(path), "--group", "g", "--batch-size",
                                   "100000", "--format", "json", *args])
    return res.exit_code, (json.loads(res.stdout) if res.exit_code == 0 else res.output)


def test_cli_monitor_reads_labels_like_audit(tmp_path):
    import fairbound

    df = _labelled(3000, seed=11)
    f = tmp_path / "yn.csv"
    df.to_csv(f, index=False)
    audit = fairbound.audit(str(f), group="g", label="y", prediction="p", metrics="fpr",
                            method="agresti-caffo").comparisons[0]
    assert (audit.group_a, audit.group_b) == ("a", "b")
    runs = {}
    for pos in ([], ["--pos-label", "yes"], ["--pos-label", "true"], ["--pos-label", "1"]):
        code, out = _monitor_json(f, "-y", "y", "-p", "p", "-m", "false_positive_rate", *pos)
        assert code == 0, out
        runs[tuple(pos)] = out["steps"][-1]
    first = runs[()]
    assert all(r == first for r in runs.values())
    # the same cost gap as the audit on the same rows: not a silent 0 "within tolerance"
    assert first["estimate"] == pytest.approx(audit.estimate) and abs(first["estimate"]) > 0.1
    assert first["n_a"] + first["n_b"] == audit.a.n + audit.b.n
    # 0/1 columns with --pos-label 1, and a two-valued label with yes/no predictions
    code, out = _monitor_json(f, "-y", "y01", "--pred", "p01", "-m", "fpr", "--pos-label", "1")
    assert code == 0 and out["steps"][-1] == first
    code, out = _monitor_json(f, "-y", "risk", "--prediction", "p", "-m", "fpr", "--pos-label",
                              "High")
    assert code == 0 and out["steps"][-1] == first


@pytest.mark.parametrize("args,message", [
    (["-y", "y", "-p", "p", "--pos-label", "maybe"],
     "pos_label: 'maybe' matches no value of label 'y' or prediction 'p'; values are "
     "[False, True]"),
    (["-y", "y01", "-p", "score"],
     "prediction: column 'score' must be binary (0/1) like the label 'y01'"),
    (["-y", "risk", "-p", "p"], "prediction: prediction 'p' holds [False, True] but label "
     "'risk' holds ['High', 'Low']; say which label value a True prediction stands for"),
    (["-y", "risk", "-p", "risk", "--pos-label", "Medium"],
     "pos_label: 'Medium' matches no value of label 'risk' or prediction 'risk'"),
])
def test_cli_monitor_refuses_what_audit_refuses(tmp_path, capsys, args, message):
    f = tmp_path / "yn.csv"
    _labelled(400, seed=12).to_csv(f, index=False)
    code = main(["monitor", str(f), "--group", "g", "--batch-size", "50", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: {message}") and len(err.strip().splitlines()) == 1


def test_row_costs_read_labels_like_audit():
    # missing rows are not counted; text from a CSV is matched as the column holds it
    c = row_costs([1, None, 0, 1], [1, 1, float("nan"), 0], metric="accuracy_parity")
    assert np.isnan(c[1:3]).all() and c[[0, 3]].tolist() == [0.0, 1.0]
    assert row_costs([True, False], [1, 1], metric="fpr", pos_label="yes",
                     favourable="negative")[1] == 1.0
    with pytest.raises(FairboundError, match=r"must be binary \(0/1\) like the label"):
        row_costs([0, 1, 1], [3, 7, 9], metric="fpr")
    with pytest.raises(FairboundError, match="monitor one class at a time"):
        row_costs(["a", "b", "c"], ["a", "b", "c"], metric="tpr")
    assert row_costs(["a", "b", "c"], ["a", "c", "c"], metric="tpr",
                     pos_label="b").tolist()[1] == 1.0


def test_cli_monitor_skips_malformed_rows(tmp_path, capsys):
    f = tmp_path / "rows.csv"
    _write_csv(f, 300, 0.1, 0.1, seed=5)
    lines = f.read_text().splitlines()
    lines[3:3] = ["f,1", 'm,"1,0,1', "f,1,1,1,extra"]
    f.write_text("\n".join(lines) + "\n")
    code = main(["monitor", str(f), "--group", "gender", "--label", "label", "--prediction",
                 "pred", "--groups", "f,m", "--batch-size", "1000"])
    out = capsys.readouterr().out
    assert code == 0
    assert "after 300 rows" in out
    assert "note: skipped 3 malformed rows (first: line 4 (2 fields, header has 4): 'f,1')" in out
    code = main(["monitor", str(f), "--group", "gender", "--cost", "cost", "--groups", "f,m",
                 "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["malformed_rows"] == 3
    assert captured.err.startswith("note: skipped 3 malformed rows")


def test_cli_monitor_never_counts_an_unfinished_line(tmp_path):
    import threading
    import time

    f = tmp_path / "grow.csv"
    f.write_text("g,c\nx,1\ny,0\nx,")  # the last row is being written
    res = CliRunner().invoke(app, ["monitor", str(f), "--group", "g", "--cost", "c",
                                   "--follow", "--poll", "0.01", "--timeout", "0.1",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["steps"][-1]["n_a"] == 1 and out["unfinished_last_line"] is True

    def finish():  # the rest of the line arrives, then more rows, each written in halves
        for part in ["1\n", "y,", "0\n", "x,1\ny,1", "\n"]:
            time.sleep(0.05)
            with f.open("a") as fh:
                fh.write(part)

    t = threading.Thread(target=finish)
    t.start()
    try:
        res = CliRunner().invoke(app, ["monitor", str(f), "--group", "g", "--cost", "c",
                                       "--follow", "--poll", "0.01", "--timeout", "0.5",
                                       "--groups", "x,y", "--batch-size", "1",
                                       "--format", "json"])
    finally:
        t.join()
    assert res.exit_code == 0, res.output
    last = json.loads(res.stdout)["steps"][-1]
    assert (last["n_a"], last["n_b"]) == (3, 3)
    assert last["estimate"] == pytest.approx(1.0 - 1.0 / 3.0)


def test_cli_monitor_option_spellings(tmp_path):
    f = tmp_path / "rows.csv"
    _write_csv(f, 400, 0.1, 0.1, seed=6)
    outs = []
    for args in (["--label", "label", "--prediction", "pred", "--confidence-level", "0.9"],
                 ["-y", "label", "--pred", "pred", "--confidence", "0.9"],
                 ["-y", "label", "-p", "pred", "--confidence", "0.9"]):
        res = CliRunner().invoke(app, ["monitor", str(f), "-g", "gender", *args, "--format",
                                       "json"])
        assert res.exit_code == 0, res.output
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1] == outs[2] and outs[0]["confidence_level"] == 0.9
