"""Stability studies: many models on stratified resamples, every run persisted.

:func:`run_study` follows the protocol of Jourdan et al. (2023): for each sample size it
draws ``n_repeats`` stratified samples (every (group, class) cell keeps its share), splits
each 70/30 into train and test (or uses a fixed test set), trains one model per sample and
condition, and audits the test predictions with :func:`fairbound.audit`: per class ``k``
the GP, TPR and PP gaps between groups, the counts behind them and the single-run interval.

Each finished run is written at once to its own Parquet file under ``store`` (written to a
temporary name, then renamed, so a killed study never leaves half a run).  Running the same
study again with the same ``store`` skips the runs already there: an interrupted study
resumes without redoing or losing runs, and adding sizes or repeats extends it.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairbound._docs import fill
from fairbound._validate import check_choice, check_int, check_seed
from fairbound.errors import FairboundError, SmallGroupWarning
from fairbound.stability.sampling import check_sizes, draw_split
from fairbound.stability.trainers import Trainer

#: Metrics of the paper: GP, TPR and PP per class (one-vs-rest).
PAPER_METRICS = ("demographic_parity", "equal_opportunity", "predictive_parity")
BACKENDS = ("loky", "threading", "sequential", "ray", "spark")
GAP_COLUMNS = (
    "condition", "size", "repeat", "metric", "rate", "class", "group_a", "group_b", "n_a",
    "n_b", "count_a", "count_b", "rate_a", "rate_b", "gap", "low", "high", "verdict", "note",
)
_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")


@dataclass(frozen=True)
class TextDebias:
    """A study condition that rewrites a text column with :class:`GenderNeutralizer`.

    Parameters
    ----------
    column : str
        Text column to rewrite.
    variant : {'female', 'male'}
        Which gender's indicators the rewritten corpus uses.
    name : str
        Neutral first name.
    nouns : bool
        Also rewrite gendered nouns (husband -> wife, ...); off, as in the paper.

    Examples
    --------
    >>> TextDebias("text", "male")(pd.DataFrame({"text": ["She and her dog"]}))["text"][0]
    'He and his dog'
    """

    column: str = "text"
    variant: str = "female"
    name: str = "Camille"
    nouns: bool = False

    def __call__(self, data: pd.DataFrame) -> pd.DataFrame:
        """Return a copy of ``data`` with the text column rewritten."""
        from fairbound.text import GenderNeutralizer

        if self.column not in data.columns:
            raise FairboundError(f"condition: no text column {self.column!r}; columns are "
                                 f"{list(data.columns)[:20]}", param="conditions")
        tf = GenderNeutralizer(variant=self.variant, name=self.name, nouns=self.nouns)
        out = data.copy()
        out[self.column] = tf.transform(data[self.column].astype(str))
        return out


@dataclass(frozen=True)
class StudyConfig:
    """Everything that defines a study except its sizes and repeat count.

    Two runs of :func:`run_study` may share a ``store`` only when their configurations are
    equal (sizes and repeats may grow).
    """

    label: str
    group: str
    stratify: tuple[str, ...]
    test_size: float | None
    seed: int
    trainer: str
    conditions: tuple[str, ...]
    metrics: tuple[str, ...]
    comparison: str
    reference: Any
    method: str
    confidence_level: float
    classes: tuple[str, ...]
    data_fingerprint: str
    sizes: tuple[int, ...] = field(default=(), compare=False)
    n_repeats: int = field(default=0, compare=False)
    #: the paper's filter (see :func:`summarize_gaps`); a reporting choice, so a store may
    #: be resumed with another value
    min_per_group: int | None = field(default=None, compare=False)
    #: rows of each class and group in the whole data (``(class, group, n)`` triples):
    #: the bars of Jourdan et al.'s Fig. 7
    class_counts: tuple = field(default=(), compare=False)
    #: ``(condition, fingerprint)`` of each transformed condition: a hash of the transform's
    #: output on the first rows of the pool, so that a store is never resumed with a
    #: transform that now rewrites text otherwise (a new name list, other rules)
    transforms: tuple = ()

    def to_dict(self) -> dict:
        """Return the configuration as a JSON-ready dictionary."""
        d = asdict(self)
        d["reference"] = None if self.reference is None else str(self.reference)
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> StudyConfig:
        """Rebuild a configuration written by :meth:`to_dict`."""
        kw = dict(d)
        for k in ("stratify", "conditions", "metrics", "classes", "sizes"):
            kw[k] = tuple(kw.get(k, ()))
        kw["class_counts"] = tuple(tuple(t) for t in kw.get("class_counts", ()))
        kw["transforms"] = tuple(tuple(t) for t in kw.get("transforms", ()))
        return cls(**kw)

    def class_count_frame(self) -> pd.DataFrame:
        """:attr:`class_counts` as a frame (``class``, ``group``, ``n``); empty if unknown."""
        return pd.DataFrame(list(self.class_counts), columns=["class", "group", "n"])


#: Rows of the pool a condition's transform is fingerprinted on (:attr:`StudyConfig.transforms`).
TRANSFORM_PROBE = 500


def _fingerprint(data: pd.DataFrame, test_data: pd.DataFrame | None) -> str:
    h = int(pd.util.hash_pandas_object(data, index=False).sum()) & 0xFFFFFFFFFFFFFFFF
    out = f"{len(data)}:{h:016x}"
    if test_data is not None:
        h2 = int(pd.util.hash_pandas_object(test_data, index=False).sum()) & 0xFFFFFFFFFFFFFFFF
        out += f"|{len(test_data)}:{h2:016x}"
    return out


# ------------------------------------------------------------------------------ storage


class RunStore:
    """One Parquet file per finished run under ``root/runs/<condition>/size=<n>/``.

    Parameters
    ----------
    root : str or pathlib.Path
        Folder of the study (created if needed).

    Examples
    --------
    >>> RunStore("study").path("original", 2000, 7).as_posix()
    'study/runs/original/size=2000/repeat=00007.parquet'
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    @property
    def config_path(self) -> Path:
        """Path of the study's ``study.json``."""
        return self.root / "study.json"

    def path(self, condition: str, size: int, repeat: int) -> Path:
        """Path of one run's file."""
        return self.root / "runs" / condition / f"size={size}" / f"repeat={repeat:05d}.parquet"

    def done(self) -> set[tuple[str, int, int]]:
        """Keys ``(condition, size, repeat)`` of the runs already stored."""
        out = set()
        base = self.root / "runs"
        if not base.exists():
            return out
        for p in base.glob("*/size=*/repeat=*.parquet"):
            out.add((p.parent.parent.name, int(p.parent.name[5:]), int(p.stem[7:])))
        return out

    def check_config(self, config: StudyConfig) -> None:
        """Write ``study.json``, or check that an existing study has the same set-up."""
        self.root.mkdir(parents=True, exist_ok=True)
        if self.config_path.exists():
            old = StudyConfig.from_dict(json.loads(self.config_path.read_text()))
            if old != config:
                diff = [k for k in config.to_dict()
                    if k not in ("sizes", "n_repeats", "min_per_group", "class_counts")
                    and config.to_dict()[k] != old.to_dict().get(k)]
                raise FairboundError(
                    f"store: {str(self.root)!r} holds a study with a different {diff[0]} "
                    f"({old.to_dict()[diff[0]]!r}, now {config.to_dict()[diff[0]]!r}); "
                    f"resume it with {diff[0]}={old.to_dict()[diff[0]]!r} or use another "
                    "store folder", param="store")
            sizes = tuple(sorted(set(old.sizes) | set(config.sizes)))
            keep = old.min_per_group if config.min_per_group is None else config.min_per_group
            config = StudyConfig.from_dict({**config.to_dict(), "sizes": sizes,
                                            "n_repeats": max(old.n_repeats, config.n_repeats),
                                            "min_per_group": keep})
        _write_atomic(self.config_path, json.dumps(config.to_dict(), indent=2).encode())

    def clean(self) -> int:
        """Remove temporary files left by a killed study; return how many."""
        stale = list((self.root / "runs").glob("*/size=*/repeat=*.tmp*"))
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)

    def write(self, run: dict, gaps: pd.DataFrame) -> None:
        """Store one run atomically (temporary file, then rename)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        p = self.path(run["condition"], run["size"], run["repeat"])
        p.parent.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pandas(gaps, preserve_index=False)
        table = table.replace_schema_metadata(
            {**(table.schema.metadata or {}), b"fairbound.run": json.dumps(run).encode()})
        tmp = p.with_suffix(f".tmp{os.getpid()}")
        pq.write_table(table, tmp)
        os.replace(tmp, p)

    def load(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """All stored runs: ``(runs, gaps)`` frames (see :class:`StudyResult`)."""
        import pyarrow.parquet as pq

        runs, gaps = [], []
        for p in sorted((self.root / "runs").glob("*/size=*/repeat=*.parquet")):
            t = pq.read_table(p)
            runs.append(json.loads(t.schema.metadata[b"fairbound.run"]))
            gaps.append(t.to_pandas())
        run_df = pd.DataFrame(runs)
        gap_df = pd.concat(gaps, ignore_index=True) if gaps else pd.DataFrame(
            columns=list(GAP_COLUMNS))
        return run_df, gap_df


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


# ------------------------------------------------------------------------------ one run


def _classes_of(y) -> tuple:
    return tuple(sorted(pd.unique(pd.Series(y).dropna()).tolist(), key=str))


def evaluate_run(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    groups: np.ndarray,
    *,
    classes: Sequence,
    metrics: Sequence[str] = PAPER_METRICS,
    comparison: str = "vs-reference",
    reference: Any = None,
    method: str = "auto",
    confidence_level: float = 0.95,
) -> tuple[dict, pd.DataFrame]:
    """Scores and per-class fairness gaps of one model's test predictions.

    Parameters
    ----------
    y_true, y_pred, groups : array-like
        Test labels, predictions and protected-attribute values.
    classes : sequence
        All classes of the study (a class absent from this test set gives NaN scores).
    metrics : sequence of str
        Audit metrics, computed for each class ``k`` one-vs-rest (``demographic_parity``:
        GP = P(y_hat = k | g); ``equal_opportunity``: TPR = P(y_hat = k | y = k, g);
        ``predictive_parity``: PP = P(y = k | y_hat = k, g)).
    comparison, reference, method, confidence_level
        Passed to :func:`fairbound.audit`; ``method`` defaults to the audit's own
        (``'auto'``), so a run's interval is the one ``fairbound audit`` gives.

    Returns
    -------
    scores : dict
        ``accuracy``, ``macro_f1`` and ``f1[<class>]`` for every class.
    gaps : pandas.DataFrame
        One row per metric, class and pair of groups: ``n_a``/``n_b`` (the denominators:
        group size for GP, positives for TPR, predicted positives for PP), ``count_a``/
        ``count_b`` (the numerators), ``rate_a``/``rate_b``, ``gap = rate_a - rate_b``
        with its single-run interval ``low``/``high``, the core's ``verdict`` and ``note``.

    Examples
    --------
    >>> y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    >>> p = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    >>> g = np.array(list("aaaabbbb"))
    >>> scores, gaps = evaluate_run(y, p, g, classes=[0, 1], metrics=["equal_opportunity"],
    ...                             reference="b")
    >>> round(scores["accuracy"], 3)
    0.75
    >>> gaps[["class", "n_a", "n_b", "rate_a", "rate_b", "gap"]].round(3).values.tolist()
    [['0', 2, 1, 1.0, 0.0, 1.0], ['1', 2, 3, 0.5, 1.0, -0.5]]
    """
    from sklearn.metrics import accuracy_score, f1_score

    from fairbound.audits import audit

    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    labels = list(classes)
    f1 = f1_score(y_true, y_pred, labels=labels, average=None, zero_division=np.nan)
    present = [c in set(y_true.tolist()) for c in labels]
    scores = {"accuracy": float(accuracy_score(y_true, y_pred)),
              "macro_f1": float(np.nanmean(np.where(present, f1, np.nan)))
              if any(present) else math.nan}
    for c, v, pr in zip(labels, f1, present, strict=True):
        scores[f"f1[{c}]"] = float(v) if pr else math.nan
    rows = []
    for k in labels:
        frame = {"g": np.asarray(groups).astype(str),
                 "y": (y_true == k).astype(np.int8), "p": (y_pred == k).astype(np.int8)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallGroupWarning)
            try:
                res = audit(frame, group="g", label="y", prediction="p", metrics=list(metrics),
                            comparison=comparison, reference=reference, method=method,
                            confidence_level=confidence_level,
                            # a study measures each run's own interval (how often one run
                            # would have given the opposite verdict), one class at a time
                            error_control="none")
            except FairboundError as exc:
                if "at least two are needed" in str(exc):
                    continue  # a tiny test set with one group: nothing to compare
                raise
        for c in res.comparisons:
            if c.component == "max":
                continue
            gap, lo, hi = c.rate_gap
            ca = np.nan if c.a is None else (c.a.n - c.a.count if not c.rate_is_cost
                                             else c.a.count)
            cb = np.nan if c.b is None else (c.b.n - c.b.count if not c.rate_is_cost
                                             else c.b.count)
            rows.append({
                "metric": c.metric, "rate": c.rate, "class": str(k),
                "group_a": str(c.group_a), "group_b": str(c.group_b),
                "n_a": int(c.a.n), "n_b": int(c.b.n), "count_a": ca, "count_b": cb,
                "rate_a": c.rate_a, "rate_b": c.rate_b, "gap": gap, "low": lo, "high": hi,
                "verdict": c.verdict, "note": c.note,
            })
    return scores, pd.DataFrame(rows)


def _execute(task: dict) -> tuple[dict, pd.DataFrame]:
    """Train and evaluate one run (runs in a worker)."""
    t0 = time.perf_counter()
    trainer: Trainer = task["trainer"]
    pred = trainer.fit_predict(task["train"], task["y_train"], task["test"], seed=task["seed"])
    pred = np.asarray(pred)
    if len(pred) != len(task["y_test"]):
        raise FairboundError(f"trainer {trainer.name!r} returned {len(pred)} predictions for "
                             f"{len(task['y_test'])} test rows", param="trainer")
    scores, gaps = evaluate_run(task["y_test"], pred, task["g_test"], **task["audit"])
    run = {"condition": task["condition"], "size": task["size"], "repeat": task["repeat"],
           "seed": task["seed"], "n_train": len(task["y_train"]),
           "n_test": len(task["y_test"]), **scores,
           "seconds": round(time.perf_counter() - t0, 4)}
    key = {"condition": task["condition"], "size": task["size"], "repeat": task["repeat"]}
    gaps = gaps.assign(**key) if len(gaps) else pd.DataFrame(columns=list(GAP_COLUMNS))
    return run, gaps[list(GAP_COLUMNS)]


# ------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class StudyResult:
    """All runs of a stability study.

    Attributes
    ----------
    config : StudyConfig
        The study's set-up.
    runs : pandas.DataFrame
        One row per run: ``condition``, ``size``, ``repeat``, ``seed``, ``n_train``,
        ``n_test``, ``accuracy``, ``macro_f1``, ``f1[<class>]``, ``seconds``.
    gaps : pandas.DataFrame
        One row per run, metric, class and pair of groups (columns of
        :func:`evaluate_run` plus ``condition``, ``size``, ``repeat``).
    store : pathlib.Path or None
        Where the runs are persisted.

    Examples
    --------
    >>> from fairbound.stability import TfidfLogisticTrainer, load_tweets
    >>> res = run_study(load_tweets(), label="label", group="dialect", reference="white",
    ...                 trainer=TfidfLogisticTrainer("text"), sizes=[600, 1200], n_repeats=2,
    ...                 metrics=["equal_opportunity"], progress=False)
    >>> res.summary()[["size", "class", "group_a", "n_runs"]].head(2).values.tolist()
    [[600, 'abusive', 'aa', 2], [600, 'abusive', 'asian', 2]]
    """

    config: StudyConfig
    runs: pd.DataFrame = field(repr=False)
    gaps: pd.DataFrame = field(repr=False)
    store: Path | None = None

    def to_frame(self) -> pd.DataFrame:
        """Return the gaps table (one row per run, metric, class and pair)."""
        return self.gaps.copy()

    def to_dict(self) -> dict:
        """Return configuration, runs and gaps as JSON-ready records."""
        return {"schema": "fairbound.stability/1", "config": self.config.to_dict(),
                "runs": json.loads(self.runs.to_json(orient="records")),
                "gaps": json.loads(self.gaps.to_json(orient="records"))}

    def summary(self, **kwargs) -> pd.DataFrame:
        """Per condition, size, metric, class and pair: see :func:`summarize_gaps`.

        ``min_per_group`` defaults to the study's own (``run_study(min_per_group=...)``).
        """
        from fairbound.stability.summary import summarize_gaps

        if kwargs.get("min_per_group") is None:
            kwargs["min_per_group"] = self.config.min_per_group
        return summarize_gaps(self.gaps, **kwargs)

    def filtered(self, min_per_group: int | None = None) -> pd.DataFrame:
        """The summary's filtered cells with their reason (see :func:`summarize_gaps`)."""
        s = self.summary(min_per_group=min_per_group)
        if s.empty or "filtered" not in s.columns:
            return s
        return s[s["filtered"]].reset_index(drop=True)

    def score_summary(self) -> pd.DataFrame:
        """Mean and SD of accuracy, macro-F1 and per-class F1 per condition and size."""
        from fairbound.stability.summary import summarize_scores

        return summarize_scores(self.runs)

    def compare_sizes(self, **kwargs) -> pd.DataFrame:
        """T-tests between sizes: see :func:`compare_sizes`."""
        from fairbound.stability.summary import compare_sizes

        return compare_sizes(self.gaps, **kwargs)

    def compare_conditions(self, **kwargs) -> pd.DataFrame:
        """T-tests between conditions: see :func:`compare_conditions`."""
        from fairbound.stability.summary import compare_conditions

        return compare_conditions(self.gaps, **kwargs)

    def write_report(self, directory: str | Path, **kwargs) -> Path:
        """Write tables, figures and ``report.md``: see :func:`write_report`."""
        from fairbound.report.stability_markdown import write_report
        from fairbound.stability.summary import _check_tests, check_min_per_group

        if "correction" in kwargs:  # checked before the report folder is made
            _check_tests("student", kwargs["correction"])
        check_min_per_group(kwargs.get("min_per_group"))
        return write_report(self, directory, **kwargs)


