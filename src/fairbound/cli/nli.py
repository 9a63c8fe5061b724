"""``fairbound nli``: expand BBNLI templates, audit NLI models, extend the benchmark.

Heavy imports (pandas, transformers) happen inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from fairbound.cli import _common as common
from fairbound.cli._common import echo_csv
from fairbound.errors import FairboundError


def _print_frame(frame, title: str | None = None, digits: int = 3) -> None:
    from rich.table import Table

    from fairbound._render import console, fmt_int, fmt_num, plain

    t = Table(*[plain(c) for c in frame.columns], title=title, header_style="bold")
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, bool) or v is None:
                cells.append(str(v))
            elif isinstance(v, int) or (hasattr(v, "dtype") and v.dtype.kind in "iu"):
                cells.append(fmt_int(v))
            elif isinstance(v, float):
                cells.append(fmt_num(v, digits))
            else:
                cells.append(plain(v))
        t.add_row(*cells)
    console().print(t)


_TABLE_SUFFIXES = (".csv", ".parquet", ".jsonl")


def _check_table_output(path: Path | None, inputs=(), option: str = "--out") -> None:
    """Check a table output (``.csv``, ``.parquet``, ``.jsonl``) before any work."""
    from fairbound.cli._common import check_output_file

    if path is not None:
        check_output_file(option, path, _TABLE_SUFFIXES, "use .csv, .parquet or .jsonl",
                          inputs=inputs)


def _table_output(frame, path: Path, option: str = "--out") -> tuple[str, Path, bytes]:
    """``(option, path, bytes)`` of a table for :func:`fairbound._io.write_all_atomic`."""
    from fairbound._io import table_bytes

    return option, path, table_bytes(frame, path)


def _read_table(path, *, param: str):
    """:func:`fairbound.nli.models.read_table`, refusing a folder and a ragged CSV line.

    pandas fills a line with fewer fields than the header (a row cut off while the file was
    being written) with missing values; the check that ``fairbound audit`` and
    ``fairbound stability`` run first (:func:`find_ragged_line`) names that line instead.
    """
    from fairbound.engines.duckdb_engine import find_ragged_line
    from fairbound.nli.models import read_table

    p = Path(path)
    if p.is_dir():
        raise FairboundError(f"{param}: {str(path)!r} is a folder, not a file", param=param)
    separator = {".csv": ",", ".tsv": "\t", ".tab": "\t"}.get(p.suffix.lower())
    if separator is not None and p.is_file():
        problem = find_ragged_line(str(p), separator=separator, max_lines=None,
                                   shown=str(path), param=param)
        if problem is not None:
            raise FairboundError(problem, param=param)
    return read_table(p, param=param)


def _model_folders(predictions: list[str]) -> list[str]:
    """The ``--predictions`` that are model folders (the rest are files or columns)."""
    return [p for p in predictions if not p.startswith("column:") and Path(p).is_dir()]


def _check_model_options(ctx, predictions: list[str], names: list[str] | None,
                         device: str, batch_size: int) -> None:
    """Refuse options that would be silently ignored: surplus names, unused model settings."""
    if names and len(names) > len(predictions):
        raise FairboundError(
            f"name: {len(names)} names for {len(predictions)} prediction set"
            f"{'s' if len(predictions) != 1 else ''} ({', '.join(map(repr, names))}); give "
            "at most one --name per --predictions", param="name")
    if _model_folders(predictions):
        return
    for param, option, value in (("device", "--device", device),
                                 ("batch_size", "--batch-size", batch_size)):
        # typer vendors click: compare the parameter source by name, not by its enum class
        given = getattr(ctx.get_parameter_source(param), "name", None) == "COMMANDLINE"
        if given and not (param == "device" and value == "auto"):
            raise FairboundError(
                f"{param}: {option} {value!r} has no effect: no model runs (every "
                "--predictions is a file or column:NAME; give a local model folder to run "
                "one)", param=param)


_LABEL_MAP_HELP = (
    "Output -> label of a local NLI model folder whose config names its outputs only "
    "LABEL_0..2, e.g. \"LABEL_0=contradiction, LABEL_1=neutral, LABEL_2=entailment\" (take "
    "the order from the model card). MODEL:MAP applies to the model folder MODEL (its name or "
    "path) only; a map without MODEL: applies to every other model folder. Repeatable.")


def _split_label_map(text: str) -> tuple[str | None, str]:
    """``"MODEL:MAP"`` -> ``("MODEL", "MAP")``; a bare map (or JSON) -> ``(None, text)``."""
    raw = str(text).strip()
    head, sep, rest = raw.partition(":")
    if sep and not raw.startswith("{") and "=" not in head and head.strip():
        return head.strip(), rest.strip()
    return None, raw


def _label_maps(values: list[str] | None, folders: list[str]) -> dict[str, tuple[str, dict]]:
    """Parse the ``--label-map`` values; return model folder spec -> (value as given, map).

    ``folders`` are the model folders as given on the command line.  Every value is checked
    (text, target model) before any model is loaded; a problem is a one-line error that
    quotes the value.
    """
    from fairbound.nli.models import parse_label_map

    if not values:
        return {}
    if not folders:
        raise FairboundError(f"label_map: --label-map {values[0]!r} has no effect: no local "
                             "model folder is given (a label map applies to model folders "
                             "only)", param="label_map")
    default: tuple[str, dict] | None = None
    named: dict[str, tuple[str, dict]] = {}
    for value in values:
        target, text = _split_label_map(value)
        try:
            parsed = parse_label_map(text)
        except FairboundError as exc:
            why = str(exc).removeprefix("label_map: ")
            raise FairboundError(f"label_map: --label-map {value!r}: {why}",
                                 param="label_map") from None
        if target is None:
            if default is not None:
                raise FairboundError(
                    f"label_map: --label-map {value!r}: a map for every model is given twice "
                    f"(also {default[0]!r}); write MODEL:MAP to give a model its own map",
                    param="label_map")
            default = (value, parsed)
            continue
        hits = [f for f in folders if target in (f, Path(f).name, str(Path(f)))]
        if not hits:
            shown = ", ".join(Path(f).name for f in folders)
            raise FairboundError(f"label_map: --label-map {value!r}: no model folder "
                                 f"{target!r} (model folders: {shown})", param="label_map")
        for f in hits:
            if f in named:
                raise FairboundError(f"label_map: --label-map {value!r}: model {target!r} "
                                     "has a map already", param="label_map")
            named[f] = (value, parsed)
    out = dict(named)
    if default is not None:
        for f in folders:
            out.setdefault(f, default)
    return out


def _load_model(spec: str, maps: dict[str, tuple[str, dict]], *, device: str,
                batch_size: int = 32, progress: bool = True):
    """:func:`load_nli_model` with the ``--label-map`` of ``spec``; map errors quote it.

    Without ``progress``, transformers' own progress bars (loading weights) are switched off.
    """
    from fairbound.nli.models import load_nli_model

    if not progress and Path(spec).is_dir():
        try:
            from transformers.utils import logging as hf_logging
        except ImportError:  # load_nli_model names the missing extra
            pass
        else:
            hf_logging.disable_progress_bar()
    given, label_map = maps.get(spec, (None, None))
    try:
        return load_nli_model(str(spec), device=device, batch_size=batch_size,
                              label_map=label_map)
    except FairboundError as exc:
        if given is None or exc.param != "label_map":
            raise
        why = str(exc).removeprefix("label_map: ")
        raise FairboundError(f"label_map: --label-map {given!r} for model "
                             f"{Path(spec).name!r}: {why}", param="label_map") from None


def _need_texts(samples, param: str = "samples") -> None:
    """A model reads ``premise`` and ``hypothesis``: refuse a table without them."""
    missing = [c for c in ("premise", "hypothesis") if c not in samples.columns]
    if missing:
        raise FairboundError(f"{param}: a model needs the column(s) {', '.join(missing)}",
                             param=param)


def _predict_frame(model, samples, *, progress: bool, what: str = ""):
    """One label code per row of ``samples`` (``premise``, ``hypothesis``), in chunks."""
    import numpy as np

    from fairbound.nli.extend import _progress

    _need_texts(samples)
    prem = samples["premise"].astype(str).tolist()
    hyp = samples["hypothesis"].astype(str).tolist()
    step = 256
    parts = []
    with _progress(progress) as bar:
        task = bar.add_task(f"NLI {model.name}{what}", total=len(prem)) if bar else None
        for start in range(0, len(prem), step):
            parts.append(np.asarray(model.predict(prem[start:start + step],
                                                  hyp[start:start + step]), dtype=np.int8))
            if bar:
                bar.advance(task, len(parts[-1]))
    return np.concatenate(parts) if parts else np.array([], np.int8)


def expand_command(
    output: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the samples (.csv, .parquet, .jsonl).")] = None,
    templates: Annotated[list[Path] | None, typer.Option(
        "--templates", help="Template files or folders (default: the 16 shipped BBNLI).")] =
    None,
    domain: Annotated[list[str] | None, typer.Option(help="Keep only this domain.")] = None,
    subtopic: Annotated[list[str] | None, typer.Option(help="Keep only this subtopic.")] = None,
    versions: Annotated[str, typer.Option(help="pro,anti | pro | anti")] = "pro,anti",
    masked: Annotated[bool, typer.Option(
        help="Read masked hypothesis templates (BBNLI-next) instead.")] = False,
    fmt: common.FormatOpt = "table",
) -> None:
    """Expand BBNLI templates into NLI samples; print counts per domain, subtopic and type."""
    import warnings

    from fairbound._io import input_files, write_all_atomic
    from fairbound._render import check_format
    from fairbound.nli import expand_templates, load_masked_templates, load_templates
    from fairbound.nli.expand import UndefinedSlotWarning

    fmt = check_format(fmt)
    inputs = input_files(list(templates or []))
    _check_table_output(output, inputs)
    loader = load_masked_templates if masked else load_templates
    tpl = loader(templates or None, domains=domain or None, subtopics=subtopic or None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedSlotWarning)
        res = expand_templates(tpl, versions=[v.strip() for v in versions.split(",")])
    for w in res.warnings:
        typer.echo(f"warning: {w}", err=True)
    if output is not None:
        write_all_atomic([_table_output(res.samples, output)], inputs=inputs)
    counts = res.counts()
    if fmt == "json":
        typer.echo(json.dumps(res.to_dict(), indent=2))
    elif fmt == "csv":
        echo_csv(counts)
    else:
        _print_frame(counts, title=f"{len(res.samples):,} samples")
        if output is not None:
            typer.echo(f"wrote {output}")


def _predictions(spec: str, samples, *, device: str, batch_size: int, progress: bool,
                 maps: dict | None = None):
    """Predictions from a file, a column of the samples, or a local model folder."""
    import pandas as pd

    if spec.startswith("column:"):
        col = spec.split(":", 1)[1]
        if col not in samples.columns:
            raise FairboundError(f"predictions: the samples have no column {col!r}",
                                 param="predictions")
        return col, pd.Series(samples[col].to_numpy(), index=samples["sample_id"])
    path = Path(spec)
    if path.is_dir():
        _need_texts(samples)
        model = _load_model(spec, maps or {}, device=device, batch_size=batch_size,
                            progress=progress)
        return model.name, _predict_frame(model, samples, progress=progress)
    if path.is_file():
        table = _read_table(path, param="predictions")
        if "sample_id" not in table.columns or "prediction" not in table.columns:
            raise FairboundError(f"predictions: {str(path)!r} needs columns sample_id and "
                                 f"prediction, got {list(table.columns)[:6]}",
                                 param="predictions")
        return path.stem, table
    raise FairboundError(f"predictions: {spec!r} is not a file, a model folder or column:NAME",
                         param="predictions")


def audit_command(
    ctx: typer.Context,
    samples: Annotated[Path, typer.Option(help="Expanded samples (from `nli expand` or "
                                                "`nli extend`).")],
    predictions: Annotated[list[str], typer.Option(
        "--predictions", "-p",
        help="A file (sample_id, prediction), a local NLI model folder, or column:NAME of the "
             "samples; give two to compare models.")],
    name: Annotated[list[str] | None, typer.Option(help="Model names, in order.")] = None,
    confidence_level: Annotated[float, typer.Option(help="Interval level in (0, 1).")] = 0.95,
    n_resamples: Annotated[int, typer.Option(help="Cluster-bootstrap resamples.")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the resampling.")] = 0,
    by: Annotated[str, typer.Option(help="Breakdowns: domain,subtopic | domain | none")] =
    "domain,subtopic",
    output: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the measure table (.csv, .parquet, .jsonl).")] = None,
    device: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
    batch_size: Annotated[int, typer.Option(help="Batch size of model predictions.")] = 32,
    fmt: common.FormatOpt = "table",
    html: Annotated[Path | None, typer.Option(
        help="Also write a self-contained HTML report here.")] = None,
    label_map: Annotated[list[str] | None, typer.Option(
        "--label-map", help=_LABEL_MAP_HELP)] = None,
) -> None:
    """BBNLI bias measures with cluster-bootstrap intervals; paired comparison of two models."""
    from fairbound._io import input_files, write_all_atomic
    from fairbound._render import check_format
    from fairbound.nli import audit_nli, compare_nli

    fmt = check_format(fmt)
    inputs = input_files(samples, *[p for p in predictions if not p.startswith("column:")])
    _check_table_output(output, inputs)
    if html is not None:
        from fairbound.cli._common import check_output_file

        check_output_file("--html", html, (".html", ".htm"), "use .html", inputs=inputs)
    if not 1 <= len(predictions) <= 2:
        raise FairboundError(f"predictions: give one or two, got {len(predictions)}",
                             param="predictions")
    _check_model_options(ctx, predictions, name, device, batch_size)
    maps = _label_maps(label_map, _model_folders(predictions))
    breakdown = () if by.strip().lower() == "none" else tuple(
        b.strip() for b in by.split(",") if b.strip())
    table = _read_table(samples, param="samples")
    preds = [_predictions(p, table, device=device, batch_size=batch_size,
                          progress=fmt == "table", maps=maps) for p in predictions]
    names = list(name or []) + [n for n, _ in preds][len(name or []):]
    if len(predictions) == 2 and names[0] == names[1]:
        names = [f"{names[0]}_1", f"{names[1]}_2"]
    results = [audit_nli(table, p, confidence_level=confidence_level, n_resamples=n_resamples,
                         seed=seed, by=breakdown, model=n)
               for n, (_, p) in zip(names, preds, strict=False)]
    comparison = None
    if len(preds) == 2:
        comparison = compare_nli(table, preds[0][1], preds[1][1], names=tuple(names[:2]),
                                 confidence_level=confidence_level,
                                 n_resamples=max(n_resamples, 1), seed=seed, by=breakdown)
    frames = [r.table.assign(model=r.model) for r in results]
    import pandas as pd

    measures = pd.concat(frames, ignore_index=True)
    measures = measures[["model"] + [c for c in measures.columns if c != "model"]]
    files = []  # every output rendered first, then written all or none
    if output is not None:
        files.append(_table_output(comparison.table if comparison is not None else measures,
                                   output))
    if html is not None:
        from fairbound.report.nli_report import render_nli_report

        files.append(("--html", html, render_nli_report(results, comparison).encode("utf-8")))
    write_all_atomic(files, inputs=inputs)
    if fmt == "json":
        out = {"audits": [r.to_dict() for r in results]}
        if comparison is not None:
            out["comparison"] = comparison.to_dict()
        typer.echo(json.dumps(out, indent=2))
        return
    if fmt == "csv":
        echo_csv(comparison.table if comparison is not None else measures)
        return
    for r in results:
        t = r.table
        show = t[t.level == "overall"][["measure", "estimate", "low", "high", "n_samples",
                                         "n_pairs", "n_clusters"]]
        _print_frame(show, title=f"{r.model}: overall ({r.confidence_level:.0%} cluster-"
                                 f"bootstrap intervals, {r.n_resamples} resamples)")
        per = t[(t.level != "overall") & t.measure.isin(["accuracy", "bias_score",
                                                         "stereotype_bias",
                                                         "anti_stereotype_bias",
                                                         "brittleness"])]
        if len(per):
            wide = per.pivot_table(index=["domain", "subtopic"], columns="measure",
                                   values="estimate", sort=False).reset_index()
            _print_frame(wide, title=f"{r.model}: per domain and subtopic (estimates)")
        _print_frame(r.pair_table.reset_index(), title=f"{r.model}: prediction pairs "
                                                      "(stereotype x counterfactual)")
    if comparison is not None:
        c = comparison.table
        show = c[c.level == "overall"][["measure", "estimate_x", "estimate_y", "difference",
                                         "low", "high", "verdict"]]
        _print_frame(show, title=f"{names[0]} - {names[1]} (paired cluster bootstrap)")
        typer.echo(comparison.summary("stereotype_bias"))
    if output is not None:
        typer.echo(f"wrote {output}")


#: The per-stage counts of an extension run as the paper reports them: column of
#: :func:`fairbound.nli.extend.extension_stats` -> name in the stage table.
_STAGES = (
    ("templates", "masked_templates"),
    ("generated", "generated"),
    ("kept", "kept_by_filter"),
    ("hypotheses", "sent_to_validation"),
    ("valid_hypotheses", "valid"),
    ("valid_samples", "valid_samples"),
    ("final", "final_with_counterfactuals"),
)
_STAGE_HEADERS = {
    "masked_templates": "masked templates",
    "generated": "generated",
    "kept_by_filter": "kept by filter",
    "sent_to_validation": "sent to validation (hyp.)",
    "valid": "valid (hyp.)",
    "valid_samples": "valid samples",
    "final_with_counterfactuals": "final (+ counterfactuals)",
}


def _stage_table(stats):
    """The per-stage counts of a run, in the paper's order, from ``ExtensionResult.stats``.

    Columns: ``domain``, ``subtopic``, ``masked_templates``, ``generated`` (filled samples),
    ``kept_by_filter`` (samples a filter model did not call neutral), ``sent_to_validation``
    (unique kept hypotheses), ``valid`` (hypotheses validated valid-pro or valid-anti),
    ``valid_samples`` and ``final_with_counterfactuals`` (valid samples and their
    counterfactuals); the stages a run has not reached yet are left out.
    """
    cols = [(a, b) for a, b in _STAGES if a in stats.columns]
    return stats[["domain", "subtopic"] + [a for a, _ in cols]].rename(columns=dict(cols))


_TABLE9_TITLE = ("masked templates per subtopic, fairbound next to the paper's Table 9 "
                 "(paper_subtopic: the paper's name; subtopic: the BBNLI file)")
_TABLE10_TITLE = ("masked samples per subtopic (pro and anti premise versions), fairbound next "
                  "to the paper's Table 10 (differences explained in docs/nli.md)")


def _table9_display(table):
    """A paper-count table for a terminal: the paper's counts as integers, '-' absent."""
    def show(v):
        return "-" if v != v else f"{int(v):+d}" if v else "0"

    return table.assign(paper=[f"{int(v):,}" if v == v else "-" for v in table["paper"]],
                        difference=[show(v) for v in table["difference"]])


