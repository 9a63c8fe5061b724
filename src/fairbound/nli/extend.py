"""The BBNLI-next benchmark-extension pipeline (Baldini et al. 2023), resumable on disk.

Stages, each written to ``out_dir`` (a stage whose file exists is not run again; model
predictions are written in chunks, so a killed run resumes where it stopped):

1. ``01_masked.parquet``: masked hypothesis templates expanded with the BBNLI machinery.
2. ``02_fills/`` and ``02_filled.parquet``: every ``<MASK>`` filled with the top-k candidates
   of a masked language model, from the hypothesis alone; one sample per candidate.
3. ``03_predictions/<model>/`` and ``03_scored.parquet``: every model's prediction; a sample
   is kept when at least one *filter* model predicts a label other than neutral (adversarial
   filtering); *held-out* models are recorded only, to measure transfer.
4. ``04_validation.csv``: the unique kept hypotheses, for human validation (``category``:
   valid-pro, valid-anti, invalid, incoherent).
5. ``05_predictions/<model>/``, ``05_final.parquet`` and ``05_final.csv``: valid samples and
   their counterfactuals (groups swapped in the hypothesis only; not filtered), with every
   model's predictions.

``stats.csv`` counts every stage per domain and subtopic.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fairbound import _docs
from fairbound._validate import check_choices, check_int
from fairbound.errors import FairboundError
from fairbound.nli.expand import expand_templates, with_domain_totals
from fairbound.nli.labels import label_names
from fairbound.nli.models import (
    NLIModel,
    check_model_name,
    load_fill_mask,
    load_nli_model,
    read_table,
)
from fairbound.nli.templates import MASK, Template, load_masked_templates, render

__all__ = ["CATEGORIES", "ExtensionResult", "extend_benchmark", "extension_stats"]

#: Human validation categories; only the two ``valid-*`` ones continue.
CATEGORIES: tuple[str, ...] = ("valid-pro", "valid-anti", "invalid", "incoherent")
_VALID = ("valid-pro", "valid-anti")
_PARTS = "part-{:05d}.parquet"


@dataclass(frozen=True)
class ExtensionResult:
    """State of an extension run.

    Attributes
    ----------
    out_dir : pathlib.Path
        Where every stage is written.
    status : str
        ``"awaiting-validation"`` (fill in the ``category`` column of ``validation_file`` and
        run again) or ``"complete"``.
    stats : pandas.DataFrame
        Counts per domain and subtopic at every stage that has run (see
        :func:`extension_stats`).
    samples : pandas.DataFrame or None
        The extended benchmark (valid samples and counterfactuals, with ``pred_<model>``
        columns) once complete.
    validation_file : pathlib.Path
        The human-validation CSV.
    pending : int
        Hypotheses still without a category.
    """

    out_dir: Path
    status: str
    stats: pd.DataFrame = field(repr=False)
    samples: pd.DataFrame | None = field(repr=False)
    validation_file: Path
    pending: int

    def to_frame(self) -> pd.DataFrame:
        """Return the per-stage counts (a copy)."""
        return self.stats.copy()

    def to_dict(self) -> dict:
        """Return the status and counts as plain Python objects."""
        return {"out_dir": str(self.out_dir), "status": self.status, "pending": self.pending,
                "validation_file": str(self.validation_file),
                "n_samples": None if self.samples is None else int(len(self.samples)),
                "stats": self.stats.to_dict(orient="records")}


def _write(df: pd.DataFrame, path: Path) -> None:
    """Write atomically (temporary file, then rename), so a kill never leaves half a file."""
    tmp = path.with_name(path.name + ".tmp")
    if path.suffix == ".csv":
        from fairbound._io import csv_text

        # safe to open in a spreadsheet; read_table undoes the escape
        tmp.write_text(csv_text(df), encoding="utf-8")
    else:
        df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


@contextmanager
def _progress(enabled: bool):
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), transient=False) as bar:
        yield bar


def _chunked(out: Path, n: int, chunk_size: int, compute, bar, description: str) -> pd.DataFrame:
    """Run ``compute(slice)`` per chunk, caching each chunk's table under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    n_chunks = -(-n // chunk_size)
    task = bar.add_task(description, total=n_chunks) if bar is not None else None
    parts = []
    for i in range(n_chunks):
        path = out / _PARTS.format(i)
        if path.exists():
            part = pd.read_parquet(path)
        else:
            part = compute(slice(i * chunk_size, min(n, (i + 1) * chunk_size)))
            _write(part, path)
        parts.append(part)
        if task is not None:
            bar.advance(task)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _predict(model: NLIModel, frame: pd.DataFrame, out: Path, chunk_size: int, bar) -> np.ndarray:
    premises = frame["premise"].tolist()
    hypotheses = frame["hypothesis"].tolist()

    def compute(sl: slice) -> pd.DataFrame:
        codes = np.asarray(model.predict(premises[sl], hypotheses[sl]), dtype=np.int8)
        if codes.shape != (sl.stop - sl.start,):
            raise FairboundError(f"model {model.name}: returned {codes.size} predictions for "
                                 f"{sl.stop - sl.start} pairs", param="model")
        return pd.DataFrame({"sample_id": frame["sample_id"].iloc[sl].to_numpy(),
                             "prediction": codes})

    got = _chunked(out, len(frame), chunk_size, compute, bar, f"NLI {model.name}")
    if len(frame) and not np.array_equal(got["sample_id"].to_numpy(),
                                         frame["sample_id"].to_numpy()):
        raise FairboundError(f"out_dir: cached predictions under {str(out)!r} do not match the "
                             "samples; remove that folder or use a new out_dir", param="out_dir")
    return got["prediction"].to_numpy(dtype=np.intp) if len(frame) else np.array([], np.intp)


