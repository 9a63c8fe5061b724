"""``fairbound monitor``: watch a fairness gap as annotated rows arrive.

The confidence sequence is :mod:`fairbound.stats.monitor`; this module reads the CSV stream
(heavy imports happen inside the command).
"""

from __future__ import annotations

import io
import json
import math
import sys
from pathlib import Path
from typing import Annotated

import typer

from fairbound.cli._common import split_list
from fairbound.errors import FairboundError


class _CsvRows:
    """Rows (dicts) of a CSV text stream, ``batch_size`` at a time, skipping malformed ones.

    A line is a row only once its newline has arrived: with ``follow`` an unfinished last
    line waits for the rest (and is never counted, even at ``--timeout``).  A row whose
    quotes do not close on its line or whose number of fields differs from the header's is
    skipped and counted in :attr:`malformed` (the first one is kept in
    :attr:`first_malformed` for the report).
    """

    def __init__(self, fh, *, batch_size: int, follow: bool, poll: float,
                 timeout: float | None) -> None:
        self.fh, self.batch_size, self.follow = fh, batch_size, follow
        self.poll, self.timeout = poll, timeout
        self.header: list[str] = []
        self.line_no = 0
        self.malformed = 0
        self.first_malformed = ""
        self.incomplete = ""  # an unfinished last line left unread

    @staticmethod
    def _fields(line: str) -> list[str] | None:
        import csv

        try:
            return next(csv.reader([line.rstrip("\r\n")], strict=True))
        except (csv.Error, StopIteration):
            return None

    def _timed_out(self, since: float) -> bool:
        import time

        return self.timeout is not None and time.monotonic() - since > self.timeout

    def read_header(self) -> None:
        """Read the header line (with ``follow``, wait for it until ``timeout``)."""
        import time

        since = time.monotonic()
        text = ""
        while True:
            text += self.fh.readline()
            if text.endswith("\n") or (text and not self.follow):
                break
            if not self.follow or self._timed_out(since):
                raise FairboundError("source is empty: expected a CSV header line",
                                     param="source")
            time.sleep(self.poll)
        self.line_no = 1
        fields = self._fields(text)
        if not fields or not any(f.strip() for f in fields):
            raise FairboundError(f"source: the first line is not a CSV header; got "
                                 f"{text.strip()[:80]!r}", param="source")
        self.header = fields

    def require(self, columns: list[str]) -> None:
        """One-line error for a column the header lacks."""
        missing = [c for c in columns if c not in self.header]
        if missing:
            raise FairboundError(f"column {missing[0]!r} not found; columns are {self.header}",
                                 param="column")

    def _row(self, line: str) -> dict | None:
        self.line_no += 1
        if not line.strip():
            return None
        fields = self._fields(line)
        if fields is None or len(fields) != len(self.header):
            self.malformed += 1
            if not self.first_malformed:
                why = ("unterminated quote" if fields is None else
                       f"{len(fields)} fields, header has {len(self.header)}")
                self.first_malformed = f"line {self.line_no} ({why}): {line.strip()[:60]!r}"
            return None
        return dict(zip(self.header, fields, strict=True))

    def batches(self):
        """Yield lists of rows; stop at the end (or, with ``follow``, at ``timeout``)."""
        import time

        if not self.header:
            self.read_header()
        pending: list[dict] = []
        partial = ""
        idle_since = time.monotonic()
        while True:
            line = self.fh.readline()
            if line:
                line, partial = partial + line, ""
                if not line.endswith("\n") and self.follow:
                    partial = line  # the rest of a line being written
                    continue
                row = self._row(line)
                idle_since = time.monotonic()
                if row is not None:
                    pending.append(row)
                    if len(pending) >= self.batch_size:
                        yield pending
                        pending = []
                continue
            if pending:
                yield pending
                pending = []
            if not self.follow or self._timed_out(idle_since):
                self.incomplete = partial.strip()
                return
            time.sleep(self.poll)

    def notes(self) -> list[str]:
        """What was skipped, as lines for the report."""
        out = []
        if self.malformed:
            out.append(f"skipped {self.malformed:,} malformed row"
                       f"{'s' if self.malformed != 1 else ''} (first: {self.first_malformed})")
        if self.incomplete:
            out.append(f"ignored an unfinished last line (no newline yet): "
                       f"{self.incomplete[:60]!r}")
        return out


