"""What several benchmark scripts share: a Parquet file written once, a bare scan, peak RSS.

The scripts run as ``python benchmarks/<name>.py`` (and start themselves again as child
processes the same way), so this folder is on ``sys.path`` and ``import _common`` works.
"""

from __future__ import annotations

from pathlib import Path


def write_parquet_once(path: Path, select_sql: str) -> Path:
    """Write ``COPY (select_sql)`` to ``path`` unless it exists (temporary file, then rename).

    The rows are functions of a row number through DuckDB's ``hash``, so the file is the
    same on every run and is written only once.
    """
    import duckdb

    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    con = duckdb.connect()
    try:
        con.execute(f"COPY ({select_sql}) TO '{tmp}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)")
    finally:
        con.close()
    tmp.rename(path)
    return path


def fetch_all(sql: str) -> list:
    """The rows of ``sql`` on a fresh DuckDB connection (the bare scan an audit is timed by)."""
    import duckdb

    con = duckdb.connect()
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def run_child(script: str, args: list[str], env: dict[str, str] | None = None) -> dict:
    """Run ``python script *args`` in a fresh process (environment ``env``, default this
    one's); its last line of output, as JSON."""
    import json
    import subprocess
    import sys

    res = subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                         check=True, env=env)
    return json.loads(res.stdout.strip().splitlines()[-1])


def peak_rss_mib() -> float:
    """Peak resident memory of this process in MiB.

    Linux ``VmHWM`` (reset by ``exec``, unlike ``ru_maxrss``, which a child started with
    fork + exec inherits from its parent); ``ru_maxrss`` elsewhere.
    """
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
