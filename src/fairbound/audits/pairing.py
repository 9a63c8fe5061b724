"""Which pairs of groups an audit compares: pairwise, each vs the rest, or vs a reference.

The one place where the pairs of an audit are enumerated and counted; the builder
(:mod:`fairbound.audits.gaps.build`), the bootstrap of an audit
(:mod:`fairbound.audits.gaps.bootstrap`) and its simultaneous per-group intervals
(:mod:`fairbound.audits.gaps.simultaneous`) all read them from here.

* ``"pairwise"`` - every pair ``(A, B)`` in group order; with a reference group, pairs that
  hold it put it on the B side.
* ``"vs-rest"`` - each group against all other groups pooled (B is :data:`REST`).
* ``"vs-reference"`` - each other group against the reference group (B).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from fairbound._validate import check_choice
from fairbound.errors import FairboundError

COMPARISONS = ("pairwise", "vs-rest", "vs-reference")
#: The B side of an each-vs-rest comparison: every other group pooled.
REST = "rest"
#: Default limit on the number of comparisons of one audit (``max_comparisons``).
MAX_COMPARISONS = 10_000


def check_comparison(comparison, reference=None) -> str:
    """``comparison`` as one of :data:`COMPARISONS` (``vs_rest`` spelt either way).

    A ``reference`` group given with the default ``"pairwise"`` means ``"vs-reference"``.

    Examples
    --------
    >>> check_comparison("vs_rest")
    'vs-rest'
    >>> check_comparison("pairwise", reference="a")
    'vs-reference'
    """
    if reference is not None and comparison == "pairwise":
        comparison = "vs-reference"
    return check_choice(comparison, COMPARISONS, "comparison", sep="-")


def pairs(groups: Sequence, comparison: str, reference) -> list[tuple[Any, Any]]:
    """The ``(A, B)`` pairs of groups an audit compares, in order.

    Examples
    --------
    >>> pairs(["a", "b", "c"], "pairwise", None)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> pairs(["a", "b", "c"], "pairwise", "a")
    [('b', 'a'), ('c', 'a'), ('b', 'c')]
    >>> pairs(["a", "b"], "vs-rest", None), pairs(["a", "b", "c"], "vs-reference", "b")
    ([('a', 'rest'), ('b', 'rest')], [('a', 'b'), ('c', 'b')])
    """
    if comparison == "pairwise":
        out = [(groups[i], groups[j]) for i in range(len(groups))
               for j in range(i + 1, len(groups))]
        if reference is not None:
            out = [(b, a) if a == reference else (a, b) for a, b in out]
        return out
    if comparison == "vs-rest":
        return [(g, REST) for g in groups]
    return [(g, reference) for g in groups if g != reference]


def count_pairs(n_groups: int, comparison: str) -> int:
    """How many pairs :func:`pairs` gives for ``n_groups`` groups."""
    return {"pairwise": n_groups * (n_groups - 1) // 2, "vs-rest": n_groups}.get(
        comparison, n_groups - 1)


def check_max_comparisons(value) -> int:
    """``max_comparisons`` as a positive whole number, or the one-line error."""
    import numbers

    from fairbound._validate import fail

    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        fail("max_comparisons", "a positive whole number", value)
    return int(value)


def check_comparison_limit(n_groups: int, comparison: str, per_pair: int, limit: int, *,
                           column: str | None = None) -> int:
    """The number of comparisons of an audit, or a one-line error above ``limit``.

    Counted from the number of groups alone (:func:`count_pairs`
    pairs, ``per_pair`` rows each), so it runs as soon as the groups are known, before any
    interval.  The message names the remedy that fits ``comparison``: pairwise comparisons
    grow with the square of the number of groups, so ``vs-rest`` or a reference group;
    ``vs-rest`` and ``vs-reference`` already make one comparison per group, so fewer groups
    (a coarser column, or ``where`` to select some); and for all, a higher limit.

    Examples
    --------
    >>> check_comparison_limit(100, "vs-rest", 5, 10_000)
    500
    >>> check_comparison_limit(3_000, "vs-rest", 5, 10_000)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: comparison: vs-rest over 3,000 groups makes 15,000 ...
    """
    total = count_pairs(n_groups, comparison) * max(int(per_pair), 1)
    if total > limit:
        if comparison == "pairwise":
            remedy = ("use comparison='vs-rest' (--comparison vs-rest) or a reference group "
                      "(--reference), or raise max_comparisons (--max-comparisons)")
        else:
            remedy = ("audit fewer groups (a coarser group column, or where= / --where to "
                      "select some), or raise max_comparisons (--max-comparisons)")
        of = f" of {column!r}" if column else ""
        raise FairboundError(
            f"comparison: {comparison} over {n_groups:,} groups{of} makes {total:,} "
            f"comparisons (limit {limit:,}); {remedy}", param="comparison")
    return total


def per_pair(metrics, n_classes: int) -> int:
    """Rows of one pair of groups: each metric's components (per class) and the cost row."""
    from fairbound.metrics import COST

    n_classes = max(n_classes, 1)
    return sum((n_classes if comp.per_class else 1) for mm in metrics
               for comp in mm.components) + (1 if COST in metrics else 0)


def group_name(g) -> str:
    """A group as text: intersections (tuples) joined with ``" & "``.

    Examples
    --------
    >>> group_name(("F", "Black")), group_name(3)
    ('F & Black', '3')
    """
    return " & ".join(map(str, g)) if isinstance(g, tuple) else str(g)


