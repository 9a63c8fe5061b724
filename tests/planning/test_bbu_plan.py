"""The seed paper's planning numbers (Ethayarajh 2020, section 5 and Figure 2)."""

from __future__ import annotations

import pytest

from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.planning import plan_bbu, plan_curve


def test_paper_required_n_for_bias_005():
    # "n > 11903 ... 3.8x the 3,160 sentences of WinoBias" (C=1, rho=0.95, gamma=0.5,
    # worst-case sigma^2 = (C/gamma)^2 = 4).
    p = plan_bbu(bias=0.05, confidence_level=0.95, gamma=0.5)
    assert p.n == pytest.approx(11902.78, abs=0.01)
    assert p.n_required == 11903
    assert round(p.winobias_ratio, 1) == 3.8


def test_paper_smallest_bias_at_winobias_size():
    p = plan_bbu(n=3160, confidence_level=0.95, gamma=0.5)
    assert round(p.bias, 5) == 0.09742
    assert p.bias_rounded_up == 0.0975


def test_confidence_solved_inverts():
    p = plan_bbu(n=11903, bias=0.05, gamma=0.5)
    assert 0.95 < p.confidence_level < 0.95001
    q = plan_bbu(n=3160, bias=0.09742, gamma=0.5)
    assert q.confidence_level == pytest.approx(0.95, abs=1e-5)


def test_curve_is_decreasing_and_matches_points():
    fr = plan_curve([0.02, 0.05, 0.1, 0.2])
    assert list(fr["n"]) == sorted(fr["n"], reverse=True)
    assert fr.loc[1, "n"] == 11903


def test_corrected_needs_more():
    assert plan_bbu(bias=0.05, confidence_level=0.95, gamma=0.5, corrected=True).n_required > 11903


@pytest.mark.parametrize("kwargs,match", [
    (dict(bias=0.05), "give all but one of n, bias, confidence_level"),
    (dict(bias=0.05, confidence_level=0.95, n=10), "n must be None .give all but one"),
    (dict(bias=0.05, confidence_level=1.2), r"confidence_level must be in \(0, 1\); got 1.2"),
    (dict(bias=0.05, confidence_level=0.95, gamma=0.6), r"gamma must be in \(0, 0.5\]; got 0.6"),
    (dict(bias=0.05, confidence_level=0.95, gamma=0), r"gamma must be in \(0, 0.5\]; got 0"),
    (dict(bias=-0.1, confidence_level=0.95), r"bias must be in \(0, 1\]; got -0.1"),
    (dict(n=-5, confidence_level=0.95), "n must be a positive number; got -5"),
])
def test_plan_errors(kwargs, match):
    with pytest.raises(FairboundError, match=match):
        plan_bbu(**kwargs)


def test_cli_plan_prints_paper_numbers(capsys):
    assert main(["plan", "--bias", "0.05", "--confidence", "0.95", "--gamma", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "n = 11,903" in out and "3.8x" in out
    assert main(["plan", "--n", "3160", "--confidence", "0.95", "--gamma", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "0.0975" in out and "0.09742" in out


def test_cli_plan_json_and_errors(capsys):
    import json

    assert main(["plan", "--bias", "0.05", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_required"] == 11903
    assert main(["plan", "--bias", "0.05", "--gamma", "0.9"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: gamma must be in (0, 0.5]; got 0.9"
    assert main(["plan", "--bias", "0.05", "--confidence", "1"]) == 2
    assert "confidence_level must be in (0, 1)" in capsys.readouterr().err


def test_cli_plan_figure(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "curve.png"
    assert main(["plan", "--n", "3160", "--figure", str(out)]) == 0
    assert out.stat().st_size > 10_000
