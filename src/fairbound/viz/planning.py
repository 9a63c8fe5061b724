"""Figures for sample-size plans: the Bernstein (BBU) n-vs-bias curve."""

from __future__ import annotations

from fairbound.planning import WINOBIAS_N, BBUPlan, plan_bbu, plan_curve
from fairbound.viz._figure import _figure_axes, _pyplot


def plot_plan_curve(plan: BBUPlan | None = None, *, biases=None, mark_n: int = WINOBIAS_N,
                    mark_label: str = "WinoBias (3,160)", ax=None):
    """Plot n needed vs bias on a log scale, with a data-set size marked.

    Parameters
    ----------
    plan : BBUPlan, optional
        Settings (default: C = 1, rho = 0.95, gamma = 0.5, worst-case variance).
    biases : array-like, optional
        Bias grid.
    mark_n : int
        A sample size to mark (default: WinoBias).
    mark_label : str
        Legend text for it.
    ax : matplotlib Axes, optional
        Where to draw.

    Returns
    -------
    matplotlib.figure.Figure
    """
    _pyplot()  # without matplotlib, say so before the curve is computed
    plan = plan or plan_bbu(bias=0.05, confidence_level=0.95, gamma=0.5)
    frame = plan.curve(biases)
    fig, ax = _figure_axes(ax, (6, 4))
    for rho, style in ((0.95, "-"), (0.9, "--"), (0.99, ":")):
        fr = plan_curve(frame["bias"], confidence_level=rho, gamma=plan.gamma,
                        cost_max=plan.cost_max, variance=plan.variance,
                        corrected=plan.corrected)
        ax.plot(fr["bias"], fr["n"], style, label=f"confidence {rho:.0%}")
    ax.axhline(mark_n, color="crimson", lw=1)
    at = plan_bbu(n=mark_n, confidence_level=0.95, gamma=plan.gamma, cost_max=plan.cost_max,
                  variance=plan.variance, corrected=plan.corrected)
    ax.plot([at.bias], [mark_n], "o", color="crimson",
            label=f"{mark_label}: bias >= {at.bias_rounded_up:.4f} at 95%")
    ax.set_yscale("log")
    ax.set_xlabel("bias to claim (|delta|)")
    ax.set_ylabel("annotated examples needed (n)")
    ax.set_title(f"Bernstein bound, gamma = {plan.gamma:g}, C = {plan.cost_max:g}, "
                 f"sigma^2 = {plan.variance:g}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


__all__ = ["plot_plan_curve"]
