"""The HTML report of a sample-size plan (:class:`fairbound.planning.BBUPlan`)."""

from __future__ import annotations

from pathlib import Path

from fairbound._docs import fill
from fairbound.errors import FairboundError
from fairbound.report._common import (
    DOCS,
    NO_FIGURES,
    check_title,
    have_matplotlib,
    render_page,
    render_section,
    try_figure,
    write_html,
)

#: The report's docstring pieces: those of every report page, and one plan for the Examples.
_DOCS = {**DOCS, "plan_examples": (
    "Examples\n"
    "--------\n"
    ">>> from fairbound.planning import plan_bbu\n"
    ">>> plan = plan_bbu(bias=0.05, confidence_level=0.95)"
)}


@fill(**_DOCS)
def plan_statement(plan) -> str:
    """One sentence saying what the plan solved.

    Parameters
    ----------
    plan : BBUPlan
        A solved plan.

    Returns
    -------
    str

    {{plan_examples}}
    >>> plan_statement(plan)[:60]
    'To claim a bias of 0.05 with 95% confidence you need n = 11,'
    """
    if plan.solved_for == "n":
        return (f"To claim a bias of {plan.bias:g} with {plan.confidence_level:.0%} confidence "
                f"you need n = {plan.n_required:,} annotated examples (n > {plan.n:,.1f}; "
                f"{plan.winobias_ratio:.1f} times the 3,160 sentences of WinoBias).")
    if plan.solved_for == "bias":
        return (f"With n = {plan.n:,.0f} annotated examples and {plan.confidence_level:.0%} "
                f"confidence, the smallest claimable bias is {plan.bias_rounded_up:.4f} "
                f"(exact half-width {plan.bias:.5f}).")
    return (f"With n = {plan.n:,.0f} and a bias of {plan.bias:g}, the Bernstein bound gives "
            f"{plan.confidence_level:.4f} confidence.")


def _validate_plan(plan, title):
    from fairbound.planning import BBUPlan

    if not isinstance(plan, BBUPlan):
        raise FairboundError(f"plan must be a BBUPlan (from fairbound.planning.plan_bbu); got "
                             f"{type(plan).__name__}", param="plan")
    return check_title(title, "Sample-size plan (Bernstein bound)")


@fill(**_DOCS)
def render_plan_report(plan, *, title: str | None = None, figures: bool = True) -> str:
    """Render a sample-size plan as one self-contained HTML page.

    Parameters
    ----------
    plan : BBUPlan
        From :func:`fairbound.planning.plan_bbu`.
    title : str, optional
        Page title.
    figures : bool
        Include the n-vs-bias figure (needs matplotlib).

    Returns
    -------
    str

    {{plan_examples}}
    >>> html = render_plan_report(plan, figures=False)
    >>> "11,903" in html
    True
    """
    from fairbound.planning import WINOBIAS_N

    title = _validate_plan(plan, title)
    mark = int(plan.n_required)
    grid = [0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3]
    curve = plan.curve(grid)
    view = {
        "id": "plan-1", "heading": "Plan", "statement": plan_statement(plan),
        "facts": [
            ("Solved for", plan.solved_for),
            ("Confidence level", f"{plan.confidence_level:.4g}"),
            ("Bias (half-width)", f"{plan.bias:.5f}"),
            ("n", f"{plan.n:,.1f}"),
            ("gamma (smallest group share)", f"{plan.gamma:g}"),
            ("Maximum cost C", f"{plan.cost_max:g}"),
            ("Variance sigma^2", f"{plan.variance:g}"),
            ("Range M", f"{plan.M:g}" + (" (corrected)" if plan.corrected else "")),
        ],
        "curve": [{"bias": f"{r.bias:.3f}", "n": f"{int(r.n):,}",
                   "ratio": f"{int(r.n) / WINOBIAS_N:.2f}"} for r in curve.itertuples()],
        "level": f"{plan.confidence_level:.0%}", "M": f"{plan.M:g}",
        "corrected": plan.corrected, "mark": f"{mark:,}", "figure": None,
        "no_figures": NO_FIGURES,
    }
    if figures and have_matplotlib():
        from fairbound.viz.audit import plot_sample_size

        view["figure"] = try_figure(lambda: plot_sample_size(plan),
                                    "Annotated examples needed versus bias")
    section = render_section("plan.html.j2", p=view)
    return render_page(title=title, kicker="fairbound sample-size plan", sections=[section],
                       toc=[], footer="Reproduce with: fairbound plan --format json.")


@fill(**_DOCS)
def write_plan_report(plan, path, *, title: str | None = None, figures: bool = True) -> Path:
    """Write :func:`render_plan_report` to ``path`` (``.html``).

    Parameters
    ----------
    plan : BBUPlan
        The plan.
    path : str or Path
        Output file.
    {{write_options}}

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fairbound.planning import plan_bbu
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "plan.html"
    >>> write_plan_report(plan_bbu(n=3160, confidence_level=0.95), out, figures=False).name
    'plan.html'
    """
    return write_html(path, render_plan_report, plan, title=title, figures=figures)


__all__ = ["plan_statement", "render_plan_report", "write_plan_report"]
