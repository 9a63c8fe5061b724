"""Scale of :func:`fairbound.discover`: time vs one bare DuckDB ``GROUP BY CUBE`` scan.

Writes a Parquet file of ``n`` rows (6 categorical features with ``levels`` values each, a
0/1 label and prediction), then times, on the same file:

* ``cube``: ``SELECT f0..f5, count(*) FROM file GROUP BY CUBE (f0..f5)``, fetched;
* ``discover``: ``fairbound.discover(file, 6 features, depth=3)`` end to end (profile scan,
  the ``GROUPING SETS`` scan, the bounds, the error control and the result);

best of ``--repeat`` runs each, and prints the ratio (target: at most 3).

Run::

    python benchmarks/discover_scale.py --n 1000000
    python benchmarks/discover_scale.py --n 10000000 --levels 10   # 10^4+ candidates
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np


def write(path: str, n: int, levels: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    cols = {f"f{i}": pa.array(np.char.add("v", rng.integers(0, levels, n).astype(str)))
            for i in range(6)}
    y = rng.integers(0, 2, n)
    cols["y"] = pa.array(y.astype(np.int8))
    cols["p"] = pa.array(np.where(rng.random(n) < 0.15, 1 - y, y).astype(np.int8))
    pq.write_table(pa.table(cols), path, row_group_size=1 << 20)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--levels", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    import duckdb

    import fairbound

    folder = a.dir or tempfile.mkdtemp()
    path = os.path.join(folder, f"discover_{a.n}_{a.levels}.parquet")
    if not os.path.exists(path):
        write(path, a.n, a.levels)
    feats = [f"f{i}" for i in range(6)]
    cube = (f"SELECT {', '.join(feats)}, count(*) AS n FROM read_parquet('{path}') "
            f"GROUP BY CUBE ({', '.join(feats)})")

    def run_cube():
        con = duckdb.connect()
        con.sql(cube).fetchnumpy()
        con.close()

    holder = {}

    def run_discover():
        holder["res"] = fairbound.discover(path, feats, label="y", prediction="p", depth=3,
                                           min_support=1)

    run_discover()   # warm: imports
    t_cube = best(run_cube, a.repeat)
    t_disc = best(run_discover, a.repeat)
    res = holder["res"]
    out = {"n": a.n, "levels": a.levels, "candidates": res.n_candidates,
           "evaluated": res.n_evaluated, "pruned": res.n_pruned,
           "cube_seconds": round(t_cube, 3), "discover_seconds": round(t_disc, 3),
           "ratio": round(t_disc / t_cube, 2), "threads": duckdb.connect().sql(
               "SELECT current_setting('threads')").fetchall()[0][0]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