def _counts_frame(table9, table10):
    """Table 9 and Table 10 comparisons in one frame (for csv and json)."""
    t9 = table9.rename(columns={"paper": "paper_templates",
                                "difference": "templates_difference"})
    t10 = table10.drop(columns=["masked_templates", "paper_subtopic"]).rename(
        columns={"paper": "paper_samples", "difference": "samples_difference"})
    return t9.merge(t10, on=["domain", "subtopic"], how="left", sort=False)


def _model_lines(stats, filters: list[str], heldout: list[str]) -> list[str]:
    """One line per model: non-neutral share on generated (filter) or kept (held-out)."""
    total = stats[(stats.domain == "(all)") & (stats.subtopic == "(all)")].iloc[0]
    out = []
    kinds = [("filter", name, f"mispredicted_{name}", "generated", "") for name in filters]
    kinds += [("held-out", name, f"transfer_{name}", "kept", "transfer") for name in heldout]
    for kind, name, col, of, tag in kinds:
        if col in stats.columns and of in stats.columns:
            n, d = int(total[col]), int(total[of])
            share = ", ".join(x for x in (f"{n / d:.1%}" if d else "", tag) if x)
            out.append(f"{kind} model {name}: not neutral on {n:,} of {d:,} {of} samples"
                       + (f" ({share})" if share else ""))
    return out


