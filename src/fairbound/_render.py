"""Number formatting shared by the CLI, the reports and the figures; the CLI's console."""

from __future__ import annotations

import math

from fairbound._validate import check_choice

FORMATS = ("table", "json", "csv")


def check_format(fmt: str) -> str:
    """Validate ``--format``."""
    return check_choice(fmt, FORMATS, "format", fold=True)


def as_number(x) -> float:
    """A JSON number as a float: NaN for ``None``, NaN and anything that is not a number.

    Examples
    --------
    >>> as_number("0.5"), as_number(None), as_number("n/a")
    (0.5, nan, nan)
    """
    xf = _as_float(x)
    return math.nan if xf is None else xf


def _as_float(x) -> float | None:
    """``x`` as a float, or ``None`` for missing values and text."""
    if x is None:
        return None
    try:
        xf = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(xf) else xf


def fmt_num(x, digits: int = 3) -> str:
    """A number for a table cell (``-`` for NaN, ``inf`` kept)."""
    xf = _as_float(x)
    if xf is None:
        return "-" if x is None or isinstance(x, float | int) else str(x)
    return "inf" if math.isinf(xf) else f"{xf:.{digits}f}"


def fmt_int(x) -> str:
    """A count for a table cell."""
    xf = _as_float(x)
    if xf is None:
        return "-" if x is None or isinstance(x, float | int) else str(x)
    return "inf" if math.isinf(xf) else f"{xf:,.0f}"


def fmt_level(level) -> str:
    """A confidence level as a percentage with the digits that tell it apart.

    Exact when a few digits suffice (``97.5%``, ``98.75%``); otherwise cut, never rounded
    up, so a level is not shown higher than it is.

    Examples
    --------
    >>> fmt_level(0.95), fmt_level(1 - 0.05 / 30), fmt_level(0.9875), fmt_level(1 - 0.05 / 3000)
    ('95%', '99.83%', '98.75%', '99.9983%')
    """
    v = _as_float(level)
    if v is None or not math.isfinite(v):
        return "-"
    a = 1.0 - v
    if a <= 0:
        return "100%"
    pct = v * 100
    d0 = max(0, math.ceil(-math.log10(a * 100)) + 1)
    for d in range(d0, d0 + 3):
        text = f"{pct:.{d}f}"
        if abs(float(text) - pct) < 1e-9:
            break
    else:
        text = f"{math.floor(pct * 10 ** d0 + 1e-9) / 10 ** d0:.{d0}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def plain(value) -> str:
    r"""``value`` as text to put in a console line or table cell, shown as it is.

    Control characters become ``\xNN`` escapes and rich markup is escaped, so that a group
    name such as ``"[red]x"`` or one holding terminal escape sequences is shown literally
    instead of styling, retitling or moving the terminal.

    Examples
    --------
    >>> plain("[bold]x\x1b[2J")
    '\\[bold]x\\x1b[2J'
    """
    from rich.markup import escape

    from fairbound._io import escape_controls

    return escape(escape_controls(str(value)))


_CONSOLE_CLASS = None


def _console_class():
    """A rich ``Console`` that never lets a control character through (built once)."""
    global _CONSOLE_CLASS
    if _CONSOLE_CLASS is None:
        from rich.console import Console
        from rich.errors import MarkupError

        from fairbound._io import escape_controls

        class SafeConsole(Console):
            """Every string printed or put in a table is cleaned of control characters.

            Markup that does not parse (a group name such as ``"[/]"`` that a printer
            forgot to pass through :func:`plain`) is shown literally, never a traceback.
            """

            def render_str(self, text, **kwargs):
                text = escape_controls(text)
                try:
                    return super().render_str(text, **kwargs)
                except MarkupError:
                    return super().render_str(text, **{**kwargs, "markup": False})

        _CONSOLE_CLASS = SafeConsole
    return _CONSOLE_CLASS


def console(**options):
    r"""A rich console writing to standard output (plain text when not a terminal).

    Control characters in anything it prints are shown as ``\xNN`` escapes; see
    :func:`plain` for data put into markup.  ``options`` go to ``rich.console.Console``.
    """
    settings = {"highlight": False, "soft_wrap": False, "width": 160, **options}
    return _console_class()(**settings)
