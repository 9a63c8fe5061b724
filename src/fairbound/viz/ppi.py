"""Figures of a prediction-powered audit (:meth:`fairbound.audits.ppi.audit.PPIAuditResult.plot`).

The forest plot is the audit's (:func:`fairbound.viz.audit.plot_forest`): every gap
``rate_A - rate_B`` with the interval that decides its verdict, read from the result's
``"fairbound.ppi_audit/1"`` dictionary.
"""

from __future__ import annotations

from fairbound.viz._figure import result_dict
from fairbound.viz.audit import plot_forest

SCHEMA = "fairbound.ppi_audit/1"


def ppi_dict(result) -> dict:
    """Return the ``"fairbound.ppi_audit/1"`` dictionary of a prediction-powered audit.

    Parameters
    ----------
    result : PPIAuditResult, dict or path
        A live result, its ``to_dict()`` form, or a JSON file written by ``to_json``.

    Returns
    -------
    dict

    Examples
    --------
    >>> ppi_dict({"schema": "fairbound.ppi_audit/1", "comparisons": []})["schema"]
    'fairbound.ppi_audit/1'
    """
    return result_dict(result, SCHEMA, live="assumption", kind="prediction-powered audit ",
                       expected="a PPIAuditResult, its dictionary or a JSON path",
                       lists=("comparisons",))


def _as_audit(d: dict) -> dict:
    """The fields of an audit's dictionary that the forest plot reads (rate scale)."""
    comps = []
    for c in d["comparisons"]:
        comps.append({**c, "class": None, "estimate": c.get("gap"), "rate_gap": c.get("gap"),
                      "rate_gap_low": c.get("low"), "rate_gap_high": c.get("high")})
    return {"schema": "fairbound.audit/1", "comparisons": comps, "tolerance": None,
            "confidence_level": d.get("confidence_level"),
            "error_control": d.get("error_control")}


def plot_ppi_forest(result, *, ax=None, max_rows: int | None = None):
    """Forest plot: every gap with its deciding (prediction-powered) interval and verdict.

    Parameters
    ----------
    result : PPIAuditResult, dict or path
        The prediction-powered audit (see :func:`ppi_dict`).
    ax : matplotlib Axes, optional
        Where to draw (a new figure sized to the number of comparisons otherwise).
    max_rows : int, optional
        Draw at most this many comparisons (those with a verdict first).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Markers and colours are those of :func:`fairbound.viz.audit.plot_forest`.  The interval
    drawn is the one that decides the verdict (``low``, ``high``); the labeled-only
    interval is in the result's table and report.

    Examples
    --------
    >>> d = {"schema": "fairbound.ppi_audit/1", "confidence_level": 0.95,
    ...      "error_control": "none", "comparisons": [
    ...      {"metric": "equal_opportunity", "component": "tpr", "rate": "TPR",
    ...       "group_a": "a", "group_b": "b", "gap": 0.1, "low": -0.05, "high": 0.25,
    ...       "verdict": "not enough evidence", "interval_level": 0.95}]}
    >>> len(plot_ppi_forest(d).axes)
    1
    """
    return plot_forest(_as_audit(ppi_dict(result)), ax=ax, max_rows=max_rows)


__all__ = ["SCHEMA", "plot_ppi_forest", "ppi_dict"]
