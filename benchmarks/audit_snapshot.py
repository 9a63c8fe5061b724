"""Saved-output gate for whole audits: ``save`` today's results, ``check`` them later.

Refactors keep numbers and verdicts "bit-identical on saved outputs". This gate runs 195
seeded audits of every kind through the public functions (``fairbound.audit`` with every
error control, comparison mode and two metric sets; ``ppi_audit`` with one and three
looks; ``score_audit``; ``impact_ratios`` for selection rate and TPR; ``ll144_audit``) and
compares ``to_dict()`` value for value (floats by their bits), ignoring only the fields that
name the time or version of a run::

    python benchmarks/audit_snapshot.py save /tmp/audits_before.pkl
    python benchmarks/audit_snapshot.py check /tmp/audits_before.pkl

It takes about 3 minutes on one core (the ppi audits with three looks dominate).
"""

from __future__ import annotations

import math
import pickle
import sys
import warnings

import numpy as np
import pandas as pd

#: fields that name when or with which version a result was made, not what it says
IGNORED = frozenset({"created", "elapsed", "seconds", "timing", "version"})


def data(seed: int, n: int = 1500) -> pd.DataFrame:
    """Four groups with shifted rates, a score, a noisy judge and 30% gold labels."""
    r = np.random.default_rng(seed)
    g = r.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1])
    shift = np.select([g == "b", g == "c", g == "d"], [0.08, -0.05, 0.15], 0.0)
    y = (r.random(n) < 0.4 + shift).astype(int)
    s = np.clip(0.3 * y + 0.35 + shift + r.normal(0, 0.2, n), 0, 1)
    judge = np.where(r.random(n) < 0.85, y, 1 - y)
    gold = np.where(r.random(n) < 0.3, y, np.nan)
    return pd.DataFrame({"g": g, "y": y, "p": (s > 0.5).astype(int), "s": s,
                         "judge": judge, "gold": gold, "h": r.choice(["x", "z"], n)})


def compute() -> dict:
    """``{key: to_dict()}`` of every audit of the gate."""
    import fairbound
    from fairbound.audits.ratios import ll144_audit

    warnings.simplefilter("ignore")
    out = {}
    for seed in (1, 2, 3):
        df = data(seed)
        for ec in ("family", "fdr", "none"):
            for cmp in ("pairwise", "vs-rest", "vs-reference"):
                ref = "a" if cmp == "vs-reference" else None
                kw = dict(group="g", label="y", prediction="p", error_control=ec,
                          comparison=cmp, reference=ref)
                for metrics in (None, ["equalized_odds", "demographic_parity"]):
                    out[("main", seed, ec, cmp, str(metrics))] = fairbound.audit(
                        df, metrics=metrics, **kw).to_dict()
                out[("main_tol", seed, ec, cmp)] = fairbound.audit(
                    df, tolerance=0.1, confidence_level=0.9, **kw).to_dict()
                for looks in (1, 3):
                    out[("ppi", seed, ec, cmp, looks)] = fairbound.ppi_audit(
                        df, group="g", label="gold", proxy="judge", prediction="p",
                        error_control=ec, comparison=cmp, reference=ref,
                        looks=looks).to_dict()
        for ec in ("family", "none"):
            for cmp in ("pairwise", "vs-rest", "vs-reference"):
                ref = "a" if cmp == "vs-reference" else None
                out[("scores", seed, ec, cmp)] = fairbound.score_audit(
                    df, group="g", label="y", score="s", error_control=ec, comparison=cmp,
                    reference=ref).to_dict()
            for versus in ("highest", "reference", "pairwise"):
                ref = "a" if versus == "reference" else None
                out[("ratios", seed, ec, versus)] = fairbound.impact_ratios(
                    df, group="g", prediction="p", versus=versus, reference=ref,
                    error_control=ec).to_dict()
                out[("ratios_tpr", seed, ec, versus)] = fairbound.impact_ratios(
                    df, group="g", prediction="p", label="y", rate="tpr", versus=versus,
                    reference=ref, error_control=ec, confidence_level=0.9).to_dict()
            out[("ll144", seed, ec)] = ll144_audit(
                df, group=["g", "h"], prediction="p", error_control=ec).to_dict()
    return {k: strip(v) for k, v in out.items()}


def strip(x):
    """``x`` without the :data:`IGNORED` fields, at any depth."""
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in IGNORED}
    if isinstance(x, list | tuple):
        return type(x)(strip(v) for v in x)
    return x


def differences(a, b, path: str = "") -> list[str]:
    """Where ``b`` differs from ``a``: floats by their bits (NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        same = (math.isnan(a) and math.isnan(b)) or a == b
        return [] if same else [f"{path}: {a!r} != {b!r}"]
    if type(a) is not type(b):
        return [f"{path}: type {type(a).__name__} != {type(b).__name__}"]
    if isinstance(a, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))} differ"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list | tuple):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != {len(b)}"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (u, v) in pairs for d in differences(u, v, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in ("save", "check"):
        print(__doc__)
        return 2
    res = compute()
    if argv[0] == "save":
        with open(argv[1], "wb") as f:
            pickle.dump(res, f)
        print(f"saved {len(res)} audits to {argv[1]}")
        return 0
    with open(argv[1], "rb") as f:
        old = pickle.load(f)
    bad = [d for k in old for d in (differences(old[k], res[k], str(k)) if k in res
                                    else [f"{k}: missing"])]
    print(f"compared {len(old)} audits; {len(bad)} differences")
    for d in bad[:30]:
        print(d)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
