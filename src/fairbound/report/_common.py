"""Shared pieces of the report renderers: the template environment, figures, numbers."""

from __future__ import annotations

import base64
import datetime as _dt
import functools
import io
import math
from pathlib import Path

from markupsafe import Markup

from fairbound._render import as_number as num
from fairbound._render import fmt_level  # noqa: F401  (re-exported: one level format)
from fairbound._validate import check_text, fail
from fairbound.errors import FairboundError, MissingDependencyError

NO_FIGURES = ('Figures are left out: matplotlib is not installed '
              '(pip install "fairbound[plot]"). The tables below hold every number.')


@functools.cache
def environment():
    """The Jinja2 environment: autoescaping on, undefined names are errors."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("fairbound.report", "templates"),
        autoescape=True,  # every user string (groups, columns, file names) is escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@functools.cache
def stylesheet() -> str:
    """The report's CSS, inlined into every page."""
    return environment().loader.get_source(environment(), "report.css")[0]


def version() -> str:
    """The installed fairbound version."""
    from fairbound._version import __version__

    return __version__


def now_utc() -> str:
    """Current UTC time as ``YYYY-MM-DD HH:MM UTC``."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def render_page(*, title: str, kicker: str, sections: list[Markup], toc: list[dict],
                footer: str = "") -> str:
    """Wrap rendered sections into one self-contained HTML page."""
    return environment().get_template("layout.html.j2").render(
        title=title, kicker=kicker, sections=sections, toc=toc, css=Markup(stylesheet()),
        version=version(), created=now_utc(), footer=footer)


def render_section(template: str, **context) -> Markup:
    """Render one section template (already escaped, safe to insert in the page)."""
    return Markup(environment().get_template(template).render(**context))


def figure_img(fig, alt: str, *, close: bool = True) -> Markup:
    """A matplotlib figure as an ``<img>`` holding an SVG data URI.

    An SVG inside ``<img>`` is inert: browsers never run scripts or fetch resources from it,
    so the figure cannot carry active content even if a label did.  Text is drawn as paths
    (``svg.fonttype = 'path'``), so the figure looks the same without any installed font.
    """
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "fairbound"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    if close:
        import matplotlib.pyplot as plt

        plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    w, h = (fig.get_size_inches() * 96).round().astype(int)
    return Markup('<img src="data:image/svg+xml;base64,{}" alt="{}" width="{}" '
                  'height="{}" loading="eager">').format(Markup(data), alt, int(w), int(h))


def try_figure(make, alt: str) -> Markup | None:
    """Draw a figure with ``make()``; ``None`` when matplotlib is missing."""
    try:
        fig = make()
    except MissingDependencyError:
        return None
    return figure_img(fig, alt)


def have_matplotlib() -> bool:
    """Whether figures can be drawn."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def fnum(x, digits: int = 3, *, signed: bool = False) -> str:
    """Format a number for a table cell (``-`` for NaN, ``inf`` kept).

    Examples
    --------
    >>> fnum(0.12345), fnum(-0.0001, signed=True), fnum(None), fnum(float("inf"))
    ('0.123', '+0.000', '-', 'inf')
    """
    v = num(x)
    if math.isnan(v):
        return "-"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if round(v, digits) == 0:
        v = 0.0  # no "-0.000"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def fint(x) -> str:
    """Format a count with thousands separators (``-`` for missing)."""
    v = num(x)
    if math.isnan(v):
        return "-"
    if math.isinf(v):
        return "inf"
    return f"{v:,.0f}"


def fci(lo, hi, *, signed: bool = False) -> str:
    """Format an interval ``[lo, hi]``."""
    if math.isnan(num(lo)) or math.isnan(num(hi)):
        return "-"
    return f"[{fnum(lo, signed=signed)}, {fnum(hi, signed=signed)}]"


def write_page(path: Path, text: str, *, param: str = "path", inputs=()) -> Path:
    """Write a page whole or not at all (:func:`fairbound._io.write_text_atomic`).

    A new file gets the permissions a plain ``open`` would give it (``0666 & ~umask``), as
    a report is meant to be shared; a named pipe or a device is written in place, never
    replaced or changed.
    """
    from fairbound._io import write_text_atomic

    return write_text_atomic(path, text, param=param, inputs=inputs)


def check_title(title, default: str) -> str:
    """Validate a report title (a one-line string)."""
    if title is None:
        return default
    return " ".join(check_text(title, "title").split())


def check_path(path, suffixes: tuple[str, ...], param: str = "path") -> Path:
    """Validate an output path (its suffix and that it is not a folder)."""
    if not isinstance(path, str | Path) or not str(path):
        fail(param, "a file path", path)
    p = Path(path)
    if p.is_dir():
        raise FairboundError(f"{param}: {str(p)!r} is a folder; give a file name such as "
                             f"report{suffixes[0]}", param=param)
    if p.suffix.lower() not in suffixes:
        raise FairboundError(f"{param}: {str(p)!r} should end in {' or '.join(suffixes)}",
                             param=param)
    return p


def table_view(records, columns, *, caption: str = "", cls: str = "") -> dict:
    """A table for the ``macros.table`` template macro.

    Parameters
    ----------
    records : iterable of mapping
        Rows (``DataFrame.to_dict('records')`` or dicts).
    columns : list of (title, key, kind)
        ``kind``: ``"text"``, ``"int"``, ``"num"`` (3 decimals), ``"pct"``, ``"p"``
        (p-value), or a callable of the row returning text.
    caption : str
        Table caption.
    cls : str
        CSS class.
    """
    fmt = {"text": lambda v: "-" if v is None else str(v), "int": fint, "num": fnum,
           "pct": lambda v: "-" if math.isnan(num(v)) else f"{num(v):.0%}",
           "g": lambda v: "-" if math.isnan(num(v)) else f"{num(v):.2g}",
           "p": lambda v: "-" if math.isnan(num(v)) else (f"{num(v):.2g}" if num(v) < 0.001
                                                           else f"{num(v):.3f}")}
    cols, rows = [], []
    for title, _key, kind in columns:
        cols.append({"name": title, "num": kind in ("int", "num", "pct", "p", "g")})
    for r in records:
        row = []
        for _title, key, kind in columns:
            row.append(kind(r) if callable(kind) else fmt[kind](r.get(key)))
        rows.append(row)
    return {"columns": cols, "rows": rows, "caption": caption, "cls": cls}
