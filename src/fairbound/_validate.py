"""The checks of user input, with one message style.

Every check returns the value it accepts (normalised: a key from the choices, an ``int``, a
``float``) or raises a :class:`~fairbound.errors.FairboundError` whose message is one line
that names the parameter, says what it must be, and echoes the bad value::

    <param> must be <what it must be>[ (<note>)]; got <repr of the value>

It imports nothing from fairbound but :mod:`fairbound.errors`, so every layer (the
statistical core and the engines included) may use it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from fairbound.errors import FairboundError

__all__ = ["MAX_EDGES", "check_bins", "check_bool", "check_choice", "check_choices",
           "check_columns", "check_expression", "check_float", "check_int", "check_probability",
           "check_seed", "check_text", "check_vector", "fail"]

#: The most bin edges a score audit takes (:func:`check_bins`).
MAX_EDGES = 10_000


def fail(param: str, must: str, value: Any, *, note: str | None = None) -> NoReturn:
    """Raise the one-line error ``"<param> must be <must> (<note>); got <value!r>"``.

    Parameters
    ----------
    param : str
        The parameter (or column, or option) at fault.
    must : str
        What it must be, e.g. ``"a positive integer"``.
    value : object
        The bad value, echoed with ``repr``.
    note : str, optional
        A short hint, shown in parentheses after ``must``.

    Raises
    ------
    FairboundError
        Always, with ``param`` set.

    Examples
    --------
    >>> fail("n_jobs", "a positive integer or -1", 0)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: n_jobs must be a positive integer or -1; got 0
    """
    hint = f" ({note})" if note else ""
    raise FairboundError(f"{param} must be {must}{hint}; got {value!r}", param=param)


def _key(value: Any, fold: bool, sep: str | None, aliases: Mapping[str, Any] | None) -> Any:
    """``value`` as looked up among choices: folded, separators unified, aliases resolved."""
    if not (fold or sep is not None or isinstance(value, str)):
        return value
    key = str(value).strip().lower() if fold else str(value)
    if sep is not None:
        for other in ("-", "_", " "):
            key = key.replace(other, sep)
    return aliases.get(key, key) if aliases else key


def _listing(choices: tuple) -> str:
    return ", ".join(str(c) for c in choices)


def check_choice(value: Any, choices: Iterable[Any], param: str, *, fold: bool = False,
                 sep: str | None = None, aliases: Mapping[str, Any] | None = None,
                 note: str | None = None) -> Any:
    """``value`` as one of ``choices``, or a one-line error listing them.

    Parameters
    ----------
    value : object
        The value given.
    choices : iterable
        The allowed values, in the order the message lists them (a mapping: its keys).
    param : str
        The parameter's name, for the message.
    fold : bool, default False
        Compare ``str(value)`` case-insensitively and without surrounding spaces.
    sep : {'-', '_'}, optional
        Compare ``str(value)`` with ``-``, ``_`` and spaces read alike, as ``sep``.
    aliases : mapping, optional
        Other spellings: looked up (after ``fold`` and ``sep``) and replaced by the choice
        they stand for.
    note : str, optional
        A short hint for the message, in parentheses after the list.

    Returns
    -------
    object
        The choice matched (text after ``fold``, ``sep`` and ``aliases``).

    Raises
    ------
    FairboundError
        ``value`` is none of the choices.

    Examples
    --------
    >>> check_choice("Vs_Rest", ("pairwise", "vs-rest"), "comparison", fold=True, sep="-")
    'vs-rest'
    >>> check_choice("dp", ("demographic_parity",), "metric",
    ...              aliases={"dp": "demographic_parity"})
    'demographic_parity'
    >>> check_choice("xml", ("table", "json"), "format")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: format must be one of table, json; got 'xml'
    """
    options = tuple(choices)
    key = _key(value, fold, sep, aliases)
    if key not in options:
        fail(param, f"one of {_listing(options)}", value, note=note)
    return key


def check_choices(values: Any, choices: Iterable[Any], param: str, *, fold: bool = False,
                  sep: str | None = None, aliases: Mapping[str, Any] | None = None,
                  allow_empty: bool = False, note: str | None = None) -> tuple:
    """``values`` (one text or an iterable of them) as a tuple of ``choices``.

    Parameters
    ----------
    values : object
        One value (text, or anything not iterable), or an iterable of them.
    choices, param, fold, sep, aliases, note
        As in :func:`check_choice`.
    allow_empty : bool, default False
        Accept no value at all (an empty tuple).

    Returns
    -------
    tuple
        The choices matched, in the order given.

    Raises
    ------
    FairboundError
        A value is none of the choices (the message echoes the first such value), or there
        is none and ``allow_empty`` is False (the message echoes the empty list).

    Examples
    --------
    >>> check_choices("pro", ("pro", "anti"), "versions")
    ('pro',)
    >>> check_choices(["pro", "both"], ("pro", "anti"), "versions")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: versions must be among pro, anti; got 'both'
    """
    options = tuple(choices)
    single = isinstance(values, str) or not isinstance(values, Iterable)
    items = [values] if single else list(values)
    if not items and not allow_empty:
        fail(param, f"among {_listing(options)}", items, note=note)
    keys = []
    for v in items:
        k = _key(v, fold, sep, aliases)
        if k not in options:
            fail(param, f"among {_listing(options)}", v, note=note)
        keys.append(k)
    return tuple(keys)


def _int_rule(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"an integer in [{low}, {high}]"
    if low is not None:
        named = {0: "a non-negative integer", 1: "a positive integer"}
        return named.get(low, f"an integer >= {low}")
    return "an integer" if high is None else f"an integer <= {high}"


def check_int(value: Any, param: str, *, low: int | None = None, high: int | None = None,
              whole_floats: bool = False, note: str | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]``, or a one-line error.

    Parameters
    ----------
    value : object
        An integer (numpy integers too; ``True`` and ``False`` are not integers here).
    param : str
        The parameter's name, for the message.
    low, high : int, optional
        Inclusive bounds.
    whole_floats : bool, default False
        Also accept a float that is a whole number (``10.0``).
    note : str, optional
        A short hint for the message, in parentheses.

    Returns
    -------
    int

    Raises
    ------
    FairboundError
        ``value`` is not an integer, or lies outside the bounds.  The message says
        "a non-negative integer" for ``low=0``, "a positive integer" for ``low=1``, and
        "an integer >= low", "an integer <= high" or "an integer in [low, high]" otherwise.

    Examples
    --------
    >>> check_int(3, "n_reps", low=1)
    3
    >>> check_int(10.0, "n_resamples", low=2, whole_floats=True)
    10
    >>> check_int(0, "n_reps", low=1)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: n_reps must be a positive integer; got 0
    >>> check_int(2.5, "n_total", low=4)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: n_total must be an integer >= 4; got 2.5
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        x = int(value)
    elif (whole_floats and isinstance(value, numbers.Real) and not isinstance(value, bool)
          and math.isfinite(value) and float(value).is_integer()):
        x = int(value)
    else:
        x = None
    if x is None or (low is not None and x < low) or (high is not None and x > high):
        fail(param, _int_rule(low, high), value, note=note)
    return x


def _num(x: float) -> str:
    return f"{x:g}"


def _float_rule(low: float | None, high: float | None, low_open: bool, high_open: bool,
                finite: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{_num(low)}, {_num(high)}{')' if high_open else ']'}"
    if low == 0:
        return "a positive number" if low_open else "a non-negative number"
    if low is not None:
        return f"a number {'>' if low_open else '>='} {_num(low)}"
    if high is not None:
        return f"a number {'<' if high_open else '<='} {_num(high)}"
    return "a finite number" if finite else "a number"


def check_float(value: Any, param: str, *, low: float | None = None, high: float | None = None,
                low_open: bool = False, high_open: bool = False, finite: bool = True,
                note: str | None = None) -> float:
    """``value`` as a ``float`` within the bounds, or a one-line error.

    Parameters
    ----------
    value : object
        Anything ``float()`` reads (numpy numbers, text such as ``"0.5"``), except ``True``
        and ``False``.  NaN is always refused.
    param : str
        The parameter's name, for the message.
    low, high : float, optional
        The bounds.
    low_open, high_open : bool, default False
        Exclude the bound itself.
    finite : bool, default True
        Refuse infinities.
    note : str, optional
        A short hint for the message, in parentheses.

    Returns
    -------
    float

    Raises
    ------
    FairboundError
        ``value`` is not a number or lies outside the bounds.  The message says
        "in (low, high]" (brackets as the bounds are open or closed) with two bounds,
        "a positive number" or "a non-negative number" with ``low=0`` alone, and
        "a number > low" (or ``>=``, ``<``, ``<=``) otherwise.

    Examples
    --------
    >>> check_float("0.25", "gamma", low=0, high=0.5, low_open=True)
    0.25
    >>> check_float(0, "cost_max", low=0, low_open=True)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: cost_max must be a positive number; got 0
    >>> check_float(2.0, "tolerance", low=0, high=1, low_open=True, high_open=True,
    ...             note="a gap")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: tolerance must be in (0, 1) (a gap); got 2.0
    """
    rule = _float_rule(low, high, low_open, high_open, finite)
    if isinstance(value, bool):
        fail(param, rule, value, note=note)
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        fail(param, rule, value, note=note)
    bad = (math.isnan(x) or (finite and math.isinf(x))
           or (low is not None and (x < low or (low_open and x == low)))
           or (high is not None and (x > high or (high_open and x == high))))
    if bad:
        fail(param, rule, value, note=note)
    return x


def check_probability(value: Any, param: str, *, low_open: bool = True,
                      high_open: bool = True, note: str | None = None) -> float:
    """``value`` as a ``float`` in ``(0, 1)`` (either end closed on request).

    The check of confidence levels, shares and rates.

    Parameters
    ----------
    value, param, note
        As in :func:`check_float`.
    low_open, high_open : bool, default True
        Exclude 0 and 1.

    Returns
    -------
    float
        The value, in the interval.

    Raises
    ------
    FairboundError
        ``value`` is not a number in the interval.

    Examples
    --------
    >>> check_probability(0.95, "confidence_level")
    0.95
    >>> check_probability(1.0, "tolerance", high_open=False)
    1.0
    >>> check_probability(95, "confidence_level")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: confidence_level must be in (0, 1); got 95
    """
    return check_float(value, param, low=0.0, high=1.0, low_open=low_open,
                       high_open=high_open, note=note)


def check_bool(value: Any, param: str) -> bool:
    """``value`` as a ``bool`` (numpy's booleans too), or a one-line error.

    Parameters
    ----------
    value : object
        ``True`` or ``False``; ``0``, ``1`` and text are refused.
    param : str
        The parameter's name, for the message.

    Returns
    -------
    bool

    Raises
    ------
    FairboundError
        ``value`` is not a boolean.

    Examples
    --------
    >>> check_bool(False, "exact")
    False
    >>> check_bool("yes", "exact")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: exact must be True or False; got 'yes'
    """
    kind = type(value)
    if isinstance(value, bool) or (kind.__module__ == "numpy"
                                   and kind.__name__ in ("bool", "bool_")):
        return bool(value)
    fail(param, "True or False", value)


def check_text(value: Any, param: str) -> str:
    """``value`` as non-empty text (not only spaces), or a one-line error.

    Parameters
    ----------
    value : object
        A string.
    param : str
        The parameter's name, for the message.

    Returns
    -------
    str
        ``value`` unchanged.

    Raises
    ------
    FairboundError
        ``value`` is not a string, or is empty.

    Examples
    --------
    >>> check_text("Audit", "title")
    'Audit'
    >>> check_text("", "title")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: title must be a non-empty string; got ''
    """
    if not isinstance(value, str) or not value.strip():
        fail(param, "a non-empty string", value)
    return value


def check_expression(value: Any, param: str, *, optional: bool = False) -> str:
    """``value`` as a column name or SQL expression: non-empty text, or a one-line error.

    Parameters
    ----------
    value : object
        The column (``"y"``) or checked expression (``"score >= 0.5"``).
    param : str
        The parameter's name, for the message.
    optional : bool
        Whether ``None`` (no such column) is allowed; it is returned as it is.

    Returns
    -------
    str or None

    Raises
    ------
    FairboundError
        ``value`` is not a string, or is blank; the message names its type.

    Examples
    --------
    >>> check_expression("score >= 0.5", "prediction")
    'score >= 0.5'
    >>> check_expression(3, "label")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: label must be a column name or a SQL ... got int 3
    >>> check_expression(None, "batch", optional=True) is None
    True
    """
    if optional and value is None:
        return None
    if not (isinstance(value, str) and value.strip()):
        raise FairboundError(f"{param} must be a column name or a SQL expression (text); got "
                             f"{type(value).__name__} {value!r:.60}", param=param)
    return value


def check_where(where: Any) -> str | None:
    """``where`` as a SQL condition selecting rows (text) or ``None``, else a one-line error.

    Examples
    --------
    >>> check_where("split = 'test'"), check_where(None)
    ("split = 'test'", None)
    >>> check_where(1)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: where must be a SQL condition (text); got 1
    """
    if where is not None and not isinstance(where, str):
        raise FairboundError(f"where must be a SQL condition (text); got {where!r}",
                             param="where")
    return where


def check_columns(value: Any, param: str = "group") -> tuple[str, ...]:
    """One column name or a list (or tuple) of them, as a tuple, or a one-line error.

    Parameters
    ----------
    value : str or list or tuple of str
        Non-empty names (not only spaces).
    param : str, default "group"
        The parameter's name, for the message.

    Returns
    -------
    tuple of str

    Raises
    ------
    FairboundError
        ``value`` is empty, not text, or holds something other than non-empty text.

    Examples
    --------
    >>> check_columns("sex"), check_columns(["sex", "race"])
    (('sex',), ('sex', 'race'))
    >>> check_columns([])
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: group must be a column name or a list of them; got []
    """
    names = (value,) if isinstance(value, str) else (
        tuple(value) if isinstance(value, list | tuple) else ())
    if not names or not all(isinstance(n, str) and n.strip() for n in names):
        fail(param, "a column name or a list of them", value)
    return names


def check_seed(seed: Any) -> int:
    """``seed`` as a non-negative integer (numpy integers too), or a one-line error.

    The one check of a ``seed`` argument, for the library and the command line alike.

    Examples
    --------
    >>> check_seed(3)
    3
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: seed must be a non-negative integer; got -1
    """
    return check_int(seed, "seed", low=0)


def check_vector(values: Any, param: str, must: str):
    """``values`` as a one-dimensional float array, or a one-line error.

    Parameters
    ----------
    values : array_like
        The numbers.
    param : str
        The parameter, for the message.
    must : str
        What ``values`` must be, said when it is not numbers, e.g. ``"numbers in [0, 1]"``
        (the caller checks the range).

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    FairboundError
        ``values`` is not numbers, or not one-dimensional.

    Examples
    --------
    >>> check_vector([0, 0.5], "x", "numbers in [0, 1]")
    array([0. , 0.5])
    >>> check_vector([[0.5]], "x", "numbers in [0, 1]")
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: x must be one-dimensional; got shape (1, 1)
    """
    import numpy as np

    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"{param} must be {must}; got {values!r:.60}",
                             param=param) from None
    if arr.ndim != 1:
        raise FairboundError(f"{param} must be one-dimensional; got shape {arr.shape}",
                             param=param)
    return arr


def check_bins(bins: Any):
    """Score bins: ``None`` (distinct values), a whole number ``k >= 1`` or ascending edges.

    The one check of ``bins``, for the statistical core (:mod:`fairbound.stats.scores`) and
    the engines (:mod:`fairbound.engines.scores`) alike.

    Parameters
    ----------
    bins : None, int or sequence of float
        ``None``, ``k`` in ``[1, 10**9]``, or 2 to :data:`MAX_EDGES` finite, strictly
        increasing edges.

    Returns
    -------
    None, int or numpy.ndarray
        ``None``, the int, or the edges as a float array.

    Raises
    ------
    FairboundError
        ``bins`` is none of these.

    Examples
    --------
    >>> check_bins(None) is None, check_bins(20)
    (True, 20)
    >>> check_bins([0, 0.5, 1])
    array([0. , 0.5, 1. ])
    >>> check_bins(0)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: bins must be None, a whole number >= 1 or ... got 0
    """
    import numpy as np

    if bins is None:
        return None
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        if not 1 <= int(bins) <= 10**9:
            fail("bins", "None, a whole number >= 1 or ascending edges", bins)
        return int(bins)
    if isinstance(bins, str | bytes | bool | float):
        fail("bins", "None, a whole number >= 1 or ascending edges", bins)
    try:
        edges = np.asarray(bins, dtype=float)
    except (TypeError, ValueError):
        raise FairboundError(f"bins: edges must be numbers; got {bins!r}", param="bins") from None
    if edges.ndim != 1 or len(edges) < 2:
        raise FairboundError(f"bins: give at least two edges in a 1-D list; got {bins!r}",
                             param="bins")
    if len(edges) > MAX_EDGES:
        raise FairboundError(f"bins: at most {MAX_EDGES} edges; got {len(edges)}", param="bins")
    if not np.all(np.isfinite(edges)):
        shown = [float(v) for v in edges[~np.isfinite(edges)][:6]]
        raise FairboundError(f"bins: edges must be finite; got {shown}", param="bins")
    bad = np.flatnonzero(np.diff(edges) <= 0)
    if len(bad):
        i = int(bad[0])
        raise FairboundError(f"bins: edges must be strictly increasing; got "
                             f"{float(edges[i])!r} then {float(edges[i + 1])!r}", param="bins")
    return edges


def describe_bins(bins) -> str:
    """Checked ``bins`` (see :func:`check_bins`) in words, as histograms record them.

    Examples
    --------
    >>> describe_bins(None), describe_bins(10)
    ('distinct values', 'floor(score * 10) / 10')
    """
    if bins is None:
        return "distinct values"
    if isinstance(bins, int):
        return f"floor(score * {bins}) / {bins}"
    shown = [float(e) for e in bins[:8]]
    more = f" and {len(bins) - 8} more" if len(bins) > 8 else ""
    return f"edges {shown}{more}"


def check_unknown(values: Mapping[str, Any]) -> str:
    """The one name in ``values`` left as ``None`` (the quantity to solve for), or an error.

    Planners solve for one quantity from the others: exactly one must be ``None``.

    Examples
    --------
    >>> check_unknown({"n": 100, "bias": None, "confidence_level": 0.95})
    'bias'
    >>> check_unknown({"n": 100, "bias": 0.05, "confidence_level": 0.95})
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: n must be None (give all but one of n, bias, ...; got 100
    """
    missing = [k for k, v in values.items() if v is None]
    if len(missing) != 1:
        param = missing[0] if missing else next(iter(values))
        fail(param, "given" if missing else "None", values[param],
             note=f"give all but one of {_listing(tuple(values))}; the one left as None is "
             "solved for")
    return missing[0]