def extend_command(
    out: Annotated[Path, typer.Option("--out", help="Run folder (resumed when it exists).")],
    fill_model: Annotated[Path, typer.Option(help="Local fill-mask model folder.")],
    filter_model: Annotated[list[Path], typer.Option(
        help="Local NLI model folder or predictions file of the adversarial filter "
             "(repeatable).")],
    heldout_model: Annotated[list[Path] | None, typer.Option(
        help="NLI model kept out of the filter, to measure transfer (repeatable).")] = None,
    templates: Annotated[list[Path] | None, typer.Option(
        help="Masked template files or folders (default: the 212 shipped masked templates "
             "over all 16 subtopics; see `fairbound nli masked-templates`).")] = None,
    top_k: Annotated[int, typer.Option(help="Candidates per mask.")] = 20,
    validations: Annotated[Path | None, typer.Option(
        help="CSV with hypothesis and category (default: OUT/04_validation.csv).")] = None,
    versions: Annotated[str, typer.Option(
        help="Premise versions: pro,anti (default: the paper's pipeline, both versions as "
             "the BBNLI scripts render them) | pro")] = "pro,anti",
    chunk_size: Annotated[int, typer.Option(help="Texts per cached chunk.")] = 256,
    device: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
    label_map: Annotated[list[str] | None, typer.Option(
        "--label-map", help=_LABEL_MAP_HELP)] = None,
    counts: Annotated[bool, typer.Option(
        help="Also print the masked templates per subtopic next to the paper's Table 9.")] =
    True,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    fmt: common.FormatOpt = "table",
) -> None:
    """Run or resume the BBNLI-next extension pipeline (stops for human validation).

    Prints the samples at every stage (generated, kept by the adversarial filter, sent to
    validation, valid, final with counterfactuals) per domain and subtopic; --format csv
    prints every column of OUT/stats.csv.
    """
    from fairbound._render import check_format
    from fairbound.nli import extend_benchmark, load_masked_templates
    from fairbound.nli.derive import masked_template_counts

    fmt = check_format(fmt)
    heldout_model = list(heldout_model or [])
    specs = [str(p) for p in [*filter_model, *heldout_model]]
    maps = _label_maps(label_map, [s for s in specs if Path(s).is_dir()])
    tpl = load_masked_templates(templates or None)
    show = progress and fmt == "table"
    filters = [_load_model(str(p), maps, device=device, progress=show) for p in filter_model]
    heldout = [_load_model(str(p), maps, device=device, progress=show) for p in heldout_model]
    res = extend_benchmark(
        out, fill_model=fill_model, filter_models=filters, heldout_models=heldout,
        templates=tpl, top_k=top_k, validations=validations,
        versions=[v.strip() for v in versions.split(",")], chunk_size=chunk_size,
        device=device, progress=show)
    stages = _stage_table(res.stats)
    table9 = masked_template_counts(tpl) if counts else None
    if fmt == "json":
        d = res.to_dict()
        d["stages"] = stages.to_dict(orient="records")
        if table9 is not None:
            d["masked_template_counts"] = table9.astype(object).where(
                table9.notna(), None).to_dict(orient="records")
        typer.echo(json.dumps(d, indent=2))
        return
    if fmt == "csv":
        echo_csv(res.stats)
        return
    _print_frame(stages.rename(columns=_STAGE_HEADERS),
                 title="samples per stage (every column: stats.csv)")
    for line in _model_lines(res.stats, [m.name for m in filters], [m.name for m in heldout]):
        typer.echo(line)
    if table9 is not None:
        _print_frame(_table9_display(table9), title=_TABLE9_TITLE)
    if res.status == "awaiting-validation":
        typer.echo(f"{res.pending} hypotheses await validation: fill the category column of "
                   f"{res.validation_file} (valid-pro, valid-anti, invalid, incoherent) and run "
                   "the same command again")
    else:
        typer.echo(f"complete: {len(res.samples):,} samples in {res.out_dir / '05_final.csv'}")


