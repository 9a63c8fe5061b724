"""``fairbound simulate`` and ``fairbound monitor``.

Heavy imports (numpy, pandas, the simulation code) happen inside the commands so that
``fairbound --help`` stays fast.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from fairbound.errors import FairboundError


def _split(text: str | None, param: str, kind=str) -> tuple | None:
    if text is None:
        return None
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise FairboundError(f"{param} must be a comma-separated list; got {text!r}",
                             param=param)
    out = []
    for p in parts:
        try:
            out.append(kind(p))
        except ValueError:
            raise FairboundError(f"{param} must be a comma-separated list of "
                                 f"{kind.__name__} values; got {p!r}", param=param) from None
    return tuple(out)


def check_output_file(option: str, path, suffixes: tuple[str, ...] | None = None,
                      hint: str = "") -> Path:
    """Check an output file before any work is done; return it as a ``Path``.

    A folder, a suffix outside ``suffixes`` (``hint`` says which to use) and a place that
    cannot hold a file (its nearest existing parent is a file, or is not writable) are
    one-line errors naming ``option``.  Nothing is created: the write itself, later, goes
    through :func:`fairbound._io.write_all_atomic`, which reports what this check cannot
    foresee (a full disk) the same way.

    Examples
    --------
    >>> check_output_file("--output", "x.xyz", (".txt",), "use .txt")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: --output: unsupported file type '.xyz' (use .txt)
    """
    import os

    p = Path(path)
    param = option.lstrip("-")
    if p.is_dir():
        raise FairboundError(f"{option}: {str(p)!r} is a folder; give a file name", param=param)
    if suffixes is not None and p.suffix.lower() not in suffixes:
        raise FairboundError(f"{option}: unsupported file type {p.suffix!r} ({hint})",
                             param=param)
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.exists() and not parent.is_dir():
        raise FairboundError(f"{option}: cannot write {str(p)!r}: {str(parent)!r} is a file, "
                             "not a folder", param=param)
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
        raise FairboundError(f"{option}: cannot write {str(p)!r}: no permission to write in "
                             f"{str(parent)!r}", param=param)
    return p


def check_seed(seed) -> int:
    """``seed`` as a non-negative integer, or a one-line error."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise FairboundError(f"seed must be a non-negative integer; got {seed!r}", param="seed")
    return seed


# what ``simulate`` writes, by --markdown / --format: (description, option, suffixes)
_SIMULATE_OUTPUTS = {
    "markdown": ("a Markdown page", "--markdown", (".md", ".markdown")),
    "json": ("JSON", "--format json", (".json",)),
    "csv": ("CSV", "--format csv", (".csv",)),
    "table": ("text tables", "--format table", ()),
}


def _check_simulate_output(output: Path | None, kind: str) -> None:
    """The --output file fits what is written (plain .txt always does), checked first."""
    if output is None:
        return
    known = {"", ".txt"} | {s for _, _, sx in _SIMULATE_OUTPUTS.values() for s in sx}
    check_output_file("--output", output, tuple(sorted(known)),
                      "use .txt, or .json with --format json, .csv with --format csv, .md "
                      "with --markdown")
    what, how, suffixes = _SIMULATE_OUTPUTS[kind]
    if output.suffix.lower() not in {"", ".txt", *suffixes}:
        name = " or ".join([*suffixes, ".txt"])
        raise FairboundError(f"--output: {str(output)!r} would hold {what} ({how}); name it "
                             f"{name}", param="output")


