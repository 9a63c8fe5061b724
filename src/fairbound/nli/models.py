"""Model adapters: NLI classifiers and fill-mask models.

An NLI model is any object with a ``name`` and ``predict(premises, hypotheses)`` returning one
label per pair (0 = contradiction, 1 = neutral, 2 = entailment); a fill-mask model has a
``name`` and ``fill(texts, top_k)`` returning the ``top_k`` candidate words for the one
``<MASK>`` of every text.  Adapters: Hugging Face ``transformers`` models loaded from a local
folder (``trust_remote_code`` is never enabled and nothing is downloaded), any Python
callable, and a predictions file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd

from fairbound._docs import fill
from fairbound.errors import FairboundError, require
from fairbound.nli.labels import parse_labels
from fairbound.nli.templates import MASK

__all__ = [
    "CallableFillMask",
    "CallableNLI",
    "FillMaskModel",
    "NLIModel",
    "PredictionsFileNLI",
    "TransformersFillMask",
    "TransformersNLI",
    "load_fill_mask",
    "load_nli_model",
    "parse_label_map",
    "read_table",
    "resolve_label_order",
]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# A candidate word: letters, optionally with inner apostrophes or hyphens.  Sub-word pieces
# ("##ing"), punctuation and special tokens cannot fill a whole-word slot.
_WORD = re.compile(r"^[^\W\d_]+(?:['-][^\W\d_]+)*$")
# numpydoc parameters the transformers adapters and the loaders share (``_docs.fill``)
_PIECES = {
    "folder_name": (
        "name : str, optional\n"
        "    Model name; default: the folder name."
    ),
    "device": (
        "device : str\n"
        "    ``\"auto\"`` (GPU when present), ``\"cpu\"``, ``\"cuda\"``, ..."
    ),
    "loader_options": (
        "name : str, optional\n"
        "    Model name (required for callables).\n"
        "device : str\n"
        "    For transformers models.\n"
        "batch_size : int\n"
        "    For transformers models."
    ),
}


@runtime_checkable
class NLIModel(Protocol):
    """Protocol of an NLI model."""

    name: str

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Return one label code (0/1/2) per (premise, hypothesis) pair."""


@runtime_checkable
class FillMaskModel(Protocol):
    """Protocol of a fill-mask model."""

    name: str

    def fill(self, texts: Sequence[str], top_k: int) -> list[list[str]]:
        """Return up to ``top_k`` candidate words, best first, for the ``<MASK>`` of each text."""