def _fingerprint(templates: Sequence[Template]) -> str:
    h = hashlib.sha256()
    for t in templates:
        h.update(json.dumps(asdict(t), sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def _validate_extend(out_dir, fill_model, filter_models, heldout_models, templates, top_k,
                     versions, chunk_size, device):
    top_k = check_int(top_k, "top_k", low=1)
    chunk_size = check_int(chunk_size, "chunk_size", low=1)

    def models(specs, param):
        if specs is None:
            return []
        if isinstance(specs, Mapping):
            return [load_nli_model(v, name=check_model_name(k, param=param), device=device)
                    for k, v in specs.items()]
        if isinstance(specs, str | Path) or callable(specs) or isinstance(specs, NLIModel):
            specs = [specs]
        return [load_nli_model(s, device=device) for s in specs]

    filters = models(filter_models, "filter_models")
    if not filters:
        raise FairboundError("filter_models: need at least one NLI model for adversarial "
                             "filtering", param="filter_models")
    heldout = models(heldout_models, "heldout_models")
    names = [m.name for m in filters + heldout]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise FairboundError(f"filter_models: model names must be distinct, {dup[0]!r} is used "
                             "twice", param="filter_models")
    if templates is None:
        templates = load_masked_templates()
    elif isinstance(templates, Template):
        templates = [templates]
    else:
        templates = list(templates)
        if templates and not isinstance(templates[0], Template):
            templates = load_masked_templates(templates)
    if not templates:
        raise FairboundError("templates: no masked templates given", param="templates")
    for t in templates:
        for h, *_ in t.stereotype_hypotheses:
            if h.count(MASK) != 1:
                raise FairboundError(f"templates: {t.subtopic} hypothesis {h!r} must hold "
                                     f"exactly one {MASK}", param="templates")
    versions = check_choices(versions, ("pro", "anti"), "versions")
    fill = load_fill_mask(fill_model, device=device)
    return (Path(out_dir), fill, filters, heldout, templates, int(top_k), int(chunk_size),
            versions)


@_docs.fill
def extend_benchmark(
    out_dir: str | Path,
    *,
    fill_model,
    filter_models,
    heldout_models=None,
    templates: Sequence[Template] | Sequence[str | Path] | None = None,
    top_k: int = 20,
    validations: str | Path | None = None,
    versions: Sequence[str] = ("pro", "anti"),
    chunk_size: int = 256,
    device: str = "auto",
    progress: bool = True,
) -> ExtensionResult:
    """Run (or resume) the BBNLI-next extension pipeline.

    Parameters
    ----------
    out_dir : path
        Folder for every stage's output; an existing run there is resumed.
    fill_model : FillMaskModel, callable or path
        Masked language model filling ``<MASK>`` (paper: bert-large-cased-whole-word-masking).
    filter_models : NLI model, path, callable, or a list / mapping name -> spec of them
        Models of the adversarial filter: a sample is kept when one of them predicts a label
        other than neutral.
    heldout_models : same as ``filter_models``, optional
        Models recorded but kept out of the filter, to measure transfer.
    templates : list of Template or of paths, optional
        Masked templates (:func:`~fairbound.nli.load_masked_templates`); default: the 212
        shipped with fairbound, for all 16 subtopics (:mod:`fairbound.nli.derive`).
    top_k : int
        Candidates per mask (paper: 20).
    validations : path, optional
        A CSV with columns ``hypothesis`` and ``category`` (valid-pro, valid-anti, invalid,
        incoherent); default: the ``category`` column of ``out_dir/04_validation.csv``.
    versions : sequence of {'pro', 'anti'}
        Premise versions expanded.  Default: both, as the paper's pipeline does (its Table 10
        counts the masked samples "after the expansion ... using the original BBNLI
        scripts", which render the pro and the anti version): the 212 shipped templates
        give 4,128 masked samples, next to the paper's 4,156
        (:func:`~fairbound.nli.derive.masked_sample_counts` compares them per subtopic).
        ``("pro",)`` renders the groups as given only (2,064).
    chunk_size : int
        Texts per cached chunk (the unit of resumption).
    device : str
        ``"auto"`` uses a GPU when present.
    progress : bool
        Show progress bars.

    Returns
    -------
    ExtensionResult
        ``status == "awaiting-validation"`` until every kept hypothesis has a category, then
        ``"complete"`` with the extended samples.

    Raises
    ------
    FairboundError
        Bad options, an ``out_dir`` holding a run with other settings, unknown categories.

    Notes
    -----
    The masked language model sees the hypothesis only, never the premise.  Only whole words
    are candidates.  A hypothesis validated ``valid-pro`` becomes a stereotypical sample and its
    counterfactual an anti-stereotypical one (``valid-anti``: the reverse); the counterfactual
    re-renders the hypothesis template with the two groups swapped and the same fillers and
    mask word, keeping the premise.  Pairs whose counterfactual equals the original (no group
    in the hypothesis) or repeats a sample already present are dropped.  Every model also
    predicts the counterfactuals, so the final table can be audited with
    :func:`~fairbound.nli.audit_nli` for filter and held-out models alike (held-out models
    measure how the adversarial samples transfer).  Models run in inference mode; on CPU the
    results are deterministic.

    {{references_baldini2023}}

    Examples
    --------
    >>> import tempfile
    >>> fill = lambda texts, k: [["good", "bad"][:k] for _ in texts]
    >>> nli = lambda p, h: ["entailment" if "bad" in x else "neutral" for x in h]
    >>> res = extend_benchmark(tempfile.mkdtemp(), fill_model=fill, filter_models={"toy": nli},
    ...                        top_k=2, progress=False)
    >>> res.status
    'awaiting-validation'
    """
    out, fill, filters, heldout, templates, top_k, chunk_size, versions = _validate_extend(
        out_dir, fill_model, filter_models, heldout_models, templates, top_k, versions,
        chunk_size, device)
    out.mkdir(parents=True, exist_ok=True)
    settings = {"templates": _fingerprint(templates), "fill_model": fill.name, "top_k": top_k,
                "filter_models": [m.name for m in filters],
                "heldout_models": [m.name for m in heldout], "versions": list(versions)}
    manifest = out / "manifest.json"
    if manifest.exists():
        old = json.loads(manifest.read_text())
        diff = [k for k in settings if old.get(k) != settings[k]]
        if diff:
            raise FairboundError(f"out_dir: {str(out)!r} holds a run with other settings "
                                 f"({', '.join(diff)}); use a new folder", param="out_dir")
    else:
        manifest.write_text(json.dumps(settings, indent=2))
    models = filters + heldout
    state: dict[str, pd.DataFrame] = {}

    with _progress(progress) as bar:
        # 1. masked samples
        p1 = out / "01_masked.parquet"
        if not p1.exists():
            _write(expand_templates(templates, versions=versions).samples, p1)
        masked = pd.read_parquet(p1)
        state["masked"] = masked

        # 2. fill the mask from the hypothesis alone
        p2 = out / "02_filled.parquet"
        if not p2.exists():
            texts = list(dict.fromkeys(masked["hypothesis"]))

            def compute(sl: slice) -> pd.DataFrame:
                cands = fill.fill(texts[sl], top_k)
                if len(cands) != sl.stop - sl.start:
                    raise FairboundError(f"fill_model {fill.name}: returned {len(cands)} lists "
                                         f"for {sl.stop - sl.start} texts", param="fill_model")
                rows = [(t, r, w) for t, cs in zip(texts[sl], cands, strict=True)
                        for r, w in enumerate(cs[:top_k])]
                return pd.DataFrame(rows, columns=["masked_hypothesis", "fill_rank", "fill"])

            fills = _chunked(out / "02_fills", len(texts), chunk_size, compute, bar,
                             f"fill-mask {fill.name}")
            filled = masked.rename(columns={"hypothesis": "masked_hypothesis"}).merge(
                fills, on="masked_hypothesis", how="inner", sort=False)
            filled["hypothesis"] = [m.replace(MASK, w) for m, w in
                                    zip(filled["masked_hypothesis"], filled["fill"], strict=True)]
            filled["pair_id"] = filled["pair_id"] + "/k" + filled["fill_rank"].map("{:02d}".format)
            filled["sample_id"] = filled["pair_id"] + "/" + filled["version"]
            filled = filled.drop_duplicates(["premise", "hypothesis"]).reset_index(drop=True)
            _write(filled, p2)
        filled = pd.read_parquet(p2)
        state["filled"] = filled

        # 3. adversarial filtering
        p3 = out / "03_scored.parquet"
        if not p3.exists():
            scored = filled.copy()
            for m in models:
                codes = _predict(m, filled, out / "03_predictions" / m.name, chunk_size, bar)
                scored[f"pred_{m.name}"] = label_names(codes)
            scored["kept"] = np.column_stack(
                [scored[f"pred_{m.name}"] != "neutral" for m in filters]).any(axis=1)
            _write(scored, p3)
        scored = pd.read_parquet(p3)
        state["scored"] = scored

    # 4. human validation
    kept = scored[scored["kept"]]
    p4 = out / "04_validation.csv"
    if not p4.exists():
        uniq = kept.drop_duplicates("hypothesis")
        table = pd.DataFrame({
            "hypothesis_id": [f"h{i:05d}" for i in range(len(uniq))],
            "domain": uniq["domain"].to_numpy(), "subtopic": uniq["subtopic"].to_numpy(),
            "hypothesis": uniq["hypothesis"].to_numpy(),
            "n_samples": kept.groupby("hypothesis").size().loc[uniq["hypothesis"]].to_numpy(),
            "category": "",
        })
        _write(table, p4)
    categories = _read_validations(validations if validations is not None else p4, kept)
    state["categories"] = categories
    pending = int(kept["hypothesis"].drop_duplicates().map(categories).isna().sum())
    if pending:
        stats = extension_stats(templates, state, filters, heldout)
        _write(stats, out / "stats.csv")
        return ExtensionResult(out_dir=out, status="awaiting-validation", stats=stats,
                               samples=None, validation_file=p4, pending=pending)

    # 5. counterfactual expansion
    p5 = out / "05_final.parquet"
    if not p5.exists():
        final = _counterfactuals(kept, categories, templates)
        with _progress(progress) as bar:
            for m in models:
                cf = final[final["origin"] == "counterfactual"]
                codes = _predict(m, cf, out / "05_predictions" / m.name, chunk_size, bar)
                final.loc[cf.index, f"pred_{m.name}"] = label_names(codes)
        _write(final, p5)
        _write(final, out / "05_final.csv")
    final = pd.read_parquet(p5)
    state["final"] = final
    stats = extension_stats(templates, state, filters, heldout)
    _write(stats, out / "stats.csv")
    return ExtensionResult(out_dir=out, status="complete", stats=stats, samples=final,
                           validation_file=p4, pending=0)


def _read_validations(path, kept: pd.DataFrame) -> pd.Series:
    table = read_table(path, param="validations")
    if not {"hypothesis", "category"} <= set(table.columns):
        raise FairboundError(f"validations: {str(path)!r} needs columns hypothesis and "
                             f"category, got {list(table.columns)[:6]}", param="validations")
    cat = table["category"].astype(object)
    cat = cat.where(cat.notna(), "").astype(str).str.strip().str.lower()
    bad = sorted(set(cat) - set(CATEGORIES) - {""})
    if bad:
        raise FairboundError(f"validations: unknown category {bad[0]!r}; allowed: "
                             f"{', '.join(CATEGORIES)}", param="validations")
    series = pd.Series(cat.to_numpy(), index=table["hypothesis"].astype(str))
    series = series[series != ""]
    series = series[~series.index.duplicated(keep="last")]
    unknown = series.index[~series.index.isin(set(kept["hypothesis"]))]
    if len(unknown):
        raise FairboundError(f"validations: not aligned with the kept samples: "
                             f"{len(unknown)} hypothesis(es) unknown, e.g. {unknown[0]!r}",
                             param="validations")
    return series


def _counterfactuals(kept: pd.DataFrame, categories: pd.Series,
                     templates: Sequence[Template]) -> pd.DataFrame:
    groups = {t.subtopic: (t.group1, t.group2) for t in templates}
    valid = kept[kept["hypothesis"].map(categories).isin(_VALID)].copy()
    valid["category"] = valid["hypothesis"].map(categories).to_numpy()
    swapped = []
    for tpl, fill, fillers, sub, version in zip(
            valid["hypothesis_template"], valid["fill"], valid["fillers"], valid["subtopic"],
            valid["version"], strict=True):
        g1, g2 = groups[sub]
        # The original was rendered with (g1, g2) in the pro version; swap them.
        a, b = (g2, g1) if version == "pro" else (g1, g2)
        swapped.append(render(tpl.replace(MASK, fill), {**json.loads(fillers), "GROUP1": a,
                                                         "GROUP2": b}))
    valid["cf_hypothesis"] = swapped
    valid = valid[valid["cf_hypothesis"] != valid["hypothesis"]]
    pro = valid["category"] == "valid-pro"
    orig = valid.assign(
        origin="original",
        hypothesis_type=np.where(pro, "stereotypical", "anti-stereotypical"))
    cf = valid.assign(
        origin="counterfactual", hypothesis=valid["cf_hypothesis"],
        hypothesis_type=np.where(pro, "anti-stereotypical", "stereotypical"))
    for c in cf.columns:
        if c.startswith("pred_"):
            cf[c] = None
    orig["pair_id"] = orig["sample_id"]
    cf["pair_id"] = cf["sample_id"]
    orig["sample_id"] = orig["pair_id"] + "/orig"
    cf["sample_id"] = cf["pair_id"] + "/cf"
    # One row per pair, original first; drop pairs repeating a sample already present.
    both = pd.concat([orig, cf]).sort_index(kind="stable")
    both["_key"] = both["premise"] + "\x00" + both["hypothesis"]
    seen: set[str] = set()
    keep_pairs = []
    for pid, keys in both.groupby("pair_id", sort=False)["_key"]:
        ks = set(keys)
        if ks & seen:
            continue
        seen |= ks
        keep_pairs.append(pid)
    both = both[both["pair_id"].isin(set(keep_pairs))]
    both = both.drop(columns=["_key", "cf_hypothesis", "kept"]).reset_index(drop=True)
    both["true_label"] = "neutral"
    both["bias_label"] = "entailment"
    front = ["sample_id", "pair_id", "domain", "subtopic", "premise_id", "version", "origin",
             "category", "premise", "hypothesis_type", "hypothesis"]
    return both[front + [c for c in both.columns if c not in front]]


def extension_stats(templates: Sequence[Template], state: Mapping[str, pd.DataFrame],
                    filters: Sequence[NLIModel], heldout: Sequence[NLIModel]) -> pd.DataFrame:
    """Count every stage of an extension run per domain and subtopic.

    Parameters
    ----------
    templates : list of Template
        The masked templates.
    state : mapping
        Stage tables: ``masked``, ``filled``, ``scored``, ``categories``, ``final`` (those
        that exist).
    filters, heldout : list of NLIModel
        The models.

    Returns
    -------
    pandas.DataFrame
        Columns ``domain``, ``subtopic``, ``templates`` (masked hypothesis templates),
        ``masked_samples``, ``generated``, ``mispredicted_<model>`` (non-neutral predictions on
        generated samples), ``kept``, ``transfer_<model>`` (held-out models' non-neutral
        predictions on kept samples), ``hypotheses``, ``valid_hypotheses``, ``valid_samples``,
        ``final``; per-domain and overall ``(all)`` rows.
    """
    keys = sorted({(t.domain, t.subtopic) for t in templates})
    idx = pd.MultiIndex.from_tuples(keys, names=["domain", "subtopic"])
    stats = pd.DataFrame(index=idx)
    n_tpl = pd.Series({(t.domain, t.subtopic): len(t.stereotype_hypotheses) for t in templates})
    stats["templates"] = n_tpl.groupby(level=[0, 1]).sum().reindex(idx, fill_value=0)

    def count(frame, mask=None):
        f = frame if mask is None else frame[mask]
        return f.groupby(["domain", "subtopic"]).size().reindex(idx, fill_value=0)

    if "masked" in state:
        stats["masked_samples"] = count(state["masked"])
    if "filled" in state:
        stats["generated"] = count(state["filled"])
    if "scored" in state:
        s = state["scored"]
        for m in filters:
            stats[f"mispredicted_{m.name}"] = count(s, s[f"pred_{m.name}"] != "neutral")
        stats["kept"] = count(s, s["kept"])
        for m in heldout:
            stats[f"transfer_{m.name}"] = count(s, s["kept"] & (s[f"pred_{m.name}"] != "neutral"))
        k = s[s["kept"]].drop_duplicates("hypothesis")
        stats["hypotheses"] = count(k)
        if "categories" in state:
            cats = k["hypothesis"].map(state["categories"])
            stats["valid_hypotheses"] = count(k, cats.isin(_VALID).to_numpy())
            kc = s[s["kept"]]["hypothesis"].map(state["categories"])
            stats["valid_samples"] = count(s[s["kept"]], kc.isin(_VALID).to_numpy())
    if "final" in state:
        stats["final"] = count(state["final"])
    return with_domain_totals(stats.reset_index())