def check_trainer_columns(trainer, frames: dict) -> None:
    """The trainer's text or feature columns exist, before any run (or store) is made."""
    needed = []
    text = getattr(trainer, "text_column", None)
    if text is not None:
        needed.append(("text_column", text))
    needed += [("features", c) for c in (getattr(trainer, "columns", None) or ())]
    for what, df in frames.items():
        for param, col in needed:
            if col not in df.columns:
                where = "" if what == "data" else f" in {what}"
                raise FairboundError(f"{param}: no column {col!r}{where}; columns are "
                                     f"{list(df.columns)[:20]}", param=param)


def load_study(store: str | Path) -> StudyResult:
    """Load a study persisted by :func:`run_study`.

    Parameters
    ----------
    store : str or pathlib.Path
        The study folder.

    Returns
    -------
    StudyResult

    Examples
    --------
    >>> import tempfile
    >>> from fairbound.stability import TfidfLogisticTrainer, load_tweets
    >>> store = tempfile.mkdtemp()
    >>> _ = run_study(load_tweets(), label="label", group="dialect", sizes=[500],
    ...               n_repeats=1, trainer=TfidfLogisticTrainer("text"), store=store,
    ...               progress=False)
    >>> study = load_study(store)
    >>> len(study.runs), study.config.reference
    (1, 'aa')
    """
    rs = RunStore(store)
    if not rs.config_path.exists():
        raise FairboundError(f"store: {str(store)!r} holds no study (no study.json)",
                             param="store")
    config = StudyConfig.from_dict(json.loads(rs.config_path.read_text()))
    runs, gaps = rs.load()
    return _result(config, runs, gaps, rs.root)