def simulate_command(
    methods: Annotated[str | None, typer.Option(
        help="Comma-separated interval methods (default: all registered; resampling "
             "methods then run on Beta costs at the smallest --n only).")] = None,
    scenarios: Annotated[str, typer.Option(
        help="Comma-separated scenarios: binary, rare, beta, null-binary, null-rare, "
             "null-beta.")] = "binary,rare,beta,null-binary,null-beta",
    n: Annotated[str, typer.Option("--n", help="Comma-separated total sizes (A + B).")] =
    "100,1000,10000",
    share: Annotated[str, typer.Option(help="Comma-separated shares of group A.")] = "0.1,0.5",
    reps: Annotated[int, typer.Option(help="Data sets per cell.")] = 400,
    confidence_level: Annotated[float, typer.Option(
        "--confidence-level", "--confidence", help="Nominal level.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Seed of the whole run.")] = 0,
    power: Annotated[bool, typer.Option(
        help="Also solve required n for 80% power (0/1 costs 0.15 vs 0.10 and Beta costs) "
             "per method.")] = False,
    peeking: Annotated[bool, typer.Option(
        help="Also measure how often a recomputed Wald interval ever misses (2,500-pair "
             "null streams) next to the betting confidence sequence.")] = False,
    markdown: Annotated[bool, typer.Option(
        help="Write the methods comparison page (implies --power and --peeking).")] = False,
    output: Annotated[Path | None, typer.Option(help="Write to this file instead.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | json | csv")] = "table",
) -> None:
    """Measure coverage, width and power of interval methods by seeded simulation."""
    from fairbound._render import check_format
    from fairbound.stats.simulate import methods_page, peeking_error, power_table, simulate

    fmt = check_format(fmt)
    check_seed(seed)
    _check_simulate_output(output, "markdown" if markdown else fmt)
    kw = dict(share=_split(share, "share", float), n_reps=reps,
              confidence_level=confidence_level, seed=seed)
    scen, sizes = _split(scenarios, "scenarios"), _split(n, "n", int)
    if methods is None:
        sim = _simulate_default(scen, sizes, kw)
    else:
        sim = simulate(_split(methods, "methods"), scenarios=scen, n_total=sizes, **kw)
    # resampling methods bootstrap every distinct fractional cost: too slow to plan on Beta
    slow = [r["method"] for r in sim.rows if r["guarantee"] == "resampling"]
    pw = power_table(sim, seed=seed, skip_beta=slow) if (power or markdown) else None
    pk = peeking_error(confidence_level=confidence_level, seed=seed) \
        if (peeking or markdown) else None
    if markdown:
        cmd = (f"fairbound simulate --markdown{f' --methods {methods}' if methods else ''} "
               f"--scenarios {scenarios} --n {n} --share {share} --reps {reps} "
               f"--confidence-level {confidence_level:g} --seed {seed}")
        text = methods_page(sim, pw, pk, command=cmd)
    elif fmt == "json":
        out = sim.to_dict()
        if pw is not None:
            out["power"] = pw.to_dict("records")
        if pk is not None:
            out["peeking"] = pk.to_dict()
        text = json.dumps(out, indent=2, default=float) + "\n"
    elif fmt == "csv":
        text = sim.to_frame().to_csv(index=False)
    else:
        text = _tables(sim, pw, pk)
    if output is not None:
        from fairbound._io import write_all_atomic

        write_all_atomic([("--output", output, text.encode())])
        typer.echo(f"written to {output}")
    else:
        typer.echo(text, nl=False)