_PAIRING_CHOICES = ("auto", "paired", "independent")


def _read_extended(path: Path):
    """The extended benchmark: a table, or the ``05_final`` table of a run folder."""
    if path.is_dir():
        for name in ("05_final.parquet", "05_final.csv"):
            if (path / name).is_file():
                return _read_table(path / name, param="extended")
        raise FairboundError(f"extended: --extended {str(path)!r} is a folder without "
                             "05_final.parquet (is the `nli extend` run complete?)",
                             param="extended")
    return _read_table(path, param="extended")


def _original_samples(path: Path | None):
    """The original benchmark: a samples table, or the 16 shipped BBNLI templates expanded."""
    if path is not None:
        return _read_table(path, param="original")
    import warnings

    from fairbound.nli import expand_templates, load_templates
    from fairbound.nli.expand import UndefinedSlotWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedSlotWarning)
        return expand_templates(load_templates()).samples


def _compare_options(pairing: str, by: str, measures: str, names: str,
                     confidence_level: float, n_resamples: int, seed: int):
    """Check the options of ``nli compare`` before any table is read or model run."""
    from fairbound._validate import check_seed
    from fairbound.cli._common import split_list
    from fairbound.nli.measures import MEASURES

    mode = str(pairing).strip().lower()
    if mode not in _PAIRING_CHOICES:
        raise FairboundError(f"pairing: --pairing {pairing!r}: use {', '.join(_PAIRING_CHOICES)}",
                             param="pairing")
    breakdown: tuple = ()
    if by.strip().lower() != "none":
        breakdown = split_list(by, "by")
        bad = [b for b in breakdown if b not in ("domain", "subtopic")]
        if bad:
            raise FairboundError(f"by: --by {by!r}: use domain, domain,subtopic or none "
                                 f"(got {bad[0]!r})", param="by")
    if measures.strip().lower() == "all":
        chosen = MEASURES
    else:
        chosen = split_list(measures, "measures")
        bad = [m for m in chosen if m not in MEASURES]
        if bad:
            raise FairboundError(f"measures: --measures {measures!r}: unknown measure "
                                 f"{bad[0]!r}; use all or some of {', '.join(MEASURES)}",
                                 param="measures")
    bench = split_list(names, "names")
    if len(bench) != 2:
        raise FairboundError(f"names: --names {names!r}: give two names, ORIGINAL,EXTENDED",
                             param="names")
    if not 0 < confidence_level < 1:
        raise FairboundError(f"confidence_level: --confidence-level {confidence_level!r} must "
                             "be in (0, 1)", param="confidence_level")
    if n_resamples < 1:
        raise FairboundError(f"n_resamples: --n-resamples {n_resamples!r} must be >= 1 for a "
                             "comparison", param="n_resamples")
    check_seed(seed)
    return mode, breakdown, tuple(chosen), tuple(bench)


