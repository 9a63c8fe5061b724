"""``fairbound engines``: which engines can run here, and what a source holds."""

from __future__ import annotations

from typing import Annotated

import typer


def engines_command(
    data: Annotated[str | None, typer.Argument(
        help="Optional file, glob or 'db.duckdb::table' to describe (columns, types, rows).")
    ] = None,
) -> None:
    """Show the engines available here, or the columns and row count of a source."""
    if data is None:
        from fairbound.engines.status import engine_status

        for row in engine_status():
            mark = "yes" if row["available"] else "no "
            typer.echo(f"{row['name']:<8} {mark} {row['version']:<10} {row['note']}")
        return
    import duckdb

    from fairbound.engines.base import AggregateSpec
    from fairbound.engines.duckdb_engine import open_source

    con = duckdb.connect()
    try:
        # an empty group list resolves nothing: only the source is opened and described
        source, _ = open_source(con, data, AggregateSpec(group=()))
        n = con.execute("SELECT count(*) FROM src").fetchone()[0]
    finally:
        con.close()
    from fairbound._io import escape_controls

    typer.echo(escape_controls(f"{source.description}: {n:,} rows, engine {source.engine}"))
    for name, typ in source.columns.items():
        typer.echo(escape_controls(f"  {name}: {typ}"))


def register(app: typer.Typer) -> None:
    """Add ``engines`` to the CLI."""
    app.command("engines")(engines_command)
