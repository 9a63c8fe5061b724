"""The numerical checks behind the comments of ``fairbound.stats.exact`` (not timed tests).

Subcommands, each printing what the module's comments quote:

* ``scan``: on random tables with ``25 < n p q <= 100``, the hull found when scanning 0.3
  standard errors past each end for islands of acceptance vs 0.1 (``_SCAN_MID``), at the
  95% level and at 1 - 0.05/15; prints the largest difference and how many differ.
* ``sup``: the tail-bound supremum over the nuisance rate on the default grid (9 points and
  3 local rounds) vs a 4,001-point grid, on nulls 2.5 to 4.5 standard errors from random
  tables of 12,000 to 2,000,000 examples per group, and from a group of 1 to 12,000
  examples against one of 12,000 to 20,000,000; prints the largest shortfalls.
* ``newton``: the Chernoff bound after 0, 1, 2, 3 and 5 Newton steps vs 8, on 2,000 random
  settings of two large groups and 2,000 of a group of 400 to 12,000 against a larger one
  (the tables the batched search takes); prints the largest relative excess.
* ``batch``: 30 tail-bound tables (100,000 to 400,000 examples per group) searched together
  (``_exact_batch``) vs one at a time; prints both times and the largest difference.
* ``onesided``: the batched tail-bound search (``_bound_search``) vs the general one-table
  search (``_search``) on random tables it takes: two groups of 12,000 to 2,000,000, and a
  group of 2 to 12,000 against one of 12,000 to 20,000,000 (``--tables`` each), at 90%,
  95%, ``1 - 0.05/30`` and ``1 - 0.05/1000``; prints how far its ends fall inside or
  outside the general search's, and both times.
* ``finegrid``: random small tables (5 to 600 examples per group, log-uniform; rates 0.02
  to 0.98; at 95% and ``1 - 0.05/30``), each end of the one-table search's interval checked
  on a grid of 0.0005 standard errors out to 0.5 past it: how many tables have a value
  there that the test accepts (an island narrower than the search's scan step), and the
  farthest such value.
* ``pieces``: random tables of 5 to 150 examples per group; past each end, the nulls where
  the rejection region changes (every table's statistic on a grid of 0.001 standard
  errors out to 0.3): how many pieces of constant region have ``p`` higher inside than at
  both of their ends (the zoom of the search tests only the ends).
* ``smallaudit``: the small tables of the default audit of ``benchmarks/bench_scale.py``'s
  2,000-row file (the CLI benchmark's), as the audit hands them to the one-table search:
  their sizes, the CPU time of searching all of them (median of 5), how much wider
  ``exact-union`` (the cheap valid alternative) is on them, the nulls whose p-values the
  searches compute (bracketing, the scan for islands, the zoom), and the cost per null
  when one table's p-values are computed for 16, 64 and 256 nulls at once.

Usage::

    python benchmarks/exact_checks.py scan --tables 300
    python benchmarks/exact_checks.py sup
    python benchmarks/exact_checks.py newton
    python benchmarks/exact_checks.py batch
    python benchmarks/exact_checks.py onesided --tables 600
    python benchmarks/exact_checks.py rounds --tables 600
    python benchmarks/exact_checks.py islands --tables 400
    python benchmarks/exact_checks.py finegrid --tables 100
    python benchmarks/exact_checks.py pieces --tables 40
    python benchmarks/exact_checks.py smallaudit
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import fairbound.stats.exact as E
from fairbound.stats.base import GroupStats


def scan(tables: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    tabs = []
    while len(tabs) < tables:
        na, nb = (int(v) for v in rng.integers(40, 500, 2))
        pa, pb = rng.uniform(0.02, 0.98, 2)
        ka, kb = int(rng.binomial(na, pa)), int(rng.binomial(nb, pb))
        spread = max(na * E._smooth(ka, na), nb * E._smooth(kb, nb))
        if 25 < spread <= 100:
            tabs.append((ka, na, kb, nb))
    res = {}
    for width in (0.3, 0.1):
        saved = E._SCAN_MID
        E._SCAN_MID = (width, 0.01)
        try:
            t = time.perf_counter()
            res[width] = np.array([E._search(E._Table(*tb, alpha / 50), alpha)
                                   for alpha in (0.05, 0.05 / 15) for tb in tabs])
            print(f"scan {width} se: {time.perf_counter() - t:.1f} s")
        finally:
            E._SCAN_MID = saved
    d = np.abs(res[0.3] - res[0.1])
    print(f"{2 * tables} searches; largest difference {d.max():.3g}; "
          f"{int((d > 1e-12).any(axis=1).sum())} differ")


def sup(seed: int) -> None:
    rng = np.random.default_rng(seed)
    regimes = {
        "both groups of 12,000 to 2,000,000": lambda: (
            rng.integers(12_000, 2_000_000, 2), rng.uniform(0.02, 0.98, 2)),
        # the one-sided case (a group against a large rest): the bound tests every null
        # because of the large side alone, whatever the small side's size and rate
        "1 to 12,000 against 12,000 to 20,000,000": lambda: (
            np.array([int(np.exp(rng.uniform(0, np.log(12_000)))),
                      int(np.exp(rng.uniform(np.log(12_000), np.log(2e7))))]),
            np.array([rng.uniform(0, 1), rng.uniform(0.02, 0.98)])),
    }
    for name, draw in regimes.items():
        rows = []
        for _ in range(300):
            (na, nb), (pa, pb) = draw()
            tab = E._Table(int(na * pa), int(na), int(nb * pb), int(nb), 0.05 / 30 / 50)
            if not E._bound_only(tab):
                continue
            pa, pb = tab.ka / na, tab.kb / nb
            se = np.sqrt(max(pa * (1 - pa), 0.25 / na) / na + pb * (1 - pb) / nb)
            for sign in (-1, 1):
                d = tab.d_hat + sign * se * rng.uniform(2.5, 4.5)
                lo = max(0, -d, tab.cp_b[0], tab.cp_a[0] - d)
                hi = min(1, 1 - d, tab.cp_b[1], tab.cp_a[1] - d)
                if lo <= hi:
                    rows.append((na, nb, d, abs(tab.d_hat - d), lo, hi))
        na, nb, d, s, lo, hi = np.array(rows, float).T
        u = np.linspace(0, 1, 4001)
        nu = lo[:, None] + (hi - lo)[:, None] * u
        fine = E.bound_tail(na[:, None], nb[:, None], nu + d[:, None], nu, d[:, None],
                            s[:, None]).max(axis=1)
        top = np.maximum(fine, E._bound_sup_rows(na, nb, d, s, lo, hi, grid=801, rounds=5))
        got = E._bound_sup_rows(na, nb, d, s, lo, hi)
        short = np.where(top > 0, (top - got) / np.where(top > 0, top, 1.0), 0.0)
        print(f"{name}: {len(rows)} nulls; largest relative shortfall of the default grid "
              f"{np.max(short):.2g}, largest absolute {np.max(top - got):.2g}")


def newton(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for name, (a0, a1), (b0, b1) in (
            ("two groups of 10,000 to 1,000,000", (10_000, 1_000_000), (10_000, 1_000_000)),
            ("a group of 400 to 12,000 against 12,000 to 20,000,000", (400, 12_000),
             (12_000, 20_000_000))):
        print(name)
        _newton(rng, a0, a1, b0, b1)


def _newton(rng, a0, a1, b0, b1) -> None:
    na = rng.integers(a0, a1, 2000).astype(float)
    nb = rng.integers(b0, b1, 2000).astype(float)
    pa, pb = rng.uniform(0.03, 0.97, 2000), rng.uniform(0.03, 0.97, 2000)
    sd = np.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
    c = (pa - pb) + sd * rng.uniform(2, 5, 2000)

    def chernoff(steps):
        la, qa, lb, qb = np.log(pa), np.log1p(-pa), np.log(pb), np.log1p(-pb)
        lam = np.maximum(c - (pa - pb), 0) / sd**2

        def k(lam):
            ua, ub = np.logaddexp(qa, la + lam / na), np.logaddexp(qb, lb - lam / nb)
            pia, pib = np.exp(la + lam / na - ua), np.exp(lb - lam / nb - ub)
            return (na * ua + nb * ub - lam * c, pia - pib - c,
                    pia * (1 - pia) / na + pib * (1 - pib) / nb)

        best = np.zeros(c.shape)
        for _ in range(steps):
            v, g, h = k(lam)
            best = np.minimum(best, v)
            lam = np.maximum(lam - g / h, 0)
        return np.minimum(best, k(lam)[0])

    ref = chernoff(8)
    for steps in (0, 1, 2, 3, 5):
        print(f"{steps} Newton steps: largest relative excess "
              f"{np.max(np.exp(chernoff(steps) - ref) - 1):.2g}")


def batch(seed: int) -> None:
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(30):
        na, nb = rng.integers(100_000, 400_000, 2)
        pa, pb = rng.uniform(0.05, 0.9, 2)
        items.append((GroupStats.from_counts(int(na), int(na * pa)),
                       GroupStats.from_counts(int(nb), int(nb * pb)), 1 - 0.05 / 30))
    E.clear_cache()
    t = time.perf_counter()
    E._exact_batch(items)
    together = [E._exact(a, b, rho) for a, b, rho in items]
    t_batch = time.perf_counter() - t
    E.clear_cache()
    t = time.perf_counter()
    alone = [E._exact(a, b, rho) for a, b, rho in items]
    t_alone = time.perf_counter() - t
    diff = max(abs(x[0] - y[0]) + abs(x[1] - y[1]) for x, y in zip(together, alone,
                                                                   strict=True))
    print(f"30 tables: together {t_batch:.3f} s, one at a time {t_alone:.3f} s; "
          f"largest difference {diff:.3g}")


def onesided(tables: int, seed: int) -> None:
    for name, raw, alphas, tried in _random_tables(np.random.default_rng(seed), tables):
        tabs = [E._Table(*t, a / 50) for t, a in zip(raw, alphas, strict=True)]
        t = time.process_time()
        alone = np.array([E._search(x, a) for x, a in zip(tabs, alphas, strict=True)])
        t_alone = time.process_time() - t
        fresh = [E._Table(x.ka, x.na, x.kb, x.nb, x.gamma) for x in tabs]
        t = time.process_time()
        batch = np.array(E._bound_search(fresh, np.array(alphas), np.full(len(tabs), 1e-3)))
        t_batch = time.process_time() - t
        inside = np.maximum(batch[:, 0] - alone[:, 0], alone[:, 1] - batch[:, 1])
        outside = np.maximum(alone[:, 0] - batch[:, 0], batch[:, 1] - alone[:, 1])
        print(f"{name}: {len(tabs)} tables batched (of {tried} drawn); ends at most "
              f"{inside.max():.2g} inside the one-table search's, at most "
              f"{outside.max():.2g} outside ({(outside > 1e-5).sum()} more than 1e-5); "
              f"CPU {t_batch:.2f} s together, {t_alone:.2f} s one at a time")


def _random_tables(rng, tables: int):
    """Random tables the batched search takes, in two regimes, their levels and draws."""
    draws = {
        "two groups of 12,000 to 2,000,000": lambda: (
            rng.integers(12_000, 2_000_000, 2), rng.uniform(0.02, 0.98, 2)),
        "2 to 12,000 against 12,000 to 20,000,000": lambda: (
            np.array([int(np.exp(rng.uniform(np.log(2), np.log(12_000)))),
                      int(np.exp(rng.uniform(np.log(12_000), np.log(2e7))))]),
            np.array([rng.uniform(0, 1), rng.uniform(0.02, 0.98)])),
    }
    for name, draw in draws.items():
        tabs, alphas, tried = [], [], 0
        while len(tabs) < tables:
            (na, nb), (pa, pb) = draw()
            alpha = float(rng.choice([0.1, 0.05, 0.05 / 30, 0.05 / 1000]))
            tab = E._Table(int(na * pa), int(na), int(nb * pb), int(nb), alpha / 50)
            tried += 1
            if E._bound_only(tab):
                tabs.append((tab.ka, tab.na, tab.kb, tab.nb))
                alphas.append(alpha)
        yield name, tabs, np.array(alphas), tried


def rounds(tables: int, seed: int) -> None:
    import duckdb
    from bench_groups import make_parquet

    from fairbound.stats.exact import bound, inversion

    counted: list[int] = []
    evaluated: list[int] = []
    plain, tail = inversion._bound_pvalues, bound.bound_tail

    def counting(*args):
        counted.append(len(args[-1]))
        return plain(*args)

    def evaluating(n_a, n_b, p_a, *args):
        evaluated.append(np.size(p_a))
        return tail(n_a, n_b, p_a, *args)

    def run(tabs, alphas):
        counted.clear()
        evaluated.clear()
        inversion._bound_pvalues = counting
        inversion.bound_tail = evaluating
        try:
            inversion._bound_search([E._Table(*t, a / 50) for t, a in zip(tabs, alphas,
                                                                          strict=True)],
                                    alphas, np.full(len(tabs), 1e-3))
        finally:
            inversion._bound_pvalues = plain
            inversion.bound_tail = tail
        return (f"{sum(counted):,} rows ({', '.join(f'{c:,}' for c in counted)}); "
                f"{sum(evaluated):,} evaluations of the bound")

    for rows in (1_000_000, 10_000_000):
        path = make_parquet(1000, rows)
        cells = duckdb.sql(f"SELECT sum(p)::BIGINT, count(*) FROM read_parquet('{path}') "
                           "GROUP BY g").fetchall()
        k_all, n_all = sum(c[0] for c in cells), sum(c[1] for c in cells)
        tabs = [(k, n, k_all - k, n_all - n) for k, n in cells]
        for alpha in (0.05, 0.05 / 1000):
            print(f"1,000 groups, {rows:,} rows, level 1 - {alpha:g}: "
                  f"{run(tabs, np.full(len(tabs), alpha))}")
    for name, tabs, alphas, _ in _random_tables(np.random.default_rng(seed), tables):
        print(f"{name}, {len(tabs)} random tables: {run(tabs, alphas)}")


def islands(tables: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = np.linspace(-0.999, 0.999, 1999)
    tried, lost, far = 0, 0, 0.0
    t = time.process_time()
    while tried < tables:
        na = int(np.exp(rng.uniform(np.log(2), np.log(300))))
        nb = int(np.exp(rng.uniform(np.log(20_000), np.log(10_000_000))))
        ka = int(rng.binomial(na, rng.uniform(0.05, 0.95)))
        kb = int(nb * rng.uniform(0.05, 0.95))
        alpha = float(rng.choice([0.05, 0.05 / 30]))
        tab = E._Table(ka, na, kb, nb, alpha / 50)
        if E._bound_only(tab):
            continue
        tried += 1
        lo, hi = E._search(tab, alpha)
        p = E._pvalues(tab, d)[0]
        acc = d[p > alpha]
        out = np.r_[lo - acc[acc < lo - 1e-4], acc[acc > hi + 1e-4] - hi]
        if out.size:
            lost += 1
            far = max(far, float(out.max()))
    print(f"{tried} tables: {lost} with accepted nulls outside the hull (farthest "
          f"{far:.3g} past an end); CPU {time.process_time() - t:.1f} s")


def _small_tables(seed: int, tables: int, n_max: int):
    """Random small tables ``(k_a, n_a, k_b, n_b, alpha)``: sizes log-uniform from 5 to
    ``n_max``, rates uniform in 0.02-0.98, alpha 0.05 and 0.05/30 in turn."""
    rng = np.random.default_rng(seed)
    for i in range(tables):
        na, nb = (int(v) for v in np.exp(rng.uniform(np.log(5), np.log(n_max), 2)))
        pa, pb = rng.uniform(0.02, 0.98, 2)
        yield int(rng.binomial(na, pa)), na, int(rng.binomial(nb, pb)), nb, (
            0.05, 0.05 / 30)[i % 2]


def finegrid(tables: int, seed: int, reach: float = 0.5) -> None:
    from fairbound.stats.exact import inversion

    missed = []
    searching = 0.0
    steps = int(round(reach / 0.0005))
    t = time.process_time()
    for ka, na, kb, nb, alpha in _small_tables(seed, tables, 600):
        tab = E._Table(ka, na, kb, nb, alpha / 50)
        t0 = time.process_time()
        lo, hi = E._search(tab, alpha)
        searching += time.process_time() - t0
        se = np.sqrt(max(ka * (na - ka) / na**3 + kb * (nb - kb) / nb**3, 1e-6))
        far, where = 0.0, ()
        for end, sign in ((lo, -1.0), (hi, 1.0)):
            d = end + sign * se * 0.0005 * np.arange(1, steps + 1)
            d = d[np.abs(d) < 1.0]
            if d.size:
                p, _ = inversion._pvalues(tab, d, None)
                if (p > alpha).any() and np.abs(d[p > alpha] - end).max() / se > far:
                    far = float(np.abs(d[p > alpha] - end).max() / se)
                    where = (float(d[p > alpha].min()), float(d[p > alpha].max()))
                    excess = float(p.max() / alpha - 1.0)
        if far > 0:
            missed.append(((ka, na, kb, nb), alpha, far, (lo, hi), where, excess))
    print(f"{tables} random tables (seed {seed}): {len(missed)} with a value the test accepts "
          f"past an end of the search's hull (grid of 0.0005 se to {reach:g} se past it); "
          f"farthest {max((m[2] for m in missed), default=0.0):.3g} se, p at most "
          f"{max((m[5] for m in missed), default=0.0):.2%} above alpha; CPU of the searches "
          f"{searching:.2f} s ({1000 * searching / tables:.1f} ms a table), of the check "
          f"{time.process_time() - t - searching:.1f} s")
    for table, alpha, far, (lo, hi), (a, b), excess in sorted(missed, key=lambda m: -m[2]):
        print(f"  {table[0]} of {table[1]} against {table[2]} of {table[3]} at 1 - "
              f"{alpha:.3g}: hull [{lo:.4f}, {hi:.4f}], the test also accepts {a:.4f} to "
              f"{b:.4f} ({far:.3g} se past an end, p up to {excess:.2%} above alpha)")


def pieces(tables: int, seed: int) -> None:
    from fairbound.stats.exact import inversion
    from fairbound.stats.exact.statistic import score_statistic

    count, interior, worst = 0, 0, 0.0
    t = time.process_time()
    for ka, na, kb, nb, alpha in _small_tables(seed, tables, 150):
        tab = E._Table(ka, na, kb, nb, alpha / 50)
        lo, hi = E._search(tab, alpha)
        se = np.sqrt(max(ka * (na - ka) / na**3 + kb * (nb - kb) / nb**3, 1e-6))
        x = np.arange(na + 1.0)[:, None, None]
        y = np.arange(nb + 1.0)[None, :, None]
        for end, sign in ((lo, -1.0), (hi, 1.0)):
            d = end + sign * se * 0.001 * np.arange(1, 301)
            d = d[np.abs(d) < 1.0]
            if d.size < 2:
                continue
            t_obs = np.abs(score_statistic(float(ka), float(kb), na, nb, d))
            region = np.abs(score_statistic(x, y, na, nb, d[None, None, :])) >= t_obs * (
                1.0 - inversion.TIE)
            cut = np.flatnonzero((region[..., 1:] != region[..., :-1]).any(axis=(0, 1))) + 1
            p, _ = inversion._pvalues(tab, d, None)
            for a, b in zip(np.r_[0, cut], np.r_[cut, d.size], strict=True):
                count += 1
                over = p[a:b].max() - max(p[a], p[b - 1])
                if over > 1e-12:
                    interior += 1
                    worst = max(worst, over / alpha)
    print(f"{tables} random tables (5 to 150 per group, seed {seed}), 0.3 se past each end on "
          f"a grid of 0.001 se: {count:,} pieces of constant rejection region, {interior} with "
          f"p higher inside than at both ends (by at most {worst:.2g} of alpha); CPU "
          f"{time.process_time() - t:.1f} s")


def smallaudit() -> None:
    from bench_scale import make_parquet

    import fairbound
    import fairbound.stats.exact.interval as interval
    import fairbound.stats.exact.inversion as inv

    path = make_parquet(2000)
    tables = []
    search = interval._search

    def record(tab, alpha, tol=1e-3):
        tables.append((tab.ka, tab.na, tab.kb, tab.nb, tab.gamma, alpha, tol))
        return search(tab, alpha, tol)

    interval._search = record
    try:
        fairbound.audit(str(path), group="g", label="y", prediction="y_hat")
    finally:
        interval._search = search
    sizes = sorted({n for t in tables for n in (t[1], t[3])})
    print(f"{len(tables)} tables searched one at a time; group sizes {sizes[0]} to "
          f"{sizes[-1]}; levels {sorted({round(1 - t[5], 6) for t in tables})}")

    def run():
        return [inv._search(inv._Table(*t[:5]), t[5], t[6]) for t in tables]

    ends = run()
    cpu = []
    for _ in range(5):
        t0 = time.process_time()
        run()
        cpu.append(time.process_time() - t0)
    print(f"CPU of the {len(tables)} searches: median {np.median(cpu):.3f} s "
          f"(min {min(cpu):.3f}, max {max(cpu):.3f})")
    # the cheap valid alternative for these tables: each group's Clopper-Pearson interval
    # (exact-union), against the exact interval's width
    from fairbound.stats.exact.union import union_interval_many

    k = np.array([t[:4] for t in tables], dtype=float)
    level = {1.0 - t[5] for t in tables}
    assert len(level) == 1, "one level for every table of the audit"
    ulo, uhi = union_interval_many(k[:, 0], k[:, 1], k[:, 2], k[:, 3], level.pop())
    ratio = (uhi - ulo) / np.array([hi - lo for lo, hi in ends])
    print(f"exact-union's width over exact's on these tables: {ratio.min():.2f} to "
          f"{ratio.max():.2f} (median {np.median(ratio):.2f})")
    counts = {"scan": [0, 0], "other": [0, 0]}
    pvalues = inv._pvalues

    def count(tab, d, alpha=None, settled=inv._SETTLED, rounds=2):
        st = np.broadcast_to(np.asarray(settled, dtype=float), np.shape(d))
        kind = "scan" if np.any(st == inv._SCAN_SETTLED) else "other"
        counts[kind][0] += 1
        counts[kind][1] += int(np.size(d))
        return pvalues(tab, d, alpha, settled, rounds)

    inv._pvalues = count
    try:
        run()
    finally:
        inv._pvalues = pvalues
    calls = sum(c[0] for c in counts.values())
    nulls = sum(c[1] for c in counts.values())
    print(f"p-value calls {calls} ({calls / len(tables):.1f} a table), nulls {nulls} "
          f"({nulls / len(tables):.1f} a table): {counts['scan'][1]} in the scans for "
          f"islands, {counts['other'][1]} bracketing the ends and zooming")
    big = max(tables, key=lambda t: t[1] * t[3])
    tab = inv._Table(*big[:5])
    lo, hi = inv._search(tab, big[5], big[6])
    per = []
    for m in (1, 16, 64, 256):
        d = np.linspace(hi, hi + 0.02, m)
        t0 = time.process_time()
        for _ in range(10):
            pvalues(tab, d, big[5], inv._SCAN_SETTLED)
        per.append((m, (time.process_time() - t0) / 10.0))
    print(f"largest table {big[0]}/{big[1]} vs {big[2]}/{big[3]}: p-values of m nulls at "
          "once, CPU per call and per null: " + ", ".join(
              f"m = {m}: {t * 1e3:.2f} ms, {t / m * 1e3:.3f} ms" for m, t in per))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("check", choices=["scan", "sup", "newton", "batch", "onesided", "rounds",
                                      "islands", "finegrid", "pieces", "smallaudit"])
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--reach", type=float, default=0.5,
                    help="finegrid: how far past each end to check, in standard errors")
    args = ap.parse_args(argv)
    if args.check == "scan":
        scan(args.tables, args.seed)
    elif args.check == "onesided":
        onesided(args.tables, args.seed)
    elif args.check == "rounds":
        rounds(args.tables, args.seed)
    elif args.check == "islands":
        islands(args.tables, args.seed)
    elif args.check == "finegrid":
        finegrid(args.tables, args.seed, args.reach)
    elif args.check == "pieces":
        pieces(args.tables, args.seed)
    elif args.check == "smallaudit":
        smallaudit()
    else:
        {"sup": sup, "newton": newton, "batch": batch}[args.check](args.seed)


if __name__ == "__main__":
    main()