def _compare_predictions(specs: list[str], orig, ext, maps: dict, *, device: str,
                         batch_size: int, progress: bool):
    """Model name -> (predictions on the original, on the extended, where each came from).

    A model folder or predictions file runs on a table unless the table has its
    ``pred_<model>`` column; ``column:COL`` reads column COL of both tables; a bare NAME
    reads ``pred_NAME`` of both.  No spec: every ``pred_<model>`` column of both tables.
    """
    def cols(table):
        return [c for c in table.columns if str(c).startswith("pred_")]

    if not specs:
        shared = [c for c in cols(ext) if c in set(cols(orig))]
        if not shared:
            have = ", ".join(cols(ext)) or "none"
            raise FairboundError(
                "model: no -p/--model given and the two tables share no pred_<model> column "
                f"(the extended table has: {have}); give a local NLI model folder with -p",
                param="model")
        specs = [f"column:{c}" for c in shared]
    out: dict[str, tuple] = {}
    for spec in specs:
        path = Path(spec)
        if spec.startswith("column:") or not (path.is_dir() or path.is_file()):
            col = spec.split(":", 1)[1] if spec.startswith("column:") else f"pred_{spec}"
            what = ":" if spec.startswith("column:") else " is no model folder or file, and"
            for which, table in (("original", orig), ("extended", ext)):
                if col not in table.columns:
                    raise FairboundError(
                        f"model: -p {spec!r}{what} the {which} samples have no column "
                        f"{col!r} (pred_ columns: {', '.join(cols(table)) or 'none'})",
                        param="model")
            name = col.removeprefix("pred_")
            got = (orig[col].to_numpy(), ext[col].to_numpy(), f"column {col}",
                   f"column {col}")
        else:
            name = path.name if path.is_dir() else path.stem
            col = f"pred_{name}"
            model = None
            preds, sources = [], []
            for which, table in (("original", orig), ("extended", ext)):
                if col in table.columns:
                    preds.append(table[col].to_numpy())
                    sources.append(f"column {col}")
                    continue
                _need_texts(table, param=which)
                if model is None:
                    model = _load_model(spec, maps, device=device, batch_size=batch_size,
                                        progress=progress)
                preds.append(_predict_frame(model, table, progress=progress,
                                            what=f" ({which})"))
                sources.append(f"predicted by {spec}")
            got = (*preds, *sources)
        if name in out:
            raise FairboundError(f"model: two -p give the model name {name!r}", param="model")
        out[name] = got
    return out