def _tables(sim, pw, pk) -> str:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_rows", 10_000,
                           "display.max_columns", 50):
        cols = ["scenario", "n_total", "share", "method", "guarantee", "reps", "coverage",
                "p_value", "mean_width", "excludes_zero"]
        parts = [sim.to_frame()[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"),
                 "", sim.summary().to_string(index=False, float_format=lambda v: f"{v:.4f}")]
        if pw is not None:
            parts += ["", pw.to_string(index=False, float_format=lambda v: f"{v:.3f}")]
        if pk is not None:
            parts += ["", pk.to_frame().to_string(index=False)]
    return "\n".join(parts) + "\n"


def _simulate_default(scen, sizes, kw):
    """All methods; resampling methods on Beta costs at the smallest size only.

    Their bootstrap over distinct fractional cost values takes seconds per interval at
    n = 10,000, which would make a default run last hours; name them in ``--methods`` to
    run them everywhere.
    """
    from fairbound.stats.base import INTERVAL_METHODS
    from fairbound.stats.simulate import SCENARIOS, SimulationResult, simulate

    if any(sc not in SCENARIOS for sc in scen):
        return simulate(None, scenarios=scen, n_total=sizes, **kw)  # reports the bad name
    everything = sorted(INTERVAL_METHODS)
    slow = [m for m in everything if INTERVAL_METHODS[m].guarantee == "resampling"]
    beta = tuple(sc for sc in scen if SCENARIOS[sc].kind == "beta")
    other = tuple(sc for sc in scen if sc not in beta)
    runs = []
    if other:
        runs.append(simulate(everything, scenarios=other, n_total=sizes, **kw))
    if beta:
        runs.append(simulate([m for m in everything if m not in slow], scenarios=beta,
                             n_total=sizes, **kw))
        if slow:
            runs.append(simulate(slow, scenarios=beta, n_total=min(sizes), **kw))
    rows = tuple(r for run in runs for r in run.rows)
    return SimulationResult(rows, runs[0].confidence_level, runs[0].n_reps, runs[0].seed)


# ----------------------------------------------------------------------------- monitor
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
    """Label/prediction interpretation of a stream: the audit's, on every value so far."""

    def __init__(self, label: str, prediction: str, pos_label: str | None, metric: str,
                 favourable: str) -> None:
        self.label, self.prediction, self.pos_label = label, prediction, pos_label
        self.metric, self.favourable = metric, favourable
        self.labels: set = set()
        self.predictions: set = set()
        self.setup = None

    def costs(self, rows: list[dict]):
        import numpy as np

        from fairbound.labels import is_missing, label_setup, parse_text_value
        from fairbound.stats.monitor import row_costs

        y = [parse_text_value(r[self.label]) for r in rows]
        p = [parse_text_value(r[self.prediction]) for r in rows]
        self.labels.update(a for a, b in zip(y, p, strict=True)
                           if not (is_missing(a) or is_missing(b)))
        self.predictions.update(b for a, b in zip(y, p, strict=True)
                                if not (is_missing(a) or is_missing(b)))
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

    from fairbound.metrics import check_favourable, get_metric
    from fairbound.stats.monitor import Monitor, _validate_monitor

    fmt = str(fmt).lower()
    if fmt not in ("table", "json"):
        raise FairboundError(f"format must be one of table, json; got {fmt!r}", param="format")
    if (cost is None) == (label is None and prediction is None):
        raise FairboundError("give either --cost or both --label and --prediction; got "
                             f"cost={cost!r}, label={label!r}, prediction={prediction!r}",
                             param="cost")
    if cost is None and (label is None or prediction is None):
        raise FairboundError(f"--label and --prediction go together; got label={label!r}, "
                             f"prediction={prediction!r}", param="label")
    if batch_size < 1:
        raise FairboundError(f"batch_size must be >= 1; got {batch_size!r}", param="batch_size")
    if poll <= 0:
        raise FairboundError(f"poll must be a positive number of seconds; got {poll!r}",
                             param="poll")
    pair = _split(groups, "groups") if groups is not None else None
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
        fh = (io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
              if hasattr(sys.stdin, "buffer") else sys.stdin)
        shown = "standard input"
    else:
        path, shown = Path(source), repr(source)
        if path.is_dir():
            raise FairboundError(f"source: {source!r} is a folder; give a CSV file (or - to "
                                 "read standard input)", param="source")
        if not path.is_file():
            raise FairboundError(f"source file not found: {source!r}", param="source")
        kind = _NOT_CSV.get(path.suffix.lower())
        if kind is not None:
            raise FairboundError(f"source: monitor reads CSV text; {source!r} is a {kind} "
                                 "file (write its rows out as CSV, or pipe them as CSV to "
                                 "'fairbound monitor -')", param="source")
        fh = path.open(newline="", encoding="utf-8")
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
            typer.echo(f"note: {note}", err=True)
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
        typer.echo(f"note: {note}")
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
    """Add ``simulate`` and ``monitor`` to the CLI."""
    app.command("simulate")(simulate_command)
    app.command("monitor")(monitor_command)


# ----------------------------------------------------------------------------- plan
def plan_with_method(
    *,
    method: str,
    n: float | None,
    gap: float | None,
    power: float | None,
    rate_b: float,
    share: float,
    cost: str,
    confidence_level: float,
    n_sims: int,
    seed: int,
    fmt: str,
    tolerance: float | None = None,
) -> None:
    """``fairbound plan --method M``: solve power, n or gap for one interval method.

    Called by the ``plan`` command when ``--method`` or ``--power`` is given; the BBU
    planner stays the default otherwise.
    """
    from fairbound.planning.power import solve_power

    if fmt not in ("table", "json"):
        raise FairboundError(f"format must be one of table, json with --method; got {fmt!r}",
                             param="format")
    check_seed(seed)
    if tolerance is not None and gap is None:
        gap = 0.0  # parity plans: the true gap defaults to 0
    if n is None and gap is None and power is None:
        gap, power = 0.05, 0.8
    elif power is None and (n is None or gap is None):
        power = 0.8
    n_total = None
    if n is not None:
        if float(n) != int(n):
            raise FairboundError(f"n must be a whole number of examples; got {n!r}", param="n")
        n_total = int(n)
    r = solve_power(method, n_total=n_total, gap=gap, power=power, rate_b=rate_b, share=share,
                    cost=cost, confidence_level=confidence_level, n_sims=n_sims, seed=seed,
                    tolerance=tolerance)
    if fmt == "json":
        typer.echo(json.dumps(r.to_dict(), indent=2, default=float))
        return
    basis = (f"simulation ({r.n_sims} data sets per evaluation, seed {r.seed}; simulated "
             f"power at the solution {r.achieved_power:.3f} +- {r.power_se:.3f})"
             if r.basis == "simulation" else "analytic")
    setting = (f"{r.cost} costs {r.rate_a:.3f} vs {r.rate_b:.3f}, group A share {r.share:g}, "
               f"{r.confidence_level:.0%} intervals" if r.gap == r.gap and r.gap != float("inf")
               else f"{r.cost} costs, base rate {r.rate_b:.3f}, group A share {r.share:g}")
    if r.tolerance is not None:
        what = (f"n = {r.n_total:,.0f} annotated examples for {r.power:.0%} power"
                if r.solved_for == "n_total" else f"power {r.power:.3f} at n = {r.n_total:,}")
        typer.echo(f"{r.method} ({r.guarantee}): {what} to show parity (the interval within "
                   f"+/-{r.tolerance:g}) when the true gap is {r.gap:g}.")
    elif r.solved_for == "n_total":
        typer.echo(f"{r.method} ({r.guarantee}): n = {r.n_total:,.0f} annotated examples "
                   f"for {r.power:.0%} power at a gap of {r.gap:g}; {r.reference_method} "
                   f"needs {r.reference_n_total:,.0f} (ratio {r.ratio_to_reference:.3f}).")
    elif r.solved_for == "gap":
        typer.echo(f"{r.method} ({r.guarantee}): with n = {r.n_total:,} the minimum "
                   f"detectable gap at {r.power:.0%} power is {r.gap:.4f}.")
    else:
        typer.echo(f"{r.method} ({r.guarantee}): power {r.power:.3f} at n = {r.n_total:,} "
                   f"and a gap of {r.gap:g}; {r.reference_method} needs "
                   f"{r.reference_n_total:,.0f} for that power (ratio "
                   f"{r.ratio_to_reference:.3f}).")
    typer.echo(f"{setting}; basis: {basis}")