def check_model_name(name: str, *, param: str = "name") -> str:
    """Validate a model name (used in file and column names).

    Parameters
    ----------
    name : str
        Letters, digits, ``_``, ``.`` and ``-``.
    param : str
        Names the input in error messages.

    Returns
    -------
    str
        The name.

    Examples
    --------
    >>> check_model_name("roberta-large-mnli")
    'roberta-large-mnli'
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise FairboundError(f"{param}: a model name may hold letters, digits, '_', '.', '-', "
                             f"got {name!r}", param=param)
    return name


def _device(device: str):
    torch = require("torch", "nlp")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        return torch.device(device)
    except RuntimeError as exc:
        raise FairboundError(f"device: unknown device {device!r} (use 'auto', 'cpu', 'cuda')",
                             param="device") from exc


def _local_dir(path, param: str) -> Path:
    p = Path(path)
    if not (p / "config.json").is_file():
        raise FairboundError(f"{param}: {str(p)!r} is not a local model folder (no config.json); "
                             "models are loaded from disk only", param=param)
    return p


def _chunks(n: int, size: int):
    for start in range(0, n, size):
        yield slice(start, min(n, start + size))


_EXAMPLE_MAP = "LABEL_0=contradiction,LABEL_1=neutral,LABEL_2=entailment"
_GENERIC = re.compile(r"^label_?\d+$", re.IGNORECASE)


def parse_label_map(text: str | Mapping | None) -> dict | None:
    """Parse a label map given as text (the CLI's ``--label-map``).

    Parameters
    ----------
    text : str, mapping or None
        ``"OUTPUT=LABEL,OUTPUT=LABEL,..."`` (e.g. ``"LABEL_0=contradiction,LABEL_1=neutral,
        LABEL_2=entailment"`` or ``"0=e,1=n,2=c"``) or a JSON object; a mapping or ``None`` is
        returned as is.

    Returns
    -------
    dict or None
        Output -> label name, to pass as ``label_map``.

    Raises
    ------
    FairboundError
        Text that is neither form, or an output given twice (the message names ``label_map``).

    Examples
    --------
    >>> parse_label_map("LABEL_0=contradiction, LABEL_1=neutral, LABEL_2=entailment")
    {'LABEL_0': 'contradiction', 'LABEL_1': 'neutral', 'LABEL_2': 'entailment'}
    """
    if text is None or isinstance(text, Mapping):
        return None if text is None else dict(text)
    if not isinstance(text, str):
        raise FairboundError(f"label_map: expected text such as {_EXAMPLE_MAP!r} or a mapping, "
                             f"got {type(text).__name__}", param="label_map")
    raw = text.strip()
    if raw.startswith("{"):
        import json

        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise FairboundError(f"label_map: {raw!r:.60} is not valid JSON ({exc.msg})",
                                 param="label_map") from exc
        if not isinstance(data, dict):
            raise FairboundError("label_map: the JSON must be an object OUTPUT -> LABEL",
                                 param="label_map")
        return {str(k): str(v) for k, v in data.items()}
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise FairboundError(f"label_map: cannot read {part!r}; write OUTPUT=LABEL pairs "
                                 f"separated by commas, e.g. {_EXAMPLE_MAP}", param="label_map")
        if key.strip() in out:
            raise FairboundError(f"label_map: output {key.strip()!r} is given twice",
                                 param="label_map")
        out[key.strip()] = value.strip()
    if not out:
        raise FairboundError(f"label_map: empty; e.g. {_EXAMPLE_MAP}", param="label_map")
    return out


def resolve_label_order(id2label: Mapping, n_outputs: int, label_map=None, *,
                        model: str = "model") -> np.ndarray:
    """Map a classifier's output indices to BBNLI label codes.

    Parameters
    ----------
    id2label : mapping
        The config's output index -> name (``config.id2label``).
    n_outputs : int
        Number of outputs (``config.num_labels``); must be 3.
    label_map : mapping or str, optional
        Output -> label name, overriding ``id2label``; outputs are indices (int or digit
        strings) or names of ``id2label`` (``"LABEL_0"``).  Text is read by
        :func:`parse_label_map`.
    model : str
        Names the model in error messages.

    Returns
    -------
    numpy.ndarray of int8
        ``order[i]`` is the code (0 contradiction, 1 neutral, 2 entailment) of output ``i``.

    Raises
    ------
    FairboundError
        One line naming ``label_map``: a map that does not give the three outputs the three
        labels once each, an unknown output or label, a config with only ``LABEL_k`` names and
        no map (the message gives an example ``--label-map``), or a model without 3 outputs.

    Examples
    --------
    >>> resolve_label_order({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, 3,
    ...                     {"LABEL_0": "entailment", "LABEL_1": "neutral",
    ...                      "LABEL_2": "contradiction"}).tolist()
    [2, 1, 0]
    """
    id2label = {int(k): str(v) for k, v in dict(id2label).items()}
    if n_outputs != 3:
        raise FairboundError(f"model {model}: an NLI classifier needs 3 outputs (contradiction, "
                             f"neutral, entailment), this one has {n_outputs}",
                             param="label_map")
    if label_map is None:
        names = [id2label.get(i, f"LABEL_{i}") for i in range(n_outputs)]
        if all(_GENERIC.match(n) for n in names):
            raise FairboundError(
                f"model {model}: cannot read the NLI label order from id2label: the config "
                f"names its outputs only {', '.join(names)}, which does not say which is "
                f"entailment; pass label_map (CLI: --label-map {_EXAMPLE_MAP}, in the order "
                "given by the model card)", param="label_map")
        try:
            order = parse_labels(names, param="id2label")
        except FairboundError as exc:
            raise FairboundError(f"model {model}: cannot read the NLI label order from id2label "
                                 f"{id2label}; pass label_map (CLI: --label-map "
                                 f"{_EXAMPLE_MAP})", param="label_map") from exc
        if sorted(order.tolist()) != [0, 1, 2]:
            raise FairboundError(f"model {model}: needs the three labels contradiction, "
                                 f"neutral, entailment, config has {id2label}; pass label_map",
                                 param="label_map")
        return order
    if isinstance(label_map, str):
        label_map = parse_label_map(label_map)
    if not isinstance(label_map, Mapping):
        raise FairboundError(f"label_map: expected a mapping OUTPUT -> LABEL, got "
                             f"{type(label_map).__name__}", param="label_map")
    by_name = {v: k for k, v in id2label.items()}
    by_name.update({v.lower(): k for k, v in id2label.items()})
    resolved: dict[int, int] = {}
    for key, value in label_map.items():
        if isinstance(key, int | np.integer) and not isinstance(key, bool):
            idx = int(key)
        elif isinstance(key, str) and key.strip().isdigit():
            idx = int(key.strip())
        elif isinstance(key, str) and (key.strip() in by_name or key.strip().lower() in by_name):
            idx = by_name.get(key.strip(), by_name.get(key.strip().lower()))
        else:
            raise FairboundError(f"label_map: unknown output {key!r}; use 0..{n_outputs - 1} or "
                                 f"the config's names {', '.join(id2label.values())}",
                                 param="label_map")
        if not 0 <= idx < n_outputs:
            raise FairboundError(f"label_map: output {key!r} is out of range 0..{n_outputs - 1}",
                                 param="label_map")
        if idx in resolved:
            raise FairboundError(f"label_map: output {idx} is given twice", param="label_map")
        resolved[idx] = int(parse_labels([value], param="label_map")[0])
    missing_out = [i for i in range(n_outputs) if i not in resolved]
    have = sorted(resolved.values())
    if missing_out or have != [0, 1, 2]:
        from fairbound.nli.templates import LABELS

        lacking = [LABELS[c] for c in (0, 1, 2) if c not in have]
        twice = sorted({LABELS[c] for c in have if have.count(c) > 1})
        why = []
        if missing_out:
            why.append("no label for output(s) " + ", ".join(
                f"{i} ({id2label.get(i, f'LABEL_{i}')})" for i in missing_out))
        if lacking:
            why.append("label(s) " + ", ".join(lacking) + " missing")
        if twice:
            why.append("label(s) " + ", ".join(twice) + " given twice")
        raise FairboundError(f"label_map: must give the model's 3 outputs the labels "
                             f"contradiction, neutral, entailment once each; {dict(label_map)} "
                             f"has {'; '.join(why)} (e.g. {_EXAMPLE_MAP})", param="label_map")
    return np.array([resolved[i] for i in range(n_outputs)], dtype=np.int8)


def _open_local(model, path, param: str, name, batch_size, device):
    """Set the ``path``, ``name``, ``batch_size``, ``device`` and ``tokenizer`` of a local model.

    Returns the ``transformers`` module and the keywords every ``from_pretrained`` call of
    the folder takes (local files only, no remote code).  A bad path is named before a
    missing extra.
    """
    model.path = _local_dir(path, param)
    transformers = require("transformers", "nlp")
    model.name = check_model_name(name or model.path.name)
    model.batch_size = int(batch_size)
    model.device = _device(device)
    kw = {"local_files_only": True, "trust_remote_code": False}
    model.tokenizer = transformers.AutoTokenizer.from_pretrained(model.path, **kw)
    return transformers, kw


@fill(**_PIECES)
class TransformersNLI:
    """A Hugging Face sequence classifier fine-tuned for NLI, loaded from a local folder.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder with ``config.json``, weights and tokenizer.
    {{folder_name}}
    batch_size : int
        Pairs per forward pass.
    {{device}}
    max_length : int
        Truncation length in tokens.
    label_map : mapping or str, optional
        Output -> label name, overriding the config's ``id2label`` (needed when it only says
        ``LABEL_0`` ...).  Outputs are given as indices (``0``, ``"0"``) or by the config's
        names (``"LABEL_0"``); a string ``"LABEL_0=contradiction,LABEL_1=neutral,..."`` is
        parsed by :func:`parse_label_map`.  See :func:`resolve_label_order`.

    Notes
    -----
    The label order is read from ``config.id2label`` and mapped by name, so models trained with
    MNLI's order (entailment, neutral, contradiction) and others are handled alike.  A config
    that names its outputs only ``LABEL_0``, ``LABEL_1``, ``LABEL_2`` does not say which is
    which: loading it without ``label_map`` is an error that says so.
    ``trust_remote_code`` is never enabled; nothing is downloaded.

    Examples
    --------
    >>> model = TransformersNLI("path/to/roberta-large-mnli")  # doctest: +SKIP
    >>> model.predict(["A man sleeps."], ["A person rests."])  # doctest: +SKIP
    array([2], dtype=int8)
    """

    def __init__(self, path, *, name: str | None = None, batch_size: int = 32,
                 device: str = "auto", max_length: int = 256,
                 label_map: Mapping | str | None = None) -> None:
        transformers, kw = _open_local(self, path, "model", name, batch_size, device)
        self.max_length = int(max_length)
        self.model = transformers.AutoModelForSequenceClassification.from_pretrained(
            self.path, **kw).to(self.device).eval()
        self.order = resolve_label_order(dict(self.model.config.id2label),
                                         int(self.model.config.num_labels), label_map,
                                         model=self.name)

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Predict one label code per (premise, hypothesis) pair.

        Parameters
        ----------
        premises, hypotheses : sequence of str
            Aligned texts.

        Returns
        -------
        numpy.ndarray of int8
            0 = contradiction, 1 = neutral, 2 = entailment.
        """
        torch = require("torch", "nlp")
        premises, hypotheses = list(premises), list(hypotheses)
        out = np.empty(len(premises), dtype=np.int8)
        with torch.inference_mode():
            for sl in _chunks(len(premises), self.batch_size):
                enc = self.tokenizer(premises[sl], hypotheses[sl], return_tensors="pt",
                                     padding=True, truncation=True, max_length=self.max_length)
                logits = self.model(**enc.to(self.device)).logits
                out[sl] = self.order[logits.argmax(dim=-1).cpu().numpy()]
        return out


@fill(**_PIECES)
class TransformersFillMask:
    """A Hugging Face masked language model, loaded from a local folder.

    Parameters
    ----------
    path : str or pathlib.Path
        Folder with ``config.json``, weights and tokenizer (the BBNLI-next paper used
        ``bert-large-cased-whole-word-masking``).
    {{folder_name}}
    batch_size : int
        Texts per forward pass.
    {{device}}

    Notes
    -----
    Only whole words are candidates: sub-word pieces (``##ing``), punctuation, digits and
    special tokens are excluded before the top ``k`` are taken.  Ties are broken by token id,
    so the result is deterministic.

    Examples
    --------
    >>> fm = TransformersFillMask("path/to/bert-large-cased-whole-word-masking")  # doctest: +SKIP
    >>> fm.fill(["Women are <MASK> at math."], top_k=3)  # doctest: +SKIP
    [['good', 'bad', 'better']]
    """

    def __init__(self, path, *, name: str | None = None, batch_size: int = 32,
                 device: str = "auto") -> None:
        transformers, kw = _open_local(self, path, "fill_model", name, batch_size, device)
        if self.tokenizer.mask_token is None:
            raise FairboundError(f"fill_model {self.name}: the tokenizer has no mask token",
                                 param="fill_model")
        self.model = transformers.AutoModelForMaskedLM.from_pretrained(
            self.path, **kw).to(self.device).eval()
        vocab = [str(t) if t is not None else "" for t in
                 self.tokenizer.convert_ids_to_tokens(list(range(len(self.tokenizer))))]
        special = set(self.tokenizer.all_special_tokens)
        # Byte-level BPE and SentencePiece vocabularies mark the start of a word (Ġ, ▁);
        # there, only word-initial tokens are whole-word candidates.
        marked = any(t[:1] in ("Ġ", "▁") for t in vocab)
        self.words = [t.lstrip("Ġ▁") for t in vocab]
        self.valid = np.array([
            bool(t) and t not in special and bool(_WORD.match(w))
            and (not marked or t[:1] in ("Ġ", "▁"))
            for t, w in zip(vocab, self.words, strict=True)])

    def fill(self, texts: Sequence[str], top_k: int) -> list[list[str]]:
        """Return the ``top_k`` whole-word candidates for the ``<MASK>`` of every text.

        Parameters
        ----------
        texts : sequence of str
            Texts with exactly one ``<MASK>``.
        top_k : int
            Candidates per text.

        Returns
        -------
        list of list of str
            Best first.
        """
        torch = require("torch", "nlp")
        texts = [t.replace(MASK, self.tokenizer.mask_token) for t in texts]
        out: list[list[str]] = []
        n_vocab = int(self.valid.size)
        with torch.inference_mode():
            for sl in _chunks(len(texts), self.batch_size):
                enc = self.tokenizer(texts[sl], return_tensors="pt", padding=True,
                                     truncation=True)
                logits = self.model(**enc.to(self.device)).logits[..., :n_vocab]
                pos = enc["input_ids"] == self.tokenizer.mask_token_id
                if not bool((pos.sum(dim=1) == 1).all()):
                    raise FairboundError("texts: every text must hold exactly one mask token "
                                         "after tokenisation", param="texts")
                scores = logits[pos].float().cpu().numpy()
                scores[:, ~self.valid[: scores.shape[1]]] = -np.inf
                # Stable sort on -score: ties broken by token id.
                order = np.argsort(-scores, axis=1, kind="stable")[:, :top_k]
                for row, idx in zip(scores, order, strict=True):
                    out.append([self.words[i] for i in idx if np.isfinite(row[i])])
        return out


def _wrap_callable(model, func, param: str, name) -> None:
    """Set the ``func`` and ``name`` of a callable adapter (a one-line error for ``param``)."""
    if not callable(func):
        raise FairboundError(f"{param}: expected a callable, got {type(func).__name__}",
                             param=param)
    model.func = func
    model.name = check_model_name(name)


class CallableNLI:
    """Wrap a Python callable ``f(premises, hypotheses) -> labels`` as an NLI model.

    Parameters
    ----------
    func : callable
        Returns one label (name or 0/1/2) per pair.
    name : str
        Model name.

    Examples
    --------
    >>> m = CallableNLI(lambda p, h: ["neutral"] * len(p), name="always-neutral")
    >>> m.predict(["a"], ["b"]).tolist()
    [1]
    """

    def __init__(self, func: Callable, *, name: str) -> None:
        _wrap_callable(self, func, "model", name)

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Call the function and parse its labels."""
        premises = list(premises)
        labels = parse_labels(self.func(premises, list(hypotheses)), param=f"model {self.name}")
        if labels.size != len(premises):
            raise FairboundError(f"model {self.name}: returned {labels.size} labels for "
                                 f"{len(premises)} pairs", param="model")
        return labels


class CallableFillMask:
    """Wrap a Python callable ``f(texts, top_k) -> list of candidate lists`` as a fill-mask model.

    Parameters
    ----------
    func : callable
        Returns, for each text, its candidate words best first.
    name : str
        Model name.

    Examples
    --------
    >>> fm = CallableFillMask(lambda texts, k: [["good", "bad"][:k] for _ in texts], name="toy")
    >>> fm.fill(["They are <MASK>."], top_k=1)
    [['good']]
    """

    def __init__(self, func: Callable, *, name: str) -> None:
        _wrap_callable(self, func, "fill_model", name)

    def fill(self, texts: Sequence[str], top_k: int) -> list[list[str]]:
        """Call the function and check its output."""
        texts = list(texts)
        out = [[str(w) for w in cands][:top_k] for cands in self.func(texts, top_k)]
        if len(out) != len(texts):
            raise FairboundError(f"fill_model {self.name}: returned {len(out)} candidate lists "
                                 f"for {len(texts)} texts", param="fill_model")
        return out


def read_table(path, *, param: str) -> pd.DataFrame:
    """Read a CSV, TSV, Parquet, JSON-lines or JSON file into a DataFrame.

    Parameters
    ----------
    path : str or pathlib.Path
        The file; the format follows the suffix.
    param : str
        Names the input in error messages.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    p = Path(path)
    if not p.is_file():
        raise FairboundError(f"{param}: file {str(p)!r} does not exist", param=param)
    suffix = p.suffix.lower()
    try:
        if suffix == ".parquet":
            return pd.read_parquet(p)
        if suffix == ".jsonl":
            return pd.read_json(p, lines=True, dtype=False)
        if suffix == ".json":
            return pd.read_json(p, dtype=False)
        if suffix in (".tsv", ".tab", ".csv"):
            from fairbound._io import unescape_frame

            # fairbound's own CSVs escape formula-like text (fairbound._io.csv_text)
            return unescape_frame(pd.read_csv(p, sep="," if suffix == ".csv" else "\t",
                                              keep_default_na=False, na_values=[""]))
    except (ValueError, OSError) as exc:
        raise FairboundError(f"{param}: cannot read {str(p)!r}: {str(exc).splitlines()[0]}",
                             param=param) from exc
    raise FairboundError(f"{param}: unsupported file type {suffix!r} (use .csv, .tsv, .parquet, "
                         ".jsonl or .json)", param=param)


class PredictionsFileNLI:
    """An NLI "model" that looks its predictions up in a file.

    Parameters
    ----------
    path : str or pathlib.Path
        Table with columns ``premise``, ``hypothesis`` and ``prediction``.
    name : str, optional
        Model name; default: the file name without suffix.

    Examples
    --------
    >>> m = PredictionsFileNLI("predictions.csv")  # doctest: +SKIP
    """

    def __init__(self, path, *, name: str | None = None) -> None:
        table = read_table(path, param="predictions")
        need = {"premise", "hypothesis", "prediction"}
        if not need <= set(table.columns):
            raise FairboundError(f"predictions: {str(path)!r} needs columns premise, hypothesis, "
                                 f"prediction; got {list(table.columns)[:6]}",
                                 param="predictions")
        self.name = check_model_name(name or Path(path).stem)
        codes = parse_labels(table["prediction"], param=f"predictions {Path(path).name}")
        key = pd.MultiIndex.from_arrays([table["premise"].astype(str),
                                         table["hypothesis"].astype(str)])
        self.lookup = pd.Series(codes, index=key)
        self.lookup = self.lookup[~self.lookup.index.duplicated()]

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Look up every pair; a pair absent from the file is an error."""
        key = pd.MultiIndex.from_arrays([list(map(str, premises)), list(map(str, hypotheses))])
        found = key.isin(self.lookup.index)
        if not found.all():
            miss = key[~found][0]
            raise FairboundError(f"predictions {self.name}: not aligned with samples: "
                                 f"{int((~found).sum())} pair(s) missing, e.g. hypothesis "
                                 f"{miss[1]!r}", param="predictions")
        return self.lookup.loc[key].to_numpy(dtype=np.int8)


def _callable_name(func, default: str) -> str:
    name = getattr(func, "__name__", "")
    return name if _NAME.match(name or "") else default


@fill(**_PIECES)
def load_nli_model(spec, *, name: str | None = None, device: str = "auto",
                   batch_size: int = 32, label_map: Mapping | str | None = None) -> NLIModel:
    """Turn a model specification into an NLI model.

    Parameters
    ----------
    spec : NLIModel, callable, or path
        An object with ``predict``; a callable ``f(premises, hypotheses)``; a local
        transformers folder; or a predictions file (``premise``, ``hypothesis``,
        ``prediction``).
    {{loader_options}}
    label_map : mapping or str, optional
        For transformers models: output -> label name (``{"LABEL_0": "contradiction", ...}``
        or ``"LABEL_0=contradiction,LABEL_1=neutral,LABEL_2=entailment"``), overriding the
        config's ``id2label``; see :func:`resolve_label_order`.  An error for other specs.

    Returns
    -------
    NLIModel
        The adapter.

    Examples
    --------
    >>> load_nli_model(lambda p, h: [1] * len(p), name="neutral").name
    'neutral'
    """
    label_map = parse_label_map(label_map)
    if isinstance(spec, NLIModel) and not isinstance(spec, type):
        _no_label_map(label_map, "an NLI model object")
        return spec
    if callable(spec) and not isinstance(spec, str | Path):
        _no_label_map(label_map, "a callable")
        return CallableNLI(spec, name=name or _callable_name(spec, "model"))
    p = Path(spec)
    if p.is_dir():
        return TransformersNLI(p, name=name, device=device, batch_size=batch_size,
                               label_map=label_map)
    if p.is_file():
        _no_label_map(label_map, "a predictions file")
        return PredictionsFileNLI(p, name=name)
    raise FairboundError(f"model: {str(spec)!r} is neither a local model folder nor a "
                         "predictions file", param="model")


def _no_label_map(label_map, what: str) -> None:
    if label_map is not None:
        raise FairboundError(f"label_map: applies to local transformers model folders only, "
                             f"not to {what}", param="label_map")


@fill(**_PIECES)
def load_fill_mask(spec, *, name: str | None = None, device: str = "auto",
                   batch_size: int = 32) -> FillMaskModel:
    """Turn a specification into a fill-mask model.

    Parameters
    ----------
    spec : FillMaskModel, callable, or path
        An object with ``fill``; a callable ``f(texts, top_k)``; a local transformers folder.
    {{loader_options}}

    Returns
    -------
    FillMaskModel
        The adapter.

    Examples
    --------
    >>> load_fill_mask(lambda t, k: [["x"]] * len(t), name="toy").name
    'toy'
    """
    if isinstance(spec, FillMaskModel) and not isinstance(spec, type):
        return spec
    if callable(spec) and not isinstance(spec, str | Path):
        return CallableFillMask(spec, name=name or _callable_name(spec, "fill"))
    p = Path(spec)
    if p.is_dir():
        return TransformersFillMask(p, name=name, device=device, batch_size=batch_size)
    raise FairboundError(f"fill_model: {str(spec)!r} is not a local model folder",
                         param="fill_model")