def resolve_reference(groups: Sequence, reference, comparison: str, gname: str,
                      sizes: dict | None = None, *, where: str | None = None,
                      name=None):
    """The reference group of a comparison, or ``None``: the one resolution of every kind.

    ``reference`` is matched among ``groups`` (:func:`same_group`: as text too, since numbers
    typed on a command line arrive as text, and an intersection by its parts); without one,
    ``vs-reference`` takes the largest group by ``sizes``.  ``where`` names the place the
    groups come from in the error (default: ``column <gname>``; ``""``: none), and ``name``
    how the error lists a group.

    Raises
    ------
    FairboundError
        Naming ``reference`` when it matches no group of column ``gname``.

    Examples
    --------
    >>> resolve_reference([1, 2], "2", "vs-reference", "g", {1: 5, 2: 3})
    2
    >>> resolve_reference(["a", "b"], None, "vs-reference", "g", {"a": 5, "b": 3})
    'a'
    """

    def shown(g):
        return group_name(g) if isinstance(g, tuple) else (g.item() if hasattr(g, "item")
                                                            else g)

    if reference is not None and reference not in groups:
        match = [g for g in groups if same_group(g, reference)]
        if not match:
            listed = [(name or shown)(g) for g in groups]
            place = f" in column {gname!r}" if where is None else (where and f" in {where}")
            raise FairboundError(
                f"reference: group {reference!r} not found{place}; groups are {listed[:20]}",
                param="reference")
        reference = match[0]
    if comparison == "vs-reference" and reference is None:
        reference = max(groups, key=lambda g: sizes[g])
    return reference


def index_pairs(names: Sequence[str], comparisons: Iterable) -> list[tuple[int, int]]:
    """The distinct ``(A, B)`` pairs of ``comparisons`` as indices into ``names``.

    B is ``-1`` for "every other group" (an each-vs-rest comparison).
    """
    out: list[tuple[int, int]] = []
    names = list(names)
    for c in comparisons:
        a, b = group_name(c.group_a), group_name(c.group_b)
        key = (names.index(a), -1 if b == REST and b not in names else names.index(b))
        if key not in out:
            out.append(key)
    return out


def against_rest(result, comparisons: Sequence) -> bool:
    """Whether group B of these comparisons is "all other groups" (an each-vs-rest audit).

    An :class:`~fairbound.audits.AuditResult` says so itself; for a bare list of comparisons,
    every B is :data:`REST` and no A is.
    """
    return getattr(result, "comparison", None) == "vs-rest" or (
        all(str(c.group_b) == REST for c in comparisons)
        and not any(str(c.group_a) == REST for c in comparisons))


def _plain(v):
    """A group as its error messages show it (intersections joined, NumPy scalars plain)."""
    if isinstance(v, tuple):
        return group_name(v)
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def same_group(g, given) -> bool:
    """Whether ``given`` names group ``g``: the value itself, its text, or its parts.

    Numbers typed on a command line arrive as text; an intersection (a tuple) is named by
    ``"F & Black"`` or by its parts as a list or tuple; the missing group by ``"missing"``.

    Examples
    --------
    >>> same_group(3, "3"), same_group(("F", 1), ["F", "1"]), same_group(("F", 1), "F & 1")
    (True, True, True)
    >>> same_group("a", "b"), same_group(None, "missing")
    (False, True)
    """
    if g == given:
        return True
    if isinstance(g, tuple) and isinstance(given, list | tuple) and len(given) == len(g):
        return all(str(_plain(a)) == str(b) for a, b in zip(g, given, strict=True))
    return _text(g) == str(given)


def _text(g) -> str:
    return "missing" if g is None else str(_plain(g))


def check_groups(n_rows: int, source, groups: Sequence, *, where: str | None,
                 excluded: dict, gname: str, empty: str | None = None,
                 usable: bool | None = None, two: bool = True) -> list:
    """The groups an audit compares, or the one-line error that says why there are none.

    The one check of every kind (main, impact ratios, scores): no rows at all, a ``where``
    condition that selects none of them, no group with usable rows, a single group.

    Parameters
    ----------
    n_rows : int
        Rows scanned.
    source : str
        What was scanned (for the message).
    groups : sequence
        The groups found.
    where : str or None
        The audit's ``where`` condition.
    excluded : dict
        Rows excluded, by reason (reasons starting ``"where"`` were removed by ``where``).
    gname : str
        The group column(s), as the messages name them.
    empty : str, optional
        The message (after ``"group: "``) when no group has usable rows.
    usable : bool, optional
        Whether any group has usable rows (default: ``groups`` is not empty).
    two : bool
        Whether a single group is an error here.

    Examples
    --------
    >>> check_groups(10, "t.csv", ["a", "b"], where=None, excluded={}, gname="g")
    ['a', 'b']
    >>> check_groups(10, "t.csv", ["a"], where=None, excluded={}, gname="g")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: group: column 'g' has a single group ('a'); ...
    """
    if n_rows == 0:
        raise FairboundError(f"data: no rows in {source}", param="data")
    groups = list(groups)
    if not (len(groups) > 0 if usable is None else usable):
        by_where = sum(v for k, v in excluded.items() if str(k).startswith("where"))
        if where is not None and by_where >= n_rows:
            raise FairboundError(f"where: the condition {where!r} selects none of the "
                                 f"{n_rows:,} rows", param="where")
        raise FairboundError("group: " + (empty or f"column {gname!r} has no non-missing "
                                                   "values"), param="group")
    if two and len(groups) == 1:
        raise FairboundError(
            f"group: column {gname!r} has a single group ({_plain(groups[0])!r}); "
            "at least two are needed to compare", param="group")
    return groups