class _StreamLabels:
    """Label/prediction interpretation of a stream: the audit's, on every value so far.

    Each column is typed as a whole, as DuckDB types a CSV column for ``fairbound audit``
    (:func:`~fairbound.stats.monitor.csv_column_kind`): a ``yes`` among 0/1 labels makes
    the column text, and the same label/prediction checks then refuse it as the audit does.
    """

    def __init__(self, label: str, prediction: str, pos_label: str | None, metric: str,
                 favourable: str) -> None:
        self.label, self.prediction, self.pos_label = label, prediction, pos_label
        self.metric, self.favourable = metric, favourable
        self.cells: dict[str, set] = {label: set(), prediction: set()}  # every cell, by column
        self.pairs: set = set()  # distinct (label, prediction) cells of rows holding both
        self.labels: set = set()
        self.predictions: set = set()
        self.setup = None

    def costs(self, rows: list[dict]):
        import numpy as np

        from fairbound.labels import is_missing, label_setup
        from fairbound.stats.monitor import csv_cell_value, csv_column_kind, row_costs

        ty = [r[self.label] for r in rows]
        tp = [r[self.prediction] for r in rows]
        self.cells[self.label].update(ty)
        self.cells[self.prediction].update(tp)
        lk = csv_column_kind(self.cells[self.label])
        pk = csv_column_kind(self.cells[self.prediction])
        y = [csv_cell_value(t, lk) for t in ty]
        p = [csv_cell_value(t, pk) for t in tp]
        self.pairs.update((a, b) for a, b, va, vb in zip(ty, tp, y, p, strict=True)
                          if not (is_missing(va) or is_missing(vb)))
        # every value so far, read with the columns' types so far (a type may change)
        self.labels = {csv_cell_value(a, lk) for a, _ in self.pairs}
        self.predictions = {csv_cell_value(b, pk) for _, b in self.pairs}
        if not self.labels:
            return np.full(len(rows), np.nan)
        setup = label_setup(self.labels, self.predictions, self.pos_label, label=self.label,
                            prediction=self.prediction, require_present=False)
        if self.setup is not None and (setup.positive, setup.prediction_is_binary) != (
                self.setup.positive, self.setup.prediction_is_binary):
            raise FairboundError(
                f"label: the values of {self.label!r} and {self.prediction!r} so far "
                f"({sorted(map(str, self.labels | self.predictions))[:8]}) no longer fit the "
                f"{self.setup.task} classes {list(self.setup.classes)} of the first rows",
                param="label")
        self.setup = setup
        return row_costs(y, p, metric=self.metric, favourable=self.favourable, setup=setup)

    def check_positive_seen(self) -> None:
        """A positive class that no row has held is an error, never a gap of 0."""
        from fairbound.labels import resolve_pos_label

        if self.pos_label is None or self.setup is None:
            return
        resolve_pos_label(self.pos_label, self.labels | self.predictions,
                          columns=f"label {self.label!r} or prediction {self.prediction!r}")


