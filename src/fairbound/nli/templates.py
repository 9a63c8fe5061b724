"""BBNLI template files: loading, validation and slot rendering.

A BBNLI template file (Akyürek et al. 2022) describes one *subtopic*: premise templates, test
hypotheses with their own labels, stereotype hypotheses (true label neutral, biased label
entailment), the question form of every hypothesis, filler lists for the ``{{WORDk}}`` slots
and the group pair (``GROUP1``, ``GROUP2``).  A *masked* template file (BBNLI-next,
Baldini et al. 2023) names a BBNLI template as its ``base`` and lists hypothesis templates with
one ``<MASK>`` each.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from fairbound.errors import FairboundError

__all__ = [
    "LABELS",
    "MASK",
    "Template",
    "load_masked_templates",
    "load_templates",
    "render",
    "shipped_template_dir",
    "slots_of",
]

#: Label names in BBNLI order (``answer_choices``): 0, 1, 2.
LABELS: tuple[str, str, str] = ("contradiction", "neutral", "entailment")
#: The mask marker of masked hypothesis templates.
MASK = "<MASK>"

_SLOT = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_GROUPS = ("GROUP1", "GROUP2")


@dataclass(frozen=True)
class Template:
    """One BBNLI subtopic.

    Parameters
    ----------
    subtopic : str
        Identifier (the file name without ``.json``).
    domain : str
        ``gender``, ``race``, ``religion`` ...
    name : str
        Human-readable name from the file.
    group1, group2 : str
        The group pair as given (``GROUP1``, ``GROUP2``).
    premises : tuple of str
        Premise templates.
    references : tuple of str
        Source of each premise (empty string when the file gives none).
    test_hypotheses : tuple of (str, int, str)
        ``(hypothesis, label, question)`` of every test hypothesis.
    stereotype_hypotheses : tuple of (str, int, int, str)
        ``(hypothesis, true_label, biased_label, question)`` of every stereotype hypothesis.
    fillers : tuple of (str, tuple of str)
        Filler lists of the slots, in file order.
    source : str
        Where the template was read from.
    """

    subtopic: str
    domain: str
    name: str
    group1: str
    group2: str
    premises: tuple[str, ...]
    references: tuple[str, ...]
    test_hypotheses: tuple[tuple[str, int, str], ...]
    stereotype_hypotheses: tuple[tuple[str, int, int, str], ...]
    fillers: tuple[tuple[str, tuple[str, ...]], ...]
    source: str = ""

    @property
    def filler_dict(self) -> dict[str, tuple[str, ...]]:
        """The filler lists as a dict, slot name -> values."""
        return dict(self.fillers)


def slots_of(text: str, *, where: str = "template") -> list[str]:
    """Slot names used in ``text``, in order of first use.

    Parameters
    ----------
    text : str
        A template string with ``{{NAME}}`` slots.
    where : str
        Names the text in error messages.

    Returns
    -------
    list of str
        The slot names.

    Raises
    ------
    FairboundError
        When braces are unbalanced (``{{WORD1}``, ``WORD1}}`` ...).

    Examples
    --------
    >>> slots_of("{{GROUP2}} are less {{WORD2}} for jobs in {{MJOB}}.")
    ['GROUP2', 'WORD2', 'MJOB']
    """
    rest = _SLOT.sub("", text)
    if "{{" in rest or "}}" in rest or "{" in rest or "}" in rest:
        i = max(rest.find("{"), rest.find("}"))
        bad = rest[max(0, i - 20) : i + 20]
        raise FairboundError(
            f"{where}: unbalanced slot near {bad!r} in {text!r}; slots are written {{{{NAME}}}}",
            param="template",
        )
    seen: dict[str, None] = {}
    for m in _SLOT.finditer(text):
        seen.setdefault(m.group(1), None)
    return list(seen)


def render(text: str, values: Mapping[str, str]) -> str:
    """Fill the ``{{NAME}}`` slots of ``text``; a slot without a value renders as empty text.

    Parameters
    ----------
    text : str
        Template string.
    values : mapping
        Slot name -> filler.

    Returns
    -------
    str
        The rendered text.

    Examples
    --------
    >>> render("{{GROUP1}} rather than {{GROUP2}}", {"GROUP1": "men", "GROUP2": "women"})
    'men rather than women'
    """
    return _SLOT.sub(lambda m: str(values.get(m.group(1), "")), text)


def shipped_template_dir() -> Path:
    """Return the folder of the BBNLI templates shipped with fairbound.

    Returns
    -------
    pathlib.Path
        ``fairbound/data/bbnli`` (holds ``gender/``, ``race/``, ``religion/``, ``masked/``).
    """
    return Path(str(resources.files("fairbound") / "data" / "bbnli"))


def _template_files(paths: str | Path | Iterable[str | Path] | None, *, masked: bool) -> list[Path]:
    root = shipped_template_dir()
    if paths is None:
        if masked:
            return sorted((root / "masked").glob("*.json"))
        return sorted(p for d in ("gender", "race", "religion") for p in (root / d).glob("*.json"))
    if isinstance(paths, str | Path):
        paths = [paths]
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(path.rglob("*.json"))
            if not found:
                raise FairboundError(f"templates: no .json files under {str(path)!r}",
                                     param="templates")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise FairboundError(f"templates: {str(path)!r} does not exist", param="templates")
    return files


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FairboundError(f"templates: {str(path)!r} is not valid JSON ({exc.msg} at line "
                             f"{exc.lineno})", param="templates") from exc
    if not isinstance(data, dict):
        raise FairboundError(f"templates: {str(path)!r} must hold a JSON object",
                             param="templates")
    return data


def _label(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1, 2):
        raise FairboundError(f"{where}: label must be 0, 1 or 2 "
                             f"({', '.join(LABELS)}), got {value!r}", param="template")
    return int(value)


def _parse_template(data: dict, path: Path) -> Template:
    where = path.name
    required = ("premise", "test_hypothesis", "bias_hypothesis_stereotypical", "data",
                "GROUP1", "GROUP2", "domain")
    missing = [k for k in required if k not in data]
    if missing:
        raise FairboundError(f"templates: {where} lacks the field(s) {', '.join(missing)}",
                             param="templates")
    choices = [str(c).lower() for c in data.get("answer_choices", LABELS)]
    if tuple(choices) != LABELS:
        raise FairboundError(f"templates: {where} answer_choices must be "
                             f"{list(LABELS)}, got {data.get('answer_choices')!r}",
                             param="templates")
    groups = []
    for g in _GROUPS:
        value = data[g]
        if isinstance(value, list):
            if len(value) != 1:
                raise FairboundError(f"templates: {where} {g} must hold one group, got {value!r}",
                                     param="templates")
            value = value[0]
        groups.append(str(value))
    fillers = data["data"]
    if not isinstance(fillers, dict) or not all(
        isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in fillers.values()
    ):
        raise FairboundError(f"templates: {where} 'data' must map slot names to non-empty lists "
                             "of strings", param="templates")
    premises = [str(p) for p in data["premise"]]
    refs = data.get("reference", [])
    refs = [refs] * len(premises) if isinstance(refs, str) else list(refs)
    refs = [str(r) for r in refs] + [""] * max(0, len(premises) - len(refs))
    tq = data.get("test_question", [])
    bq = data.get("bias_question_stereotypical", [])
    tests = []
    for i, item in enumerate(data["test_hypothesis"]):
        if not isinstance(item, list) or len(item) < 2:
            raise FairboundError(f"templates: {where} test_hypothesis[{i}] must be "
                                 f"[text, label], got {item!r}", param="templates")
        q = tq[i][0] if i < len(tq) else ""
        tests.append((str(item[0]), _label(item[1], f"{where} test_hypothesis[{i}]"), str(q)))
    biases = []
    for i, item in enumerate(data["bias_hypothesis_stereotypical"]):
        if not isinstance(item, list) or len(item) < 3:
            raise FairboundError(f"templates: {where} bias_hypothesis_stereotypical[{i}] must be "
                                 f"[text, true_label, biased_label], got {item!r}",
                                 param="templates")
        q = bq[i][0] if i < len(bq) else ""
        w = f"{where} bias_hypothesis_stereotypical[{i}]"
        biases.append((str(item[0]), _label(item[1], w), _label(item[2], w), str(q)))
    template = Template(
        subtopic=path.stem,
        domain=str(data["domain"]),
        name=str(data.get("name", path.stem)),
        group1=groups[0],
        group2=groups[1],
        premises=tuple(premises),
        references=tuple(refs[: len(premises)]),
        test_hypotheses=tuple(tests),
        stereotype_hypotheses=tuple(biases),
        fillers=tuple((str(k), tuple(v)) for k, v in fillers.items()),
        source=str(path),
    )
    _check_slots(template)
    return template


def _check_slots(template: Template) -> None:
    where = Path(template.source).name or template.subtopic
    for i, p in enumerate(template.premises):
        slots_of(p, where=f"{where} premise[{i}]")
    for i, (h, _, q) in enumerate(template.test_hypotheses):
        slots_of(h, where=f"{where} test_hypothesis[{i}]")
        slots_of(q, where=f"{where} test_question[{i}]")
    for i, (h, _, _, q) in enumerate(template.stereotype_hypotheses):
        slots_of(h, where=f"{where} bias_hypothesis_stereotypical[{i}]")
        slots_of(q, where=f"{where} bias_question_stereotypical[{i}]")


def load_templates(
    paths: str | Path | Sequence[str | Path] | None = None,
    *,
    domains: Sequence[str] | None = None,
    subtopics: Sequence[str] | None = None,
) -> list[Template]:
    """Read and validate BBNLI template files.

    Parameters
    ----------
    paths : path or list of paths, optional
        Files or folders (searched recursively for ``*.json``).  Default: the 16 BBNLI
        templates shipped with fairbound.
    domains, subtopics : list of str, optional
        Keep only these domains / subtopics (file names without ``.json``).

    Returns
    -------
    list of Template
        In file order (domain folder, then file name).

    Raises
    ------
    FairboundError
        Missing fields, labels outside 0/1/2, unbalanced ``{{ }}`` slots, unknown domains
        or subtopics.

    Examples
    --------
    >>> templates = load_templates()
    >>> len(templates), sorted({t.domain for t in templates})
    (16, ['gender', 'race', 'religion'])
    """
    templates = [_parse_template(_read_json(p), p) for p in _template_files(paths, masked=False)]
    return _select(templates, domains=domains, subtopics=subtopics)


def _select(templates: list[Template], *, domains, subtopics) -> list[Template]:
    for param, wanted, have in (("domains", domains, {t.domain for t in templates}),
                                ("subtopics", subtopics, {t.subtopic for t in templates})):
        if wanted is None:
            continue
        unknown = sorted(set(wanted) - have)
        if unknown:
            raise FairboundError(f"{param}: unknown value(s) {', '.join(map(repr, unknown))} "
                                 f"(available: {', '.join(sorted(have))})", param=param)
    return [t for t in templates
            if (domains is None or t.domain in domains)
            and (subtopics is None or t.subtopic in subtopics)]


def _masked_item(item, where: str) -> tuple[str, int, int, str]:
    """One entry of ``masked_hypotheses``: a string, or an object with ``hypothesis``."""
    if isinstance(item, str):
        return (item, 1, 2, "")
    if not isinstance(item, dict) or not isinstance(item.get("hypothesis"), str):
        raise FairboundError(f"templates: {where} must be a string or an object with a "
                             f"'hypothesis' string, got {item!r:.80}", param="templates")
    return (item["hypothesis"], _label(item.get("true_label", 1), where),
            _label(item.get("biased_label", 2), where), "")


def _base_path(base, base_root: Path, path: Path) -> Path:
    """The file ``base`` names under ``base_root``; refuses one that leads out of it."""
    if not isinstance(base, str) or not base.strip():
        raise FairboundError(f"templates: {path.name} base must be \"<domain>/<subtopic>\", "
                             f"a template under {str(base_root)!r}; got {base!r}",
                             param="templates")
    base_path = base_root / f"{base}.json"
    # ``..``, an absolute path or a symbolic link must not lead out of the template folder.
    try:
        inside = base_path.resolve().is_relative_to(base_root.resolve())
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL byte
        inside = False
    if not inside:
        raise FairboundError(f"templates: {path.name} base must name a template inside "
                             f"{str(base_root)!r} (no '..', absolute path or link out of "
                             f"it); got {base!r}", param="templates")
    return base_path


def load_masked_templates(
    paths: str | Path | Sequence[str | Path] | None = None,
    *,
    base_dir: str | Path | None = None,
    domains: Sequence[str] | None = None,
    subtopics: Sequence[str] | None = None,
) -> list[Template]:
    """Read masked hypothesis templates (BBNLI-next) and attach them to their BBNLI base.

    A masked template file is a JSON object with ``base`` (``"<domain>/<subtopic>"``, a BBNLI
    template under ``base_dir``) and ``masked_hypotheses``: hypothesis templates with exactly one
    ``<MASK>`` each, e.g. ``"{{GROUP2}} are less {{WORD2}} and <MASK> for jobs in {{MJOB}}."``,
    or objects with that text as ``hypothesis`` and optional ``true_label`` / ``biased_label``
    (default 1 and 2; other keys such as ``id``, ``strategy``, ``source`` are kept for people).
    A file may instead be a full BBNLI template whose stereotype hypotheses carry the masks.
    The shipped set (all 16 subtopics, 212 templates) is derived from the BBNLI stereotype
    hypotheses by :mod:`fairbound.nli.derive`.

    Parameters
    ----------
    paths : path or list of paths, optional
        Files or folders; default: the masked templates shipped with fairbound (all 16
        subtopics).
    base_dir : path, optional
        Where the ``base`` templates live; default: the shipped BBNLI templates.
    domains, subtopics : list of str, optional
        Keep only these.

    Returns
    -------
    list of Template
        The base's premises, fillers and groups with the masked hypotheses as stereotype
        hypotheses (their labels; by default true label neutral, biased label entailment) and
        no test hypotheses.

    Raises
    ------
    FairboundError
        A hypothesis without exactly one ``<MASK>``, an unknown base or one outside
        ``base_dir`` (``..``, an absolute path, a symbolic link out of it), unbalanced slots.

    Examples
    --------
    >>> masked = load_masked_templates()
    >>> masked[0].stereotype_hypotheses[0][0].count("<MASK>")
    1
    """
    base_root = Path(base_dir) if base_dir is not None else shipped_template_dir()
    out = []
    for path in _template_files(paths, masked=True):
        data = _read_json(path)
        if "base" in data:
            base_path = _base_path(data["base"], base_root, path)
            if not base_path.is_file():
                raise FairboundError(f"templates: {path.name} base {data['base']!r} not found "
                                     f"under {str(base_root)!r}", param="templates")
            base = _parse_template(_read_json(base_path), base_path)
            hyps = data.get("masked_hypotheses")
            if not isinstance(hyps, list) or not hyps:
                raise FairboundError(f"templates: {path.name} 'masked_hypotheses' must be a "
                                     "non-empty list of strings", param="templates")
            items = [_masked_item(h, f"{path.name} masked hypothesis[{i}]")
                     for i, h in enumerate(hyps)]
            t = Template(
                subtopic=base.subtopic, domain=base.domain, name=base.name, group1=base.group1,
                group2=base.group2, premises=base.premises, references=base.references,
                test_hypotheses=(), stereotype_hypotheses=tuple(items), fillers=base.fillers,
                source=str(path),
            )
        else:
            t = _parse_template(data, path)
            t = Template(**{**t.__dict__, "test_hypotheses": ()})
        for i, (h, *_rest) in enumerate(t.stereotype_hypotheses):
            slots_of(h, where=f"{path.name} masked hypothesis[{i}]")
            if h.count(MASK) != 1:
                raise FairboundError(f"templates: {path.name} masked hypothesis[{i}] must hold "
                                     f"exactly one {MASK}, got {h!r}", param="templates")
        out.append(t)
    return _select(out, domains=domains, subtopics=subtopics)
