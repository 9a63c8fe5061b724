"""Numpydoc text that several public functions share, written once.

A docstring names a shared piece on a line of its own, ``{{name}}``; :func:`fill` puts the
piece there, each of its lines indented like the marker.  This is how a parameter that many
functions take (an audit result, a report's output path) keeps one wording, and how the
Examples of many functions start from one small data set (:data:`PIECES`).  It is the
pattern of SciPy's ``doccer`` and pandas' ``@doc``, reduced to whole lines: a docstring
keeps its braces, percent signs and doctest output untouched.

Examples
--------
>>> @fill
... def f(result):
...     '''Do something.
...
...     Parameters
...     ----------
...     {{result}}
...     '''
>>> print(f.__doc__.splitlines()[4].strip())
result : AuditResult
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: The pieces, by name.  Text without indentation; continuation lines are indented by four
#: spaces relative to the first, as numpydoc wants a parameter's description.
PIECES: dict[str, str] = {
    "result": (
        "result : AuditResult\n"
        "    What :func:`fairbound.audit` returned."
    ),
    "toy_data": (
        ">>> import pandas as pd\n"
        ">>> from fairbound import audit\n"
        ">>> df = pd.DataFrame({\"g\": list(\"aaaabbbb\"), \"y\": [1, 1, 0, 0] * 2,\n"
        "...                    \"p\": [1, 1, 0, 1, 1, 0, 0, 0]})"
    ),
    # the Returns of a restricted maximum-likelihood estimate under a null of two rates
    # (``stats.exact.statistic.restricted_mle``, ``stats.ratio.restricted_mle_ratio``)
    "restricted_mle_returns": (
        "Returns\n"
        "-------\n"
        "(numpy.ndarray, numpy.ndarray)\n"
        "    ``p_A`` and ``p_B``."
    ),
    # the last parameter and the Returns of an exact unconditional p-value
    # (``stats.exact.exact_pvalue``, ``stats.ratio.exact_ratio_pvalue``)
    "exact_pvalue_tail": (
        "gamma : float\n"
        "    Berger-Boos ``gamma`` in ``[0, 1)``.\n"
        "\n"
        "Returns\n"
        "-------\n"
        "float or numpy.ndarray\n"
        "    The p-value(s), shaped like the hypothesised value(s)."
    ),
    # the first parameters of a prediction-powered interval for one group's mean
    # (``stats.ppi.means``, ``stats.ppi.guaranteed``)
    "ppi_stats_level": (
        "stats : PPIStats\n"
        "    The group's statistics.\n"
        "confidence_level : float\n"
        "    In (0, 1)."
    ),
    # the level and metric of a prediction-powered interval for one group's rate with
    # another proxy than a label (``stats.ppi_ipw``, ``stats.ppi_score``)
    "ppi_rate_parameters": (
        "confidence_level : float\n"
        "    In (0, 1).\n"
        "metric : str or (array_like, array_like)\n"
        "    A ratio metric of :data:`fairbound.stats.ppi.RATIO_METRICS` (``'tpr'``, ``'fpr'``,\n"
        "    ``'precision'``...), ``'error'`` (the error rate, a mean), or a pair of 2x2 tables\n"
        "    ``(num[y, pred], den[y, pred])``."
    ),
    # the Raises of a prediction-powered interval for one group's ratio metric
    # (``stats.ppi.ratios``, ``stats.ppi_ipw``, ``stats.ppi_score``)
    "ppi_ratio_raises": (
        "Raises\n"
        "------\n"
        "NotEstimable\n"
        "    With fewer than 2 labeled rows or a denominator estimated at 0."
    ),
    # the one paper a module's public function cites (numpydoc References section)
    "references_baldini2023": (
        "References\n"
        "----------\n"
        ".. [1] Baldini, Yadav, Das, Varshney. \"Keeping Up with the Language Models: Systematic\n"
        "   Benchmark Extension for Bias Auditing.\" arXiv:2305.12620, 2023."
    ),
    "references_jourdan2023": (
        "References\n"
        "----------\n"
        ".. [1] Jourdan, Risser, Loubes & Asher, \"Are fairness metric scores enough to assess\n"
        "   discrimination biases in machine learning?\", TrustNLP workshop at ACL 2023."
    ),
    # the Parameters and Returns of an audit result's ``report(path, *, title=None)``
    "report_sections": (
        "Parameters\n"
        "----------\n"
        "path : str or Path\n"
        "    Output ``.html`` file.\n"
        "title : str, optional\n"
        "    Page title.\n"
        "\n"
        "Returns\n"
        "-------\n"
        "Path"
    ),
    # the Parameters and Returns of a comparison row's ``confidence_interval`` when the row
    # keeps what recomputing it needs
    "row_interval_sections": (
        "Parameters\n"
        "----------\n"
        "confidence_level : float, optional\n"
        "    ``None`` (default): the interval shown, at ``interval_level`` (adjusted for the\n"
        "    audit's error control).  A level: this comparison's interval at that level on\n"
        "    its own, recomputed from the statistics the row keeps (no multiplicity\n"
        "    adjustment).\n"
        "\n"
        "Returns\n"
        "-------\n"
        "ConfidenceInterval\n"
        "    ``(low, high)``, a named tuple."
    ),
}

# the opening of an Examples section that builds the toy data above (``toy_data``)
PIECES["toy_examples"] = "Examples\n--------\n" + PIECES["toy_data"]
# the opening of an Examples section that builds a small score-audit data set (scores in
# [0, 1], calibrated: every score figure and the score report can be drawn from it)
PIECES["score_examples"] = (
    "Examples\n"
    "--------\n"
    ">>> import numpy as np, pandas as pd\n"
    ">>> from fairbound.audits.scores.audit import score_audit\n"
    ">>> rng = np.random.default_rng(0)\n"
    ">>> s = rng.random(400).round(2)\n"
    ">>> df = pd.DataFrame({\"g\": rng.choice([\"a\", \"b\"], 400),\n"
    "...                    \"y\": (rng.random(400) < s).astype(int), \"s\": s})"
)

_MARKER = re.compile(r"^(?P<indent>[ \t]*)\{\{(?P<name>[a-z_][a-z0-9_]*)\}\}[ \t]*$",
                     re.MULTILINE)


def expand(doc: str, pieces: dict[str, str] | None = None) -> str:
    """``doc`` with every ``{{name}}`` line replaced by its piece, indented like the marker.

    Parameters
    ----------
    doc : str
        A docstring.
    pieces : dict, optional
        Pieces to use besides (and before) :data:`PIECES`.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        A marker names no piece (a typo must fail at import, never print ``{{...}}``).

    Examples
    --------
    >>> print(expand(chr(10).join(["A.", "    {{x}}"]), {"x": "one"}))
    A.
        one
    """
    table = {**PIECES, **(pieces or {})}

    def put(m: re.Match) -> str:
        name = m.group("name")
        if name not in table:
            raise KeyError(f"docstring piece {{{{{name}}}}} is not defined")
        pad = m.group("indent")
        return "\n".join(pad + line if line else "" for line in table[name].splitlines())

    return _MARKER.sub(put, doc)


def fill(obj: T | None = None, /, **pieces: str) -> T | Callable[[T], T]:
    """Decorator: expand the ``{{name}}`` markers of a function's or class's docstring.

    Used bare (``@fill``) or with extra pieces for one module (``@fill(name="text")``).
    Under ``python -OO`` (no docstrings) it does nothing.
    """
    def apply(target: T) -> T:
        if getattr(target, "__doc__", None):
            target.__doc__ = expand(target.__doc__, pieces)
        return target

    return apply(obj) if obj is not None else apply