def monitor_command(
    source: Annotated[str, typer.Argument(help="CSV file (may be growing), or - for stdin.")],
    group: Annotated[str, typer.Option("--group", "-g", help="Group column.")],
    cost: Annotated[str | None, typer.Option(help="Cost column (values in [0, C]).")] = None,
    label: Annotated[str | None, typer.Option("--label", "-y", help="True-label column.")] =
    None,
    prediction: Annotated[str | None, typer.Option(
        "--prediction", "--pred", "-p", help="Prediction column (same kind of values as the "
        "label: 0/1 or True/False, or the label's own values).")] = None,
    metric: Annotated[str, typer.Option(
        "--metric", "-m",
        help="Single-component metric for --label/--prediction (e.g. equal_opportunity, "
             "false_positive_rate, demographic_parity, accuracy_parity).")] = "accuracy_parity",
    pos_label: Annotated[str | None, typer.Option(
        "--pos-label", help="Positive class as the column holds it (1, true, yes, High); "
        "default 1/True for 0/1 and True/False columns.")] = None,
    favourable: Annotated[str, typer.Option(
        help="positive (a positive prediction is favourable: hired, approved) | negative "
             "(it harms: flagged, high risk).")] = "positive",
    groups: Annotated[str | None, typer.Option(
        help="The two groups A,B to compare (default: the two groups of the first batch, "
             "sorted).")] = None,
    batch_size: Annotated[int, typer.Option(help="Rows per batch.")] = 100,
    confidence_level: Annotated[float, typer.Option(
        "--confidence-level", "--confidence",
        help="Probability that every printed interval covers the gap.")] = 0.95,
    method: Annotated[str, typer.Option(help="betting (online pairs) | betting-union")] =
    "betting",
    horizon: Annotated[int | None, typer.Option(
        help="Tune the bets for this many pairs (default: open-ended).")] = None,
    tolerance: Annotated[float | None, typer.Option(
        help="Also stop once the interval lies within [-tolerance, tolerance].")] = None,
    cost_max: Annotated[float, typer.Option("--cost-max", help="Largest cost C.")] = 1.0,
    follow: Annotated[bool, typer.Option(
        help="Keep reading a growing file until a verdict or --timeout.")] = False,
    poll: Annotated[float, typer.Option(help="Seconds between polls with --follow.")] = 1.0,
    timeout: Annotated[float | None, typer.Option(
        help="With --follow, stop after this many seconds without new rows.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | json")] = "table",
) -> None:
    """Watch a fairness gap as annotated rows arrive; stop at the first verdict.

    After each batch prints the anytime-valid interval (betting confidence sequence): every
    printed interval holds at once, so stopping at the first verdict is valid.  A fixed-n
    interval such as Wald recomputed after every batch is not: on 2,500-pair streams it
    misses the truth at some look far more often than 5% (see fairbound simulate --peeking).
    Labels and predictions are read as fairbound audit reads them.
    """
    import numpy as np

    from fairbound._io import escape_controls
    from fairbound._validate import check_choice, check_float
    from fairbound.metrics import check_favourable, get_metric
    from fairbound.stats.monitor import Monitor, _validate_monitor

    fmt = check_choice(fmt, ("table", "json"), "format", fold=True)
    if (cost is None) == (label is None and prediction is None):
        raise FairboundError("give either --cost or both --label and --prediction; got "
                             f"cost={cost!r}, label={label!r}, prediction={prediction!r}",
                             param="cost")
    if cost is None and (label is None or prediction is None):
        raise FairboundError(f"--label and --prediction go together; got label={label!r}, "
                             f"prediction={prediction!r}", param="label")
    if batch_size < 1:
        raise FairboundError(f"batch_size must be >= 1; got {batch_size!r}", param="batch_size")
    if not (poll > 0 and math.isfinite(poll)):  # NaN too
        raise FairboundError(f"poll must be a positive number of seconds; got {poll!r}",
                             param="poll")
    if timeout is not None:  # NaN would never end a --follow, a negative one at once
        timeout = check_float(timeout, "--timeout", low=0, low_open=True,
                              note="seconds without new rows")
    pair = split_list(groups, "groups") if groups is not None else None
    if pair is not None and len(pair) != 2:
        raise FairboundError(f"groups must name exactly two groups A,B; got {groups!r}",
                             param="groups")
    # every choice and number is checked before any row is read
    _validate_monitor("A", "B", cost_max, confidence_level, method, horizon, tolerance)
    favourable = check_favourable(favourable)
    if cost is None:
        m = get_metric(metric)
        if len(m.components) != 1:
            raise FairboundError(
                f"metric must have one component to be monitored; got {m.name!r} with "
                f"{len(m.components)} (monitor its components one at a time)", param="metric")
        if "label" not in m.needs:
            raise FairboundError(f"metric: {m.name!r} needs --cost, not --label/--prediction",
                                 param="metric")
    if source == "-":
        # read as strict UTF-8 whatever the locale (a file is), not with surrogate escapes
        # (a leading byte-order mark is dropped, as audit's CSV reader drops it)
        fh = (io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
              if hasattr(sys.stdin, "buffer") else sys.stdin)
        shown = "standard input"
    else:
        path, shown = Path(source), repr(source)
        if path.is_dir():
            raise FairboundError(f"source: {source!r} is a folder; give a CSV file (or - to "
                                 "read standard input)", param="source")
        # a named pipe (or a terminal) is read as a stream, like standard input
        if not (path.is_file() or path.is_fifo() or path.is_char_device()):
            if path.exists():
                raise FairboundError(f"source: {source!r} is not a regular file or a named "
                                     "pipe; give a CSV file (or - to read standard input)",
                                     param="source")
            raise FairboundError(f"source file not found: {source!r}", param="source")
        kind = _NOT_CSV.get(path.suffix.lower())
        if kind is not None:
            raise FairboundError(f"source: monitor reads CSV text; {source!r} is a {kind} "
                                 "file (write its rows out as CSV, or pipe them as CSV to "
                                 "'fairbound monitor -')", param="source")
        fh = path.open(newline="", encoding="utf-8-sig")
    reader = _CsvRows(fh, batch_size=batch_size, follow=follow, poll=poll, timeout=timeout)
    stream = None if cost is not None else _StreamLabels(label, prediction, pos_label, metric,
                                                         favourable)
    mon = None
    groups_seen: set = set()  # every group read: a --groups value may never occur
    pct = f"{confidence_level:.0%}"
    try:
        reader.read_header()
        reader.require([group] + ([cost] if cost is not None else [label, prediction]))
        for rows in reader.batches():
            g = np.array([r[group] for r in rows], dtype=object)
            groups_seen.update(g.tolist())
            if stream is None:
                c = _cost_column(rows, cost)
            else:
                c = stream.costs(rows)
            if mon is None:
                if pair is None:
                    seen = sorted(set(g.tolist()))
                    if len(seen) != 2:
                        raise FairboundError(
                            f"groups must be given with --groups A,B when the first batch "
                            f"does not hold exactly two groups; got {seen[:10]}",
                            param="groups")
                    pair = tuple(seen)
                mon = Monitor(group_a=pair[0], group_b=pair[1], cost_max=cost_max,
                              confidence_level=confidence_level, method=method,
                              horizon=horizon, tolerance=tolerance)
            step = mon.update(g, c)
            if step.stop and stream is not None:
                stream.check_positive_seen()
            if fmt == "table":
                typer.echo(f"batch {step.batch}: n_A={step.n_a} n_B={step.n_b}"
                           + (f" pairs={step.n_pairs}" if method == "betting" else "")
                           + f"  gap={step.estimate:+.4f}  {pct} CS [{step.low:+.4f}, "
                           f"{step.high:+.4f}]  {step.verdict}")
            if step.stop:
                break
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start:exc.start + 1].hex() if exc.object else ""
        raise FairboundError(f"source: {shown} is not UTF-8 text (monitor reads CSV text): "
                             f"cannot decode byte 0x{bad}: {exc.reason}", param="source") from None
    finally:
        if source != "-":
            fh.close()
        elif fh is not sys.stdin:
            fh.detach()  # leave sys.stdin itself open
    if mon is None:
        extra = f" ({'; '.join(reader.notes())})" if reader.notes() else ""
        raise FairboundError(f"source has a header but no rows{extra}", param="source")
    # at the end of the input (or --timeout), a named group that no row held is an error,
    # never a gap of NaN
    absent = [x for x in (mon.group_a, mon.group_b) if x not in groups_seen]
    if absent:
        which = " and ".join(repr(x) for x in absent)
        raise FairboundError(
            f"groups: {'group' if len(absent) == 1 else 'groups'} {which} never occurred in "
            f"column {group!r}; groups are {sorted(map(str, groups_seen))[:10]}",
            param="groups")
    if stream is not None:
        stream.check_positive_seen()
    res = mon.result()
    if fmt == "json":
        out = res.to_dict()
        out["malformed_rows"] = reader.malformed
        out["unfinished_last_line"] = bool(reader.incomplete)
        typer.echo(json.dumps(out, indent=2))
        for note in reader.notes():
            typer.echo(f"note: {escape_controls(note)}", err=True)
        return
    final = res.final
    a, b = res.group_a, res.group_b
    if final.stop:
        typer.echo(f"verdict after {final.n_a + final.n_b} rows of {a!r} and {b!r}: "
                   f"{final.verdict} (A = {a!r}).")
    else:
        typer.echo(f"no verdict yet after {final.n_a + final.n_b} rows of {a!r} and {b!r}; "
                   "keep annotating and run again on the grown file.")
    for note in reader.notes():
        typer.echo(f"note: {escape_controls(note)}")
    typer.echo("These intervals are confidence sequences: all hold at once, so looking after "
               "every batch is allowed. Recomputing a fixed-n interval (e.g. Wald) after each "
               "batch is not.")


# data files that are not CSV text, by suffix (monitor reads CSV text only)
_NOT_CSV = {".parquet": "Parquet", ".pq": "Parquet", ".jsonl": "JSON-lines",
            ".ndjson": "JSON-lines", ".json": "JSON", ".duckdb": "DuckDB", ".db": "database",
            ".xlsx": "Excel", ".xls": "Excel", ".feather": "Arrow", ".arrow": "Arrow",
            ".gz": "gzip", ".zip": "zip"}


def _cost_column(rows: list[dict], cost: str):
    import numpy as np

    try:
        return np.array([float(r[cost]) if r[cost].strip() != "" else np.nan for r in rows])
    except ValueError as exc:
        raise FairboundError(f"column {cost!r} must hold numbers; {exc}", param="cost") from None


def register(app: typer.Typer) -> None:
    """Add ``monitor`` to the CLI."""
    app.command("monitor")(monitor_command)
