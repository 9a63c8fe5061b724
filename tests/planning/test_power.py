import json
import math

import pytest
from scipy import stats as st
from statsmodels.stats.power import normal_sample_size_one_tail

from fairbound.errors import FairboundError
from fairbound.planning.power import minimum_detectable_gap, required_n, solve_power


def test_wald_matches_closed_form_and_statsmodels():
    r = required_n("wald", gap=0.05, power=0.8, rate_b=0.10)
    # se^2 = (0.15*0.85 + 0.10*0.90) / (n/2) = 0.435 / n_total
    z = st.norm.ppf(0.975) + st.norm.ppf(0.8)
    closed = z * z * 0.435 / 0.05**2
    assert r.n_total == math.ceil(closed)
    # statsmodels: one tail at alpha/2 with the same standard deviation under null and
    # alternative reproduces the normal formula
    sm = normal_sample_size_one_tail(0.05, 0.8, 0.025, std_null=math.sqrt(0.435),
                                     std_alternative=math.sqrt(0.435))
    assert r.n_total == pytest.approx(sm, rel=2e-3)
    assert r.basis == "analytic" and r.n_sims == 0 and r.guarantee == "asymptotic"


def test_bbu_reference_reproduces_issue_number():
    # BBU with its worst-case variance needs about 14,700 examples for 80% power at 0.15 vs
    # 0.10 with equal groups (the figure quoted for the seed paper's bound)
    r = required_n("bbu-corrected", gap=0.05)
    assert 14_000 < r.n_total < 15_000
    assert r.ratio_to_reference == pytest.approx(1.0)


def test_minimum_detectable_gap_inverts_required_n():
    r = required_n("agresti-caffo", gap=0.04, rate_b=0.2, share=0.3)
    g = minimum_detectable_gap("agresti-caffo", n_total=r.n_total, rate_b=0.2, share=0.3)
    assert g.solved_for == "gap"
    assert g.gap == pytest.approx(0.04, abs=2e-4)
    p = solve_power("agresti-caffo", n_total=r.n_total, gap=0.04, rate_b=0.2, share=0.3)
    assert p.solved_for == "power" and p.power == pytest.approx(0.8, abs=0.01)


def test_betting_power_at_2000_is_high_and_seeded():
    r1 = solve_power("betting", n_total=2000, gap=0.05, n_sims=100, seed=3)
    r2 = solve_power("betting", n_total=2000, gap=0.05, n_sims=100, seed=3)
    assert r1 == r2
    assert r1.basis == "simulation" and r1.seed == 3 and r1.n_sims == 100
    assert r1.power >= 0.7  # about 0.84 with many simulations
    assert r1.achieved_power == r1.power and r1.solved_for == "power"
    assert 0 < r1.power_se < 0.06
    assert r1.ratio_to_reference < 0.2


def test_guaranteed_methods_order():
    n = {m: required_n(m, gap=0.05).n_total
         for m in ("empirical-bernstein", "hoeffding", "bbu-corrected")}
    assert n["empirical-bernstein"] < n["hoeffding"] <= n["bbu-corrected"]


def test_unreachable_gap_is_infinite():
    g = minimum_detectable_gap("hoeffding", n_total=10, rate_b=0.5)
    assert g.gap == math.inf


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"gap": 0.05, "power": 0.8, "n_total": 100}, "give all but one of n_total, gap, power"),
        ({"gap": None, "power": None, "n_total": 100}, "give all but one of n_total, gap, power"),
        ({"gap": 0.05, "power": 1.5}, r"power must be in \(0, 1\); got 1.5"),
        ({"gap": 0.95, "power": 0.8}, r"gap must be in \[0, 0.9\]; got 0.95"),
        ({"gap": 0.05, "power": 0.8, "cost": "ordinal"}, "cost must be one of binary, beta"),
        ({"n_total": 2.5, "power": 0.8}, "n_total must be an integer >= 4; got 2.5"),
        ({"gap": 0.05, "power": 0.8, "share": 0}, r"share must be in \(0, 1\); got 0"),
        ({"gap": 0.05, "power": 0.8, "n_sims": 5}, "n_sims must be an integer >= 10; got 5"),
    ],
)
def test_validation_messages(kwargs, match):
    with pytest.raises(FairboundError, match=match):
        solve_power("wald", **kwargs)


