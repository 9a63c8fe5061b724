"""``fairbound plan``: solve the Bernstein bound for n, bias or confidence, or plan a method.

The planners are :mod:`fairbound.planning` (the BBU bound) and
:func:`fairbound.planning.power.plan_for_method` (``--method``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from fairbound._render import check_format, console, fmt_int
from fairbound._validate import check_choice, check_float

#: Figure files ``plan --figure`` writes (no suffix: PNG).
FIGURE_SUFFIXES = ("", ".png", ".svg", ".pdf")


def plan_command(
    n: Annotated[float | None, typer.Option("--n", help="Annotated examples.")] = None,
    bias: Annotated[float | None, typer.Option(help="Bias magnitude to claim.")] = None,
    confidence: Annotated[float | None, typer.Option(
        "--confidence-level", "--confidence", help="Confidence level in (0, 1).")] = None,
    gamma: Annotated[float, typer.Option(help="Lower bound on group shares, (0, 0.5].")] = 0.5,
    cost_max: Annotated[float, typer.Option("--cost-max", help="Maximum cost C.")] = 1.0,
    variance: Annotated[float | None, typer.Option(
        help="Variance of the amortized disparity (default: worst case (C/gamma)^2).")] = None,
    corrected: Annotated[bool, typer.Option(
        help="Use the safe range C/gamma + C instead of the paper's C/gamma.")] = False,
    curve: Annotated[bool, typer.Option(help="Also print n needed for a grid of biases.")] =
    False,
    figure: Annotated[Path | None, typer.Option(
        help="Write the n-vs-bias figure (PNG/SVG/PDF), WinoBias marked.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table | json | csv")] = "table",
    method: Annotated[str | None, typer.Option(
        help="Plan for this interval method (e.g. betting, agresti-caffo) at a target power "
             "instead of the BBU bound; --bias is then the true gap.")] = None,
    power: Annotated[float | None, typer.Option(
        help="Target power with --method (default 0.8; leave out --n or --bias to solve "
             "for it).")] = None,
    rate_b: Annotated[float, typer.Option(
        "--rate-b", help="With --method: mean cost of group B (A's is rate_b + bias).")] = 0.10,
    share: Annotated[float, typer.Option(help="With --method: share of group A.")] = 0.5,
    cost: Annotated[str, typer.Option(help="With --method: binary | beta costs.")] = "binary",
    concentration: Annotated[float | None, typer.Option(
        help="With --method and --cost beta: alpha + beta of the Beta costs (default 2); "
             "Beta(1.5, 8.5) vs Beta(1, 9) is --rate-b 0.1 --bias 0.05 --concentration "
             "10.")] = None,
    sims: Annotated[int, typer.Option(
        help="With --method: simulated data sets per power evaluation.")] = 400,
    seed: Annotated[int, typer.Option(help="With --method: seed of the simulation.")] = 0,
    html: Annotated[Path | None, typer.Option(
        help="Also write a self-contained HTML report of the plan here.")] = None,
    tolerance: Annotated[float | None, typer.Option(
        help="Plan to show parity: n (or power) for the interval to lie within +/- this "
             "when the true gap is --bias (default 0); needs --method.")] = None,
) -> None:
    """Solve the Bernstein (BBU) bound for whichever of n, bias, confidence is missing."""
    from fairbound.cli._common import check_output_file
    from fairbound.errors import FairboundError
    from fairbound.planning import plan_bbu
    from fairbound.viz.planning import plot_plan_curve

    fmt = check_format(fmt)
    # every number and output is checked before anything is computed or written
    if n is not None:
        check_float(n, "n", low=0.0, low_open=True, finite=False)
    if n is not None and math.isinf(n):
        raise FairboundError(f"n must be a finite number of annotated examples; got {n!r}",
                             param="n")
    if variance is not None and math.isinf(variance):
        raise FairboundError(f"variance must be a finite number >= 0; got {variance!r}",
                             param="variance")
    if figure is not None:
        check_output_file("--figure", figure, FIGURE_SUFFIXES, "use .png, .svg or .pdf")
    if html is not None:
        check_output_file("--html", html, (".html", ".htm"), "use .html")
    if concentration is not None and method is None:
        raise FairboundError(f"concentration: --concentration plans Beta costs with --method "
                             f"(e.g. --method auto --cost beta); got --concentration "
                             f"{concentration!r}", param="concentration")
    if method is not None or power is not None or tolerance is not None:
        if method is None and tolerance is not None:
            raise FairboundError(f"tolerance: a parity plan needs --method (e.g. --method "
                                 f"auto); got --tolerance {tolerance!r}", param="tolerance")
        if method is None:
            raise FairboundError(f"--power needs --method (e.g. --method betting); got "
                                 f"power={power!r}", param="method")
        if html is not None:
            raise FairboundError(f"html: --html reports the Bernstein plan and is not "
                                 f"available with --method; got --html {str(html)!r}",
                                 param="html")
        plan_with_method(method=method, n=n, gap=bias, power=power, rate_b=rate_b,
                         share=share, cost=cost,
                         confidence_level=0.95 if confidence is None else confidence,
                         n_sims=sims, seed=seed, fmt=fmt, tolerance=tolerance,
                         concentration=concentration)
        return
    if n is None and bias is None and confidence is None:
        bias, confidence = 0.05, 0.95
    elif confidence is None and (n is None or bias is None):
        confidence = 0.95
    p = plan_bbu(n=n, bias=bias, confidence_level=confidence, gamma=gamma, cost_max=cost_max,
                 variance=variance, corrected=corrected)
    frame = p.curve() if (curve or fmt == "csv") else None
    outputs = []  # written together, all or none
    if html is not None:
        from fairbound.report import render_plan_report

        outputs.append(("--html", html, render_plan_report(p).encode("utf-8")))
    if figure is not None:
        import io

        fig = plot_plan_curve(p)
        buf = io.BytesIO()
        fig.savefig(buf, format=figure.suffix.lower().lstrip(".") or "png", dpi=120)
        outputs.append(("--figure", figure, buf.getvalue()))
    if outputs:
        from fairbound._io import write_all_atomic

        write_all_atomic(outputs)
    if fmt == "json":
        out = p.to_dict()
        if frame is not None:
            out["curve"] = frame.to_dict("records")
        typer.echo(json.dumps(out, indent=2))
        return
    if fmt == "csv":
        from fairbound.cli._common import echo_csv

        echo_csv(frame)
        return
    con = console()
    settings = (f"C = {p.cost_max:g}, gamma = {p.gamma:g}, sigma^2 = {p.variance:g}"
                f"{' (worst case)' if variance is None else ''}, range M = {p.M:g}"
                f"{' (corrected)' if p.corrected else ''}")
    if p.solved_for == "n":
        con.print(f"To claim a bias of {p.bias:g} with {p.confidence_level:.0%} confidence "
                  f"you need n > {p.n:,.1f}, i.e. [bold]n = {p.n_required:,}[/] annotated "
                  f"examples ({p.winobias_ratio:.1f}x the 3,160 sentences of WinoBias).")
    elif p.solved_for == "bias":
        con.print(f"With n = {p.n:,.0f} annotated examples and {p.confidence_level:.0%} "
                  f"confidence, the smallest claimable bias is [bold]{p.bias_rounded_up:.4f}[/] "
                  f"(exact half-width {p.bias:.5f}).")
    else:
        con.print(f"With n = {p.n:,.0f} and a bias of {p.bias:g}, the Bernstein bound gives "
                  f"[bold]{p.confidence_level:.4f}[/] confidence.")
    con.print(f"[dim]{settings}[/]")
    if frame is not None:
        from rich.table import Table

        t = Table("bias", "n needed", header_style="bold")
        for r in frame.itertuples():
            t.add_row(f"{r.bias:.3f}", fmt_int(r.n))
        con.print(t)
    if figure is not None:
        con.print(f"figure written to {figure}")


def plan_with_method(
    *,
    method: str,
    n: float | None,
    gap: float | None,
    power: float | None,
    rate_b: float,
    share: float,
    cost: str,
    confidence_level: float,
    n_sims: int,
    seed: int,
    fmt: str,
    tolerance: float | None = None,
    concentration: float | None = None,
) -> None:
    """``fairbound plan --method M``: print :func:`~fairbound.planning.power.plan_for_method`.

    Called by the ``plan`` command when ``--method`` or ``--power`` is given; the BBU
    planner stays the default otherwise.
    """
    from fairbound.planning.power import describe_power_plan, plan_for_method

    check_choice(fmt, ("table", "json"), "format", note="with --method")
    r = plan_for_method(method, n=n, gap=gap, power=power, rate_b=rate_b, share=share,
                        cost=cost, confidence_level=confidence_level, n_sims=n_sims, seed=seed,
                        tolerance=tolerance, concentration=concentration)
    if fmt == "json":
        typer.echo(json.dumps(r.to_dict(), indent=2, default=float))
        return
    for line in describe_power_plan(r):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    """Add ``plan`` to the CLI."""
    app.command("plan")(plan_command)