def _result(config, runs: pd.DataFrame, gaps: pd.DataFrame, store) -> StudyResult:
    order = {c: i for i, c in enumerate(config.conditions)}

    def key(df):
        if df.empty:
            return df
        return (df.assign(_c=df["condition"].map(order).fillna(len(order)))
                .sort_values(["_c", "size", "repeat"], kind="stable")
                .drop(columns="_c").reset_index(drop=True))

    return StudyResult(config=config, runs=key(runs), gaps=key(gaps), store=store)


# ------------------------------------------------------------------------------ driver


@fill
def run_study(
    data: pd.DataFrame,
    *,
    label: str,
    group: str,
    trainer: Trainer,
    sizes: Sequence[int],
    n_repeats: int = 50,
    test_size: float = 0.3,
    test_data: pd.DataFrame | None = None,
    stratify: Sequence[str] | None = None,
    conditions: Mapping[str, Callable[[pd.DataFrame], pd.DataFrame] | None] | None = None,
    metrics: Sequence[str] = PAPER_METRICS,
    comparison: str = "vs-reference",
    reference: Any = None,
    method: str = "auto",
    confidence_level: float = 0.95,
    seed: int = 0,
    n_jobs: int = 1,
    backend: str = "loky",
    store: str | Path | None = None,
    progress: bool | None = None,
    max_runs: int | None = None,
    min_per_group: int | None = None,
) -> StudyResult:
    """Train many models on stratified resamples and audit each (Jourdan et al. 2023).

    Parameters
    ----------
    data : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        The pool: features, ``label`` and ``group`` columns.
    label : str
        Class column (binary or multi-class).
    group : str
        Protected-attribute column; rows where it is missing are dropped.
    trainer : Trainer
        E.g. :class:`TfidfLogisticTrainer`; must be picklable for ``n_jobs > 1``.
    sizes : sequence of int
        Sample sizes: train + test, or the training size when ``test_data`` is given.
    n_repeats : int
        Samples per size (paper: 50).
    test_size : float
        Test share of each sample (paper: 0.3); ignored with ``test_data``.
    test_data : pandas.DataFrame, optional
        A fixed test set used by every run instead of the 70/30 split.
    stratify : sequence of str, optional
        Strata columns; default ``(group, label)``.
    conditions : mapping, optional
        Name -> transform of the data (``None``: unchanged), e.g.
        ``{"original": None, "debiased": TextDebias("text")}``.  Every condition sees the
        same draws (a paired design).  Default ``{"original": None}``.
    metrics : sequence of str
        Audit metrics per class (default GP, TPR, PP).
    comparison, reference, method, confidence_level
        Passed to :func:`fairbound.audit` for every run (``method``: the audit's default,
        ``'auto'``).  With ``vs-reference`` and no ``reference``, the largest group of
        ``data`` is the reference of every run.  A stored study keeps the method it was run
        with: it loads, summarises and reports with it, and is resumed by passing it again
        (studies stored before the default became ``'auto'`` used ``'agresti-caffo'``).
    seed : int
        Study seed; each draw is seeded by ``(seed, size, repeat)``.
    n_jobs : int
        Parallel runs (``-1``: all cores).
    backend : {'loky', 'threading', 'sequential', 'ray', 'spark'}
        Joblib backend; ``ray`` needs ``ray`` and a running cluster, ``spark`` needs
        ``joblibspark``.
    store : str or pathlib.Path, optional
        Study folder: finished runs are persisted there and skipped when the study is run
        again (resume).
    progress : bool, optional
        Show a progress bar with ETA (default: when standard error is a terminal).
    max_runs : int, optional
        Stop after this many new runs (the rest is left for a later call).
    min_per_group : int, optional
        The paper's filter, kept with the study for its summaries and reports: a cell whose
        rate rests, in some run, on fewer than this many rows of either group is reported
        as filtered with the reason (see :func:`summarize_gaps`; the paper's "more than 10
        per gender" is ``11``).  ``None`` or 0: no filter.  Every run is still audited
        and stored.

    Returns
    -------
    StudyResult
        Every stored run of the study (earlier ones included).

    Notes
    -----
    Runs are reproducible: the same seed gives the same draws, the same models (trainers
    receive the draw's seed) and so the same study, whatever ``n_jobs`` is.

    {{references_jourdan2023}}

    Examples
    --------
    >>> from fairbound.stability import TfidfLogisticTrainer, load_tweets
    >>> tweets = load_tweets()
    >>> res = run_study(tweets, label="label", group="dialect", reference="white",
    ...                 trainer=TfidfLogisticTrainer("text"), sizes=[1000], n_repeats=2)
    >>> res.runs[["size", "repeat", "n_train", "n_test"]].values.tolist()
    [[1000, 0, 700, 300], [1000, 1, 700, 300]]
    """
    cfg, pool, test_pool, conds, backend = _check_study(
        data, label, group, trainer, sizes, n_repeats, test_size, test_data, stratify,
        conditions, metrics, comparison, reference, method, confidence_level, seed, n_jobs,
        backend, store, max_runs, min_per_group)
    # the trainer's text or feature columns, before study.json is written (as the CLI does)
    check_trainer_columns(trainer, {"data": pool} if test_pool is None else
                           {"data": pool, "test_data": test_pool})
    rs = RunStore(store) if store is not None else None
    done: set = set()
    if rs is not None:
        rs.check_config(cfg)
        rs.clean()
        done = rs.done()
    codes = pool.groupby(list(cfg.stratify), sort=True, dropna=False).ngroup().to_numpy()
    ts = None if test_pool is not None else cfg.test_size
    splits = [draw_split(codes, n, repeat=r, seed=cfg.seed, test_size=ts)
              for n in cfg.sizes for r in range(n_repeats)]
    todo = [(c, s) for c in cfg.conditions for s in splits
            if (c, s.size, s.repeat) not in done]
    if max_runs is not None:
        todo = todo[:max_runs]
    audit_kw = {"classes": list(cfg.classes), "metrics": list(cfg.metrics),
                "comparison": cfg.comparison, "reference": cfg.reference,
                "method": cfg.method, "confidence_level": cfg.confidence_level}
    transformed = {}
    for c in {c for c, _ in todo}:
        f = conds[c]
        transformed[c] = (pool if f is None else f(pool),
                          None if test_pool is None else
                          (test_pool if f is None else f(test_pool)))

    def tasks() -> Iterable[dict]:
        for c, s in todo:
            p, tp = transformed[c]
            test = p.iloc[s.test] if tp is None else tp
            train = p.iloc[s.train]
            yield {"condition": c, "size": s.size, "repeat": s.repeat, "seed": s.seed,
                   "trainer": trainer, "train": train,
                   "y_train": train[label].to_numpy(), "test": test,
                   "y_test": test[label].to_numpy(), "g_test": test[group].to_numpy(),
                   "audit": audit_kw}

    new_runs, new_gaps = [], []
    show = sys.stderr.isatty() if progress is None else bool(progress)
    with _Progress(len(todo), show) as bar:
        for run, gaps in _map(_execute, tasks(), n_jobs=n_jobs, backend=backend):
            if rs is not None:
                rs.write(run, gaps)
            new_runs.append(run)
            new_gaps.append(gaps)
            bar.advance()
    if rs is not None:
        return load_study(rs.root)
    runs = pd.DataFrame(new_runs)
    gaps = pd.concat(new_gaps, ignore_index=True) if new_gaps else pd.DataFrame(
        columns=list(GAP_COLUMNS))
    return _result(cfg, runs, gaps, None)