def test_binary_only_method_rejects_beta_costs():
    with pytest.raises(FairboundError, match="method 'newcombe' needs 0/1 costs"):
        required_n("newcombe", gap=0.05, cost="beta")


@pytest.mark.slow
def test_acceptance_betting_required_n():
    # issue acceptance: <= 2,000 for 0/1 costs 0.15 vs 0.10, <= 700 for Beta costs
    binary = required_n("betting", gap=0.05, n_sims=1000, seed=0)
    assert binary.n_total <= 2000
    beta = required_n("betting", gap=0.05, cost="beta", n_sims=1000, seed=0)
    assert beta.n_total <= 700


def test_plan_rendering_for_a_method(capsys):
    import json

    from fairbound.cli.plan import plan_with_method

    common = dict(rate_b=0.1, share=0.5, cost="binary", confidence_level=0.95, n_sims=50,
                  seed=0)
    plan_with_method(method="wald", n=None, gap=0.05, power=None, fmt="table", **common)
    out = capsys.readouterr().out
    assert "wald (asymptotic): n = 1,366 annotated examples for 80% power" in out
    assert "bbu-corrected needs 14,488 (ratio 0.094)" in out and "basis: analytic" in out
    plan_with_method(method="wald", n=1366, gap=None, power=None, fmt="json", **common)
    data = json.loads(capsys.readouterr().out)
    assert data["solved_for"] == "gap" and abs(data["gap"] - 0.05) < 1e-3
    with pytest.raises(FairboundError, match="n must be a whole number of examples; got 10.5"):
        plan_with_method(method="wald", n=10.5, gap=None, power=0.8, fmt="table", **common)


