"""The default audit at 2.1 billion rows through a DuckDB view, in flat memory (slow)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

ROWS = 2_100_000_000


@pytest.mark.slow
def test_default_audit_of_2_1_billion_rows(tmp_path):
    import duckdb

    db = tmp_path / "big.duckdb"
    con = duckdb.connect(str(db))
    con.execute(f"""CREATE VIEW preds AS SELECT (i % 4)::VARCHAR AS g,
                    (hash(i) % 10 < 3)::INTEGER AS y, (hash(i + 7) % 10 < 4)::INTEGER AS p
                    FROM range({ROWS}) t(i)""")
    con.close()
    # a fresh process, so that its peak memory is the audit's own
    code = textwrap.dedent(f"""
        import json, resource, fairbound
        res = fairbound.audit({str(db) + '::preds'!r}, group="g", label="y", prediction="p",
                              comparison="vs-rest")
        print(json.dumps({{"rows": res.n_rows, "n": [max(c.b.n for c in res.comparisons)],
                          "verdicts": sorted({{c.verdict for c in res.comparisons}}),
                          "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=1800, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["rows"] == ROWS
    assert got["n"][0] > 10**9  # "the rest" is past the old method's 1e9 limit
    assert got["rss_mib"] < 1500, got