def compare_command(
    extended: Annotated[Path, typer.Option(
        help="The extended benchmark: 05_final.parquet (or .csv) of `nli extend`, or its run "
             "folder.")],
    original: Annotated[Path | None, typer.Option(
        help="The original benchmark's samples (from `nli expand`); default: the 3,642 "
             "samples of the 16 shipped BBNLI templates.")] = None,
    model: Annotated[list[str] | None, typer.Option(
        "--model", "-p",
        help="A local NLI model folder (or predictions file), column:COL of both tables, or "
             "NAME for their pred_NAME columns; repeatable. A table's pred_<model> column is "
             "used instead of running the model. Default: every pred_<model> column the two "
             "tables share.")] = None,
    label_map: Annotated[list[str] | None, typer.Option(
        "--label-map", help=_LABEL_MAP_HELP)] = None,
    pairing: Annotated[str, typer.Option(
        help="auto (paired when the extended benchmark's premise templates are the "
             "original's) | paired | independent")] = "auto",
    by: Annotated[str, typer.Option(help="Breakdowns: domain | domain,subtopic | none")] =
    "domain",
    measures: Annotated[str, typer.Option(
        help="all, or a comma list (accuracy, bias_score, stereotype_bias, ...)")] = "all",
    names: Annotated[str, typer.Option(
        help="Names of the two benchmarks: ORIGINAL,EXTENDED")] = "BBNLI,BBNLI-next",
    confidence_level: Annotated[float, typer.Option(help="Interval level in (0, 1).")] = 0.95,
    n_resamples: Annotated[int, typer.Option(help="Cluster-bootstrap resamples.")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the resampling.")] = 0,
    device: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
    batch_size: Annotated[int, typer.Option(help="Batch size of model predictions.")] = 32,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    fmt: common.FormatOpt = "table",
    output: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the side-by-side table, with the mean-over-models rows "
                               "(.csv, .parquet, .jsonl).")] = None,
) -> None:
    """Accuracy and bias measures on the original and the extended benchmark, with the drop.

    For every model: each measure on both benchmarks with its cluster-bootstrap interval,
    and the drop (original - extended) with its interval, paired by premise template when
    the benchmarks share them (BBNLI-next reuses the BBNLI premises). Then the unweighted
    mean over the models on each benchmark and its drop, the form of the paper's headline
    (rows with model "(mean)" in csv and -o; "mean_over_models" in json).
    """
    from fairbound._io import input_files, write_all_atomic
    from fairbound._render import check_format
    from fairbound.nli import compare_benchmarks

    fmt = check_format(fmt)
    mode, breakdown, chosen, bench = _compare_options(pairing, by, measures, names,
                                                      confidence_level, n_resamples, seed)
    inputs = input_files(extended, original, *[m for m in (model or []) if Path(m).exists()])
    _check_table_output(output, inputs)
    specs = list(model or [])
    maps = _label_maps(label_map, [m for m in specs if Path(m).is_dir()])
    ext = _read_extended(extended)
    orig = _original_samples(original)
    preds = _compare_predictions(specs, orig, ext, maps, device=device, batch_size=batch_size,
                                 progress=progress and fmt == "table")
    res = compare_benchmarks(
        orig, ext, {m: p[0] for m, p in preds.items()}, {m: p[1] for m, p in preds.items()},
        names=bench, measures=chosen, by=breakdown, pairing=mode,
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed)
    if output is not None:
        write_all_atomic([_table_output(res.to_frame(with_mean=True), output)],
                         inputs=inputs)
    if fmt == "json":
        d = res.to_dict()
        d["sources"] = {m: {"original": p[2], "extended": p[3]} for m, p in preds.items()}
        typer.echo(json.dumps(d, indent=2))
        return
    if fmt == "csv":
        echo_csv(res.to_frame(with_mean=True))
        return
    typer.echo(f"{bench[0]}: {len(orig):,} samples; {bench[1]}: {len(ext):,} samples")
    for m, p in preds.items():
        typer.echo(f"{m}: {bench[0]} {p[2]}, {bench[1]} {p[3]}")
    typer.echo(res.to_text(measures=None))
    notes = res.table.loc[res.table.note != "", "note"]
    for note, n in notes.value_counts(sort=False).items():
        typer.echo(f"note: {note} ({n} row{'s' if n != 1 else ''})")
    if "accuracy" in chosen:
        typer.echo(res.summary("accuracy"))
    if output is not None:
        typer.echo(f"wrote {output}")