def test_cli_plan_with_method(capsys):
    from fairbound.cli import main

    assert main(["plan", "--method", "wald", "--bias", "0.05", "--power", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "n = 1,366 annotated examples for 80% power" in out
    assert main(["plan", "--method", "betting", "--n", "2000", "--bias", "0.05", "--sims",
                 "50", "--format", "json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["solved_for"] == "power" and data["basis"] == "simulation"
    assert data["seed"] == 0 and data["n_sims"] == 50
    assert main(["plan", "--power", "0.9", "--bias", "0.05"]) == 2
    assert "--power needs --method" in capsys.readouterr().err
    # without --method the BBU plan is unchanged
    assert main(["plan", "--bias", "0.05", "--format", "json"]) == 0
    assert "solved_for" in capsys.readouterr().out


def test_parity_plan_matches_the_textbook_equivalence_formula():
    # Wald, true gap 0: the interval +/- z se lies within +/- tol with probability
    # 2 Phi((tol - z se) / se) - 1; at 80% this gives tol = (z_{0.975} + z_{0.9}) se
    from scipy.stats import norm

    from fairbound.planning.power import solve_power

    r = solve_power("wald", gap=0.0, power=0.8, rate_b=0.10, tolerance=0.05)
    se_1 = math.sqrt(2 * 0.09 / 0.5)  # se * sqrt(n_total) at share 0.5
    z = norm.ppf(0.975) + norm.ppf(0.9)
    assert r.n_total == pytest.approx((z * se_1 / 0.05) ** 2, rel=0.01)
    assert r.tolerance == 0.05 and math.isnan(r.reference_n_total)


def test_parity_plan_simulated_power_grows_with_n():
    from fairbound.planning.power import solve_power

    small = solve_power("betting-union", n_total=200, gap=0.0, power=None, tolerance=0.05,
                        n_sims=20)
    large = solve_power("betting-union", n_total=12000, gap=0.0, power=None, tolerance=0.05,
                        n_sims=20)
    assert small.basis == "simulation" and small.power == 0.0 and large.power >= 0.9


def test_parity_plan_refuses_a_gap_outside_the_band():
    from fairbound.planning.power import solve_power

    with pytest.raises(FairboundError, match="gap must be below the tolerance 0.05"):
        solve_power("wald", gap=0.06, power=0.8, tolerance=0.05)
    with pytest.raises(FairboundError, match="parity plan solves for n_total or power"):
        solve_power("wald", n_total=1000, power=0.8, tolerance=0.05)


def test_cli_plan_concentration_for_fractional_costs(capsys):
    # Beta(1.5, 8.5) against Beta(1, 9): rates 0.15 and 0.10, concentration 10
    from fairbound.cli import main

    args = ["plan", "--method", "welch", "--cost", "beta", "--rate-b", "0.1", "--bias", "0.05",
            "--format", "json"]
    assert main(args + ["--concentration", "10"]) == 0
    ten = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    two = json.loads(capsys.readouterr().out)
    assert ten["concentration"] == 10 and two["concentration"] == 2
    want = solve_power("welch", gap=0.05, power=0.8, rate_b=0.1, cost="beta", concentration=10)
    assert ten["n_total"] == want.n_total
    # less spread per example: fewer examples needed than at concentration 2
    assert ten["n_total"] < two["n_total"]
    assert main(args[:-2] + ["--concentration", "10"]) == 0
    assert "beta costs (concentration 10)" in capsys.readouterr().out


@pytest.mark.parametrize("extra,needle", [
    (["--method", "welch", "--concentration", "0", "--cost", "beta"], "concentration"),
    (["--method", "exact", "--concentration", "5"], "only Beta costs"),
    (["--concentration", "5"], "--concentration plans Beta costs with --method"),
])
def test_cli_plan_concentration_bad_values(capsys, extra, needle):
    from fairbound.cli import main

    assert main(["plan", "--bias", "0.05"] + extra) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_auto_plans_what_the_audit_runs_for_very_unequal_groups():
    # auto runs exact-union when one group is at least 3,000 times the other
    # (fairbound.stats.auto.union_applies): the plan names the same method.
    from fairbound.planning.power import describe_power_plan
    from fairbound.stats.auto import UNION_RATIO

    assert solve_power("auto", gap=0.05, rate_b=0.1, power=0.8).method == "exact"
    tiny = 1.0 / (UNION_RATIO + 2)
    r = solve_power("auto", gap=0.05, rate_b=0.1, power=0.8, share=tiny)
    assert r.method == "exact-union" and math.isfinite(r.n_total)
    # the BBU reference needs more than the search's 10^8 here: said, not an overflow
    assert not math.isfinite(r.reference_n_total)
    assert "bbu-corrected needs more than 100,000,000." in describe_power_plan(r)[0]


def _without_accepts(monkeypatch):
    from dataclasses import replace

    from fairbound.stats.base import INTERVAL_METHODS

    monkeypatch.setitem(INTERVAL_METHODS, "exact",
                        replace(INTERVAL_METHODS["exact"], accepts=None))


@pytest.mark.parametrize("kwargs", [
    dict(gap=0.05, power=0.8, rate_b=0.10),                   # the CLI's default: 1,377
    dict(gap=0.1, power=0.9, rate_b=0.3, share=0.2),
    dict(gap=0.2, power=0.8, rate_b=0.02, confidence_level=0.995),
])
def test_exact_plan_settled_by_one_pvalue_finds_the_same_n(kwargs, monkeypatch):
    # sizes whose power is certainly short are settled by one p-value of the test the
    # interval inverts (the accepts hook) instead of the interval's search: same n
    from fairbound.stats.exact import clear_cache

    clear_cache()
    fast = solve_power("exact", **kwargs).n_total
    _without_accepts(monkeypatch)
    clear_cache()
    assert solve_power("exact", **kwargs).n_total == fast
    if kwargs["gap"] == 0.05:
        assert fast == 1377


def test_exact_plan_counts_an_island_the_search_now_finds(monkeypatch):
    # 19 of 63 against 25 of 251 at 99.5%: the test accepts 0.0531-0.0532, an island past
    # the end the search found before its zoom (0.0542); the hull now holds it, so the
    # one-p-value check and the search alone agree again (both asked 315; the search alone
    # asked 314 before)
    from fairbound.stats.exact import clear_cache, exact_interval, exact_pvalue

    lo, _ = exact_interval(19, 63, 25, 251, 0.995)
    assert exact_pvalue(19, 63, 25, 251, 0.0532, gamma=0.005 / 50) > 0.005 and lo < 0.0531
    kwargs = dict(gap=0.2, power=0.8, rate_b=0.1, share=0.2, confidence_level=0.995)
    clear_cache()
    assert solve_power("exact", **kwargs).n_total == 315
    _without_accepts(monkeypatch)
    clear_cache()
    assert solve_power("exact", **kwargs).n_total == 315