def _map(func, tasks: Iterable, *, n_jobs: int, backend: str):
    """Apply ``func`` to tasks, yielding results as they finish (any order)."""
    if n_jobs == 1 or backend == "sequential":
        for t in tasks:
            yield func(t)
        return
    import joblib

    if backend == "ray":
        from fairbound.errors import require

        require("ray.util.joblib", "ray").register_ray()
    elif backend == "spark":
        from fairbound.errors import require

        require("joblibspark", "joblibspark").register_spark()
    with joblib.parallel_config(backend=backend, n_jobs=n_jobs):
        yield from joblib.Parallel(return_as="generator_unordered")(
            joblib.delayed(func)(t) for t in tasks)


class _Progress:
    """A rich progress bar with ETA on standard error (or nothing)."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show, self._p = total, show and total > 0, None

    def __enter__(self):
        if self.show:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._p = Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                               console=Console(stderr=True))
            self._p.__enter__()
            self._task = self._p.add_task("runs", total=self.total)
        return self

    def advance(self) -> None:
        if self._p is not None:
            self._p.advance(self._task)

    def __exit__(self, *exc) -> None:
        if self._p is not None:
            self._p.__exit__(*exc)


def _as_pandas(obj, param: str) -> pd.DataFrame:
    """Accept pandas, or polars / pyarrow tables (anything with ``to_pandas``)."""
    if isinstance(obj, pd.DataFrame):
        return obj
    if hasattr(obj, "to_pandas"):
        return obj.to_pandas()
    raise FairboundError(f"{param} must be a pandas, polars or pyarrow table; got "
                         f"{type(obj).__name__}", param=param)


def _check_study(data, label, group, trainer, sizes, n_repeats, test_size, test_data,
                 stratify, conditions, metrics, comparison, reference, method,
                 confidence_level, seed, n_jobs, backend, store, max_runs, min_per_group=None):
    from fairbound.metrics import get_metric
    from fairbound.stability.summary import check_min_per_group
    from fairbound.stats.base import check_confidence_level, get_method

    min_per_group = check_min_per_group(min_per_group)

    data = _as_pandas(data, "data")
    if test_data is not None:
        test_data = _as_pandas(test_data, "test_data")
    for p, col in (("label", label), ("group", group)):
        if not isinstance(col, str) or col not in data.columns:
            raise FairboundError(f"{p}: no column {col!r}; columns are "
                                 f"{list(data.columns)[:20]}", param=p)
    if not hasattr(trainer, "fit_predict") or not isinstance(getattr(trainer, "name", None),
                                                              str):
        raise FairboundError(f"trainer must have a name and fit_predict(train, y_train, test, "
                             f"*, seed); got {type(trainer).__name__}", param="trainer")
    pool = data[data[group].notna() & data[label].notna()].reset_index(drop=True)
    if test_data is not None:
        for col in (label, group):
            if col not in test_data.columns:
                raise FairboundError(f"test_data: no column {col!r}", param="test_data")
        test_data = test_data[test_data[group].notna() & test_data[label].notna()]
        test_data = test_data.reset_index(drop=True)
    sizes = check_sizes(sizes, len(pool))
    check_int(n_repeats, "n_repeats", low=1)
    if test_data is None and not (isinstance(test_size, float | int) and 0 < test_size < 1):
        raise FairboundError(f"test_size must be in (0, 1); got {test_size!r}",
                             param="test_size")
    stratify = (group, label) if stratify is None else tuple(
        [stratify] if isinstance(stratify, str) else stratify)
    for col in stratify:
        if col not in pool.columns:
            raise FairboundError(f"stratify: no column {col!r}", param="stratify")
    conditions = {"original": None} if conditions is None else dict(conditions)
    if not conditions:
        raise FairboundError("conditions must name at least one condition", param="conditions")
    for name, f in conditions.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise FairboundError(f"conditions: names must be letters, digits, '_', '.', "
                                 f"'+' or '-'; got {name!r}", param="conditions")
        if f is not None and not callable(f):
            raise FairboundError(f"conditions: {name!r} must map to a callable or None; "
                                 f"got {type(f).__name__}", param="conditions")
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    metric_names = tuple(get_metric(m).name for m in metrics)
    comparison = check_choice(comparison, ("pairwise", "vs-rest", "vs-reference"),
                              "comparison", sep="-")
    groups = set(pool[group].astype(str))
    if reference is not None and str(reference) not in groups:
        raise FairboundError(f"reference: group {reference!r} not in column {group!r}; "
                             f"groups are {sorted(groups)[:20]}", param="reference")
    if reference is not None:
        reference = str(reference)
    elif comparison == "vs-reference":
        # fixed once for the study (the largest group of the pool), so that every run
        # compares the same pairs even when a test set's largest group differs
        counts = pool[group].astype(str).value_counts()
        reference = str(counts.index[counts.to_numpy() == counts.max()].min())
    m = get_method(method).name
    rho = check_confidence_level(confidence_level)
    check_seed(seed)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise FairboundError(f"n_jobs must be a positive integer or -1; got {n_jobs!r}",
                             param="n_jobs")
    check_choice(backend, BACKENDS, "backend")
    if max_runs is not None:
        check_int(max_runs, "max_runs", low=0)
    classes = tuple(str(c) for c in _classes_of(pool[label]))
    if len(classes) < 2:
        raise FairboundError(f"label: column {label!r} has fewer than two classes "
                             f"({list(classes)})", param="label")
    # labels become strings so that every run and the store agree on their type
    pool = pool.assign(**{label: pool[label].astype(str)})
    if test_data is not None:
        test_data = test_data.assign(**{label: test_data[label].astype(str)})
    # cell sizes are the same in every repeat of a size, so one draw tells whether the
    # smallest training samples hold every class (a classifier needs at least two)
    codes = pool.groupby(list(stratify), sort=True, dropna=False).ngroup().to_numpy()
    smallest = min(sizes)
    s0 = draw_split(codes, smallest, seed=int(seed),
                    test_size=None if test_data is not None else float(test_size))
    seen = pool[label].iloc[s0.train].nunique()
    if seen < 2:
        raise FairboundError(
            f"sizes: a training sample of size {smallest} holds a single class of "
            f"{label!r}; use larger sizes", param="sizes")
    cfg = StudyConfig(
        label=label, group=group, stratify=tuple(stratify),
        test_size=None if test_data is not None else float(test_size), seed=int(seed),
        trainer=repr(trainer), conditions=tuple(conditions), metrics=metric_names,
        comparison=comparison, reference=reference, method=m, confidence_level=rho,
        classes=classes, data_fingerprint=_fingerprint(pool, test_data), sizes=sizes,
        n_repeats=int(n_repeats), min_per_group=min_per_group,
        class_counts=tuple((str(k), str(g), int(n)) for (k, g), n in
                           pool.groupby([pool[label].astype(str), pool[group].astype(str)],
                                        sort=True).size().items()),
        transforms=tuple((name, _fingerprint(f(pool.head(TRANSFORM_PROBE).copy()), None))
                         for name, f in conditions.items() if f is not None),
    )
    return cfg, pool, test_data, conditions, backend
