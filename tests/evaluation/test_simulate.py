import json

import numpy as np
import pytest

from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.evaluation.simulate import (
    SCENARIOS,
    methods_page,
    peeking_error,
    power_table,
    simulate,
)


def test_same_seed_same_table_and_other_seed_differs():
    kw = dict(scenarios=("binary", "beta"), n_total=(60, 200), share=(0.2, 0.5), n_reps=40)
    r1 = simulate(["wald", "betting"], seed=4, **kw)
    r2 = simulate(["wald", "betting"], seed=4, **kw)
    r3 = simulate(["wald", "betting"], seed=5, **kw)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in r1.rows]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in r2.rows]
    assert strip != [{k: v for k, v in r.items() if k != "seconds"} for r in r3.rows]
    df = r1.to_frame()
    assert len(df) == 2 * 2 * 2 * 2
    assert set(df.n_a + df.n_b) == {60, 200}
    assert (df.reps == 40).all()


def test_scenario_truths_and_draws():
    assert SCENARIOS["binary"].delta == pytest.approx(0.05)
    assert SCENARIOS["rare"].delta == pytest.approx(0.02)
    assert SCENARIOS["null-beta"].is_null
    a, b = SCENARIOS["beta"].draw(4000, 4000, np.random.default_rng(0))
    assert a.mean == pytest.approx(0.15, abs=0.01) and b.mean == pytest.approx(0.10, abs=0.01)
    assert a.sample is not None and not a.binary
    # Beta(0.3, 1.7): variance mu (1 - mu) / (k + 1)
    assert a.var == pytest.approx(0.15 * 0.85 / 3, rel=0.1)


def test_binary_only_method_is_not_estimable_on_beta_costs():
    r = simulate(["newcombe"], scenarios="beta", n_total=100, share=0.5, n_reps=10)
    row = r.rows[0]
    assert row["reps"] == 0 and row["not_estimable"] == 10 and np.isnan(row["coverage"])


def test_power_column_is_power_and_type_one_error():
    r = simulate(["wald"], scenarios=("binary", "null-binary"), n_total=4000, share=0.5,
                 n_reps=200, seed=1)
    power, size = (row["excludes_zero"] for row in r.rows)
    assert power > 0.9 and size < 0.12


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"methods": ["nope"]}, "method must be one of"),
        ({"scenarios": "weird"}, "scenarios must be among binary"),
        ({"n_total": 3}, "n_total must be integers >= 4; got 3"),
        ({"share": 1.0}, r"share must be in \(0, 1\); got 1.0"),
        ({"n_reps": 0}, "n_reps must be a positive integer; got 0"),
        ({"seed": "x"}, "seed must be an integer; got 'x'"),
        ({"confidence_level": 95}, r"confidence_level must be in \(0, 1\); got 95"),
    ],
)
def test_validation_messages(kwargs, match):
    kwargs.setdefault("methods", ["wald"])
    with pytest.raises(FairboundError, match=match):
        simulate(kwargs.pop("methods"), **kwargs)


def test_peeking_inflates_wald_not_betting():
    r = peeking_error(n_pairs=400, n_streams=60, seed=3)
    wald, bet = r.ever_missed
    assert wald > 0.2  # far above the nominal 5%
    assert bet <= 0.1
    assert r.to_frame().shape == (2, 3)
    with pytest.raises(FairboundError, match="first_look must be <= n_pairs"):
        peeking_error(n_pairs=20, first_look=30)


@pytest.mark.slow
def test_peeking_2500_pairs():
    r = peeking_error(n_pairs=2500, n_streams=400, seed=0)
    assert r.ever_missed[0] > 0.3
    assert r.ever_missed[1] <= 0.07


def test_methods_page_contents():
    r = simulate(["wald", "betting"], scenarios="binary", n_total=(100, 400), n_reps=20)
    pw = power_table(["wald"], n_sims=20)
    pk = peeking_error(n_pairs=100, n_streams=5)
    page = methods_page(r, pw, pk, command="fairbound simulate --markdown")
    assert page.startswith("# Interval methods compared")
    assert "`fairbound simulate --markdown`" in page
    assert "| `wald` | asymptotic |" in page and "| `betting` | finite-sample |" in page
    assert "## Looking after every pair" in page
    assert pw.loc[0, "n_binary"] == 1366


def test_cli_simulate_table_json_and_errors(capsys, tmp_path, monkeypatch):
    args = ["simulate", "--methods", "wald,betting", "--scenarios", "binary", "--n", "100",
            "--share", "0.5", "--reps", "20"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "betting" in out and "finite-sample" in out
    assert main(args + ["--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {r["method"] for r in data["rows"]} == {"wald", "betting"}
    # the page's power and peeking sections at full size take a minute: shrink them here
    import fairbound.evaluation.simulate as sim

    fast_power, fast_peek = sim.power_table, sim.peeking_error
    monkeypatch.setattr(sim, "power_table",
                        lambda s, seed, skip_beta: fast_power(["wald"], seed=seed))
    monkeypatch.setattr(sim, "peeking_error", lambda **kw: fast_peek(n_pairs=50, n_streams=3))
    target = tmp_path / "page.md"
    assert main(args[:-2] + ["--reps", "10", "--markdown", "--out", str(target)]) == 0
    page = target.read_text()
    assert page.startswith("# Interval methods compared")
    assert "`fairbound simulate --markdown --methods wald,betting --scenarios binary" in page
    assert main(["simulate", "--methods", "nope"]) == 2
    assert "method must be one of" in capsys.readouterr().err
    assert main(["simulate", "--n", "10,x"]) == 2
    assert "n must be a comma-separated list of int values; got 'x'" in capsys.readouterr().err


def test_cli_default_methods_skip_slow_cells(capsys):
    from fairbound.stats import INTERVAL_METHODS

    assert main(["simulate", "--scenarios", "beta,binary", "--n", "60,200", "--reps", "3",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["method"] for r in rows} == set(INTERVAL_METHODS)
    slow = {m for m, s in INTERVAL_METHODS.items() if s.guarantee == "resampling"}
    for r in rows:
        if r["method"] in slow and r["scenario"] == "beta":
            assert r["n_total"] == 60
    assert any(r["method"] in slow and r["n_total"] == 200 for r in rows) == bool(slow)
