"""The fairbound CLI: tables, formats, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from fairbound.cli import main


@pytest.fixture
def parquet(preds, tmp_path):
    path = tmp_path / "predictions.parquet"
    preds.to_parquet(path, index=False)
    return path


def test_audit_table(parquet, capsys):
    code = main(["audit", str(parquet), "--group", "g", "--label", "y", "--pred", "p",
                 "--metric", "equal_opportunity", "--metric", "dp"])
    out = capsys.readouterr().out
    assert code == 0
    assert "rows scanned: 4,000" in out
    assert "equal_opportunity" in out and "demographic_parity" in out
    assert "not enough evidence" in out or "disadvantaged" in out


def test_audit_json_csv_and_file(parquet, tmp_path, capsys):
    out_json = tmp_path / "r.json"
    assert main(["audit", str(parquet), "-g", "g", "-y", "y", "-p", "p", "--format", "json",
                 "--json", str(out_json), "--method", "newcombe", "--confidence", "0.9"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "newcombe" and d["confidence_level"] == 0.9
    assert json.loads(out_json.read_text())["comparisons"] == d["comparisons"]
    assert main(["audit", str(parquet), "-g", "g", "-y", "y", "-p", "p", "--format",
                 "csv", "--reference", "a"]) == 0
    from io import StringIO

    frame = pd.read_csv(StringIO(capsys.readouterr().out))
    assert set(frame["group_b"]) == {"a"}


ERRORS = [
    (["--group", "sex"], "error: group: column 'sex' not found"),
    (["--metric", "fairness"], "error: metric must be one of"),
    (["--confidence", "1.5"], "error: confidence_level must be in (0, 1); got 1.5"),
    (["--method", "bbu", "--gamma", "0.9"], "error: gamma must be in (0, 0.5]; got 0.9"),
    (["--format", "xml"], "error: format must be one of table, json, csv; got 'xml'"),
]


@pytest.mark.parametrize("extra,message", ERRORS)
def test_audit_errors_one_line_exit_2(parquet, capsys, extra, message):
    args = ["audit", str(parquet), "--group", "g", "--label", "y", "--pred", "p"]
    # a later --group replaces nothing: errors name the first bad one
    if extra[0] == "--group":
        args = ["audit", str(parquet), "--label", "y", "--pred", "p"]
    code = main(args + extra)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(message)
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_audit_bad_files(tmp_path, capsys):
    empty = tmp_path / "e.csv"
    empty.write_text("")
    assert main(["audit", str(empty), "-g", "g", "-y", "y", "-p", "p"]) == 2
    assert capsys.readouterr().err.startswith("error: data: file is empty")
    bad = tmp_path / "bad.csv"
    bad.write_text('g,y,p\na,1,1\nb,"0,1\n' + "c,1,0,5,6,7\n" * 3)
    assert main(["audit", str(bad), "-g", "g", "-y", "y", "-p", "p"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    one = tmp_path / "one.csv"
    pd.DataFrame({"g": ["a", "a"], "y": [1, 0], "p": [1, 1]}).to_csv(one, index=False)
    assert main(["audit", str(one), "-g", "g", "-y", "y", "-p", "p"]) == 2
    assert "has a single group ('a')" in capsys.readouterr().err
    scores = tmp_path / "s.csv"
    pd.DataFrame({"g": ["a", "b"], "y": [1, 0], "p": [0.3, 0.9]}).to_csv(scores, index=False)
    assert main(["audit", str(scores), "-g", "g", "-y", "y", "-p", "p"]) == 2
    assert "has non-integer values" in capsys.readouterr().err
    cost = tmp_path / "c.csv"
    pd.DataFrame({"g": ["a", "b"], "c": [0.3, 1.9]}).to_csv(cost, index=False)
    assert main(["audit", str(cost), "-g", "g", "--cost", "c"]) == 2
    assert "has values outside [0, 1]" in capsys.readouterr().err


def test_missing_required_option_is_usage_error(parquet):
    # click's own usage errors also exit 2, through the installed console script
    proc = subprocess.run([sys.executable, "-m", "fairbound", "audit", str(parquet)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "--group" in proc.stderr


# ----------------------------------------------------------------------------- honest verdicts


def _json(capsys, args):
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out), captured.err


def test_pos_label_as_the_column_holds_it(preds, tmp_path, capsys):
    f01 = tmp_path / "01.csv"
    preds.to_csv(f01, index=False)
    fyn = tmp_path / "yn.csv"  # read by DuckDB as booleans
    preds.assign(y=preds.y.map({0: "no", 1: "yes"}),
                 p=preds.p.map({0: "no", 1: "yes"})).to_csv(fyn, index=False)
    base = ["-g", "g", "-y", "y", "-p", "p", "-m", "equal_opportunity", "--format", "json"]
    ref, _ = _json(capsys, ["audit", str(f01), *base])
    for path, pos in ((f01, "1"), (fyn, None), (fyn, "yes"), (fyn, "true"), (fyn, "1")):
        extra = [] if pos is None else ["--pos-label", pos]
        got, _ = _json(capsys, ["audit", str(path), *base, *extra])
        assert got["comparisons"] == ref["comparisons"], (path.name, pos)
    got, _ = _json(capsys, ["audit", str(f01), *base, "--pos-label", "0"])
    assert got["positive"] == 0 and got["comparisons"] != ref["comparisons"]
    for path, pos, values in ((f01, "yes", "[0, 1]"), (fyn, "maybe", "[False, True]")):
        code = main(["audit", str(path), *base, "--pos-label", pos])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert err.startswith(f"error: pos_label: '{pos}' matches no value of label 'y' or "
                              f"prediction 'p'; values are {values}")


def test_mismatched_labels_and_predictions_exit_2(tmp_path, capsys):
    # the COMPAS mistake: risk levels as labels, a thresholded decile as the prediction
    f = tmp_path / "compas.csv"
    pd.DataFrame({"race": ["A", "B", "C"] * 20, "score_text": ["High", "Low", "Medium"] * 20,
                  "decile_score": list(range(1, 11)) * 6}).to_csv(f, index=False)
    code = main(["audit", str(f), "-g", "race", "-y", "score_text", "-p", "decile_score >= 5",
                 "-m", "false_positive_rate"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith(
        "error: prediction: prediction 'decile_score >= 5' holds [False, True] but label "
        "'score_text' holds ['High', 'Low', 'Medium']")
    assert len(captured.err.strip().splitlines()) == 1


def test_option_spellings_are_the_same_everywhere(parquet, capsys):
    base = ["audit", str(parquet), "-g", "g", "-y", "y", "-m", "dp", "--format", "json"]
    a, _ = _json(capsys, base + ["--pred", "p", "--confidence", "0.9"])
    b, _ = _json(capsys, base + ["--prediction", "p", "--confidence-level", "0.9"])
    assert a["comparisons"] == b["comparisons"] and b["confidence_level"] == 0.9
    p1, _ = _json(capsys, ["plan", "--n", "2000", "--confidence", "0.9", "--format", "json"])
    p2, _ = _json(capsys, ["plan", "--n", "2000", "--confidence-level", "0.9", "--format",
                           "json"])
    assert p1 == p2 and p1["confidence_level"] == 0.9
    # commands declared elsewhere get the other spelling too
    import typer

    from fairbound.cli import app

    group = typer.main.get_command(app)
    ctx = group.context_class(group)   # typer's own click (typer 0.2x vendors it)
    opts = {}
    for path in (["audit"], ["monitor"], ["plan"], ["simulate"], ["report"],
                 ["stability", "run"], ["nli", "audit"]):
        cmd = group.get_command(ctx, path[0])
        for name in path[1:]:
            cmd = cmd.get_command(ctx, name)
        opts[" ".join(path)] = {o for p in cmd.params for o in getattr(p, "opts", ())}
    for name, have in opts.items():
        assert {"--confidence", "--confidence-level"} <= have, name
    for name in ("audit", "monitor", "report"):
        assert {"--pred", "--prediction", "-p"} <= opts[name], name


def test_vs_reference_names_the_reference_it_picked(parquet, capsys):
    base = ["audit", str(parquet), "-g", "g", "-y", "y", "-p", "p", "-m", "dp"]
    assert main(base + ["--comparison", "vs_reference"]) == 0  # underscore spelling accepted
    out = capsys.readouterr().out
    assert "reference group: " in out and "(the largest group; choose another with " \
        "--reference)" in out
    d, err = _json(capsys, base + ["--comparison", "vs-reference", "--format", "json"])
    assert err.strip() == (f"note: reference group: {d['reference']} (the largest group; "
                           "choose another with --reference)")
    assert main(base + ["--reference", "b"]) == 0
    out = capsys.readouterr().out
    assert "reference group: b\n" in out and "the largest" not in out
    assert main(base + ["--comparison", "versus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: comparison must be one of pairwise, vs-rest, vs-reference; "
                          "got 'versus'") and len(err.strip().splitlines()) == 1


def test_warnings_become_tidy_notes(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    f = tmp_path / "small.csv"
    pd.DataFrame({"g": rng.choice(["a", "b", "c"], size=n, p=[0.48, 0.48, 0.04]),
                  "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)}).to_csv(f, index=False)
    args = ["audit", str(f), "-g", "g", "-y", "y", "-p", "p", "-m", "dp", "--method",
            "agresti-caffo"]
    assert main(args) == 0
    captured = capsys.readouterr()
    for text in (captured.out, captured.err):
        assert "Warning" not in text and ".py:" not in text and "result = audit(" not in text
    assert captured.err == ""  # the table's notes already name the small group
    assert "note: demographic_parity a vs c: small group 'c'" in captured.out
    assert main(args + ["--format", "json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)
    assert captured.err == ("note: small groups (fewer than 30 rows in some denominator): "
                            "c\n")


def test_tidy_warnings_for_every_command(capsys):
    import warnings

    from fairbound.cli import tidy_warnings
    from fairbound.errors import DegenerateDataWarning

    with tidy_warnings():
        for _ in range(2):
            warnings.warn("group 'x' has one class;\n  the rate is 0", DegenerateDataWarning,
                          stacklevel=1)
        warnings.warn("something else", UserWarning, stacklevel=1)
    err = capsys.readouterr().err
    assert err == "note: group 'x' has one class; the rate is 0\nnote: something else\n"


def test_commands_run_with_openblas_idle_spin_short(monkeypatch):
    # OpenBLAS reads OPENBLAS_THREAD_TIMEOUT when a copy of it loads (numpy's, SciPy's):
    # the command line sets the least spin while a command runs, keeps a value the user
    # set, and leaves the environment as it found it
    import os

    from fairbound import cli

    seen = []
    monkeypatch.setattr(cli, "_main", lambda argv: seen.append(
        os.environ.get("OPENBLAS_THREAD_TIMEOUT")) or 0)
    monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    monkeypatch.delenv("GOTO_THREAD_TIMEOUT", raising=False)
    assert cli.main(["--version"]) == 0
    assert seen == ["4"] and "OPENBLAS_THREAD_TIMEOUT" not in os.environ
    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "20")
    assert cli.main(["--version"]) == 0
    assert seen[-1] == "20" and os.environ["OPENBLAS_THREAD_TIMEOUT"] == "20"


def test_a_command_loads_numpy_after_the_spin_is_set():
    # the setting only works if numpy's OpenBLAS loads inside the command: importing the
    # command line must not import numpy
    code = "import sys, fairbound.cli; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