def masked_templates_command(
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="List every candidate of every rule and which were selected.")] =
    False,
    write: Annotated[bool, typer.Option(
        "--write", help="Write one masked-template file per subtopic.")] = False,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", "-o",
        help="Folder for --write (default: the shipped data/bbnli/masked).")] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Exit 1 when the shipped files differ from a fresh derivation.")] =
    False,
    counts: Annotated[bool, typer.Option(
        "--counts", help="Masked templates per subtopic next to the paper's Table 9, and "
                         "masked samples next to its Table 10 (the default when no other "
                         "action is given).")] = False,
    fmt: Annotated[str, typer.Option("--format", help="table | json | csv (for --counts)")] =
    "table",
) -> None:
    """The BBNLI-next masked templates: 212 derived from the BBNLI hypotheses, all 16 subtopics.

    Runs the rules of fairbound.nli.derive (python -m fairbound.nli.derive does the same).
    """
    from fairbound._render import check_format
    from fairbound.nli import derive

    fmt = check_format(fmt)
    if out_dir is not None and not write:
        raise FairboundError(f"out_dir: --out {str(out_dir)!r} has no effect without "
                             "--write", param="out_dir")
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise FairboundError(f"out_dir: --out {str(out_dir)!r} is a file, not a folder",
                             param="out_dir")
    if not (dry_run or write or check or counts):
        counts = True
    if write:
        for path in derive.write_masked_templates(out_dir):
            typer.echo(f"wrote {path}")
    if dry_run:
        typer.echo(derive.dry_run())
    if counts:
        table = derive.masked_template_counts()
        samples = derive.masked_sample_counts()
        if fmt == "json":
            both = _counts_frame(table, samples)
            typer.echo(json.dumps(both.astype(object).where(both.notna(), None)
                                  .to_dict(orient="records"), indent=2))
        elif fmt == "csv":
            echo_csv(_counts_frame(table, samples))
        else:
            _print_frame(_table9_display(table), title=_TABLE9_TITLE)
            _print_frame(_table9_display(samples), title=_TABLE10_TITLE)
    if check:
        code = derive.main(["--check"])
        if code:
            raise typer.Exit(code)


def validate_command(
    out: Annotated[Path, typer.Option("--out", help="Run folder of `nli extend` (or a CSV).")],
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8765,
) -> None:
    """Serve a local web form to categorise the generated hypotheses (Ctrl-C to stop)."""
    from fairbound.nli.validate_form import serve_until_interrupted, validation_server

    path = out / "04_validation.csv" if out.is_dir() else out
    server = validation_server(path, host=host, port=port)
    h, p = server.server_address[:2]
    typer.echo(f"validation form for {path} at http://{h}:{p}/ (Ctrl-C to stop)")
    serve_until_interrupted(server)


def register(app: typer.Typer) -> None:
    """Add the ``nli`` sub-app to the ``fairbound`` CLI.

    Commands: expand, audit, compare, extend, validate, masked-templates.
    """
    common.add_sub_app(
        app, "nli",
        "Counterfactual NLI bias audits (BBNLI) and benchmark extension (BBNLI-next).",
        expand=expand_command, audit=audit_command, compare=compare_command,
        extend=extend_command, validate=validate_command,
        **{"masked-templates": masked_templates_command})
