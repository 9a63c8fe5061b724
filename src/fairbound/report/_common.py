"""Shared pieces of the report renderers: the template environment, figures, numbers."""

from __future__ import annotations

import base64
import datetime as _dt
import functools
import io
import math
import textwrap
from pathlib import Path

from markupsafe import Markup

from fairbound._render import as_number as num
from fairbound._render import fmt_level  # noqa: F401  (re-exported: one level format)
from fairbound._validate import check_text, fail
from fairbound._words import NO_EVIDENCE, NOT_ESTIMABLE
from fairbound.errors import FairboundError, MissingDependencyError

NO_FIGURES = ('Figures are left out: matplotlib is not installed '
              '(pip install "fairbound[plot]"). The tables below hold every number.')

#: Docstring text that several report functions share, for ``fairbound._docs.fill``
#: (``@fill(**DOCS)``).
DOCS = {
    # the last parameters and the Returns of a ``write_*_report``
    "write_options": (
        "title : str, optional\n"
        "    Page title.\n"
        "figures : bool\n"
        "    Include the figures.\n"
        "\n"
        "Returns\n"
        "-------\n"
        "Path\n"
        "    The file written."
    ),
    # the opening of the Parameters of a stability study's report writers
    "study_parameters": (
        "Parameters\n"
        "----------\n"
        "result : StudyResult\n"
        "    The study."
    ),
}


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


def template_page(template: str, view: dict, *, title, default_title: str, kicker: str,
                  footer: str, toc: list[dict] | None = None) -> str:
    """A page of one section: ``template`` (the text of a template) rendered with ``s=view``.

    ``title`` is the caller's (checked by :func:`check_title`; ``None`` gives
    ``default_title``).  The pages of the prediction-powered, proxy-group, score and
    impact-ratio audits are made this way.
    """
    title = check_title(title, default_title)
    section = Markup(environment().from_string(template).render(s=view))
    return render_page(title=title, kicker=kicker, sections=[section],
                       toc=[] if toc is None else toc, footer=footer)


def verdict_counts(rows, gap) -> dict[str, int]:
    """The counts a page's badges show: rows, verdicts in ``gap``, open and not estimable.

    Examples
    --------
    >>> from fairbound._words import A_DISADVANTAGED, NO_EVIDENCE
    >>> verdict_counts([{"verdict": A_DISADVANTAGED}, {"verdict": NO_EVIDENCE}],
    ...                (A_DISADVANTAGED,))
    {'n_rows': 2, 'n_gap': 1, 'n_open': 1, 'n_na': 0}
    """
    verdicts = [r["verdict"] for r in rows]
    return {"n_rows": len(verdicts), "n_gap": sum(v in gap for v in verdicts),
            "n_open": verdicts.count(NO_EVIDENCE), "n_na": verdicts.count(NOT_ESTIMABLE)}


#: Width (inches) of the figures drawn again for narrow screens: at 96 px an inch this
#: is 413 px, shown at about 0.9x on a 390 px phone, so 7.5 pt labels stay ~9 px high.
NARROW_INCHES = 4.3
#: Screens at most this wide get the narrow figures and the card layout of tables.
NARROW_MEDIA = "(max-width: 40rem)"


def min_font_pt(fig) -> float:
    """The smallest font size (points) of any visible text in a matplotlib figure."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return float(min(sizes)) if sizes else math.nan


def _svg_uri(fig) -> tuple[str, int, int]:
    """``(data URI, width px, height px)`` of the figure as an SVG with text as paths."""
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "fairbound"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    w, h = (fig.get_size_inches() * 96).round().astype(int)
    return "data:image/svg+xml;base64," + data, int(w), int(h)


def _wrap_labels(fig, width: int = 22) -> bool:
    """Break long y tick labels in two (at ``"  ("`` or ``" vs "``); ``True`` if any was."""
    changed = False
    for ax in fig.axes:
        labels = ax.get_yticklabels()
        texts = [t.get_text() for t in labels]
        new = []
        for t in texts:
            if len(t) > width:
                for sep, keep in (("  (", "("), (" (", "("), (" vs ", "vs ")):
                    if sep in t:
                        head, tail = t.split(sep, 1)
                        t = f"{head}\n{keep}{tail}"
                        break
            new.append(t)
        if new != texts:
            ax.set_yticks(ax.get_yticks(), new)
            for old, lab in zip(labels, ax.get_yticklabels(), strict=True):
                lab.set_fontsize(old.get_fontsize())
            changed = True
        xlabel = ax.get_xlabel()
        if len(xlabel) > 56 and "\n" not in xlabel:
            ax.set_xlabel(textwrap.fill(xlabel, 50))
            changed = True
    for t in fig.texts:  # titles over the whole figure
        if len(t.get_text()) > 56 and "\n" not in t.get_text():
            t.set_text(textwrap.fill(t.get_text(), 50))
            changed = True
    return changed


def _narrow(fig) -> bool:
    """Lay ``fig`` out again at :data:`NARROW_INCHES` wide (same fonts).

    Long y labels are broken in two where that is needed to fit.  ``False`` (and nothing
    to use) when the figure is narrow already or its labels still do not fit that width
    (the drawing would spill over, so only the wide figure is kept).
    """
    import warnings

    w, h = fig.get_size_inches()
    if w <= NARROW_INCHES * 1.15:
        return False
    fig.set_size_inches(NARROW_INCHES, h)

    def width() -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "tight_layout not applied": measured below
            engine = fig.get_layout_engine()
            if engine is None or type(engine).__name__ == "PlaceHolderLayoutEngine":
                fig.tight_layout()  # a figure laid out once by tight_layout: again
            fig.draw_without_rendering()
            return fig.get_tightbbox().width

    if width() <= NARROW_INCHES * 1.02:
        return True
    if _wrap_labels(fig):
        fig.set_size_inches(NARROW_INCHES, h * 1.25)
    return width() <= NARROW_INCHES * 1.15


def figure_img(fig, alt: str, *, close: bool = True, narrow=True) -> Markup:
    """A matplotlib figure as an ``<img>`` holding an SVG data URI.

    An SVG inside ``<img>`` is inert: browsers never run scripts or fetch resources from it,
    so the figure cannot carry active content even if a label did.  Text is drawn as paths
    (``svg.fonttype = 'path'``), so the figure looks the same without any installed font.

    For narrow screens (:data:`NARROW_MEDIA`) a second drawing is given as a ``<picture>``
    source, so labels stay legible on a phone instead of shrinking to a few pixels:
    ``narrow`` is a figure drawn for phones, or a callable returning one, or ``True`` to
    lay ``fig`` out again at :data:`NARROW_INCHES` (kept only if its labels fit), or
    ``False``.  ``data-min-font-pt`` holds the smallest font size in the figure: its
    smallest label is ``min-font-pt * 4/3 * shown width / natural width`` CSS pixels high.

    Examples
    --------
    >>> import matplotlib.figure
    >>> fig = matplotlib.figure.Figure(figsize=(7, 2), layout="constrained")
    >>> _ = fig.add_subplot().set_title("gap", fontsize=9)
    >>> html = figure_img(fig, "a gap")
    >>> html.startswith("<picture>"), 'alt="a gap"' in html, 'data-min-font-pt="9"' in html
    (True, True, True)
    """
    uri, w, h = _svg_uri(fig)
    font = min_font_pt(fig)
    small = None
    if callable(narrow) and not hasattr(narrow, "savefig"):
        narrow = narrow()
    if hasattr(narrow, "savefig"):
        small = _svg_uri(narrow) + (min_font_pt(narrow),)
        _close(narrow)
    elif narrow and _narrow(fig):
        small = _svg_uri(fig) + (font,)
    if close:
        _close(fig)
    img = Markup('<img src="{}" alt="{}" width="{}" height="{}" loading="eager" '
                 'data-min-font-pt="{}">').format(Markup(uri), alt, w, h, _pt(font))
    if small is None:
        return img
    return Markup('<picture><source media="{}" srcset="{}" width="{}" height="{}" '
                  'data-min-font-pt="{}">{}</picture>').format(
        NARROW_MEDIA, Markup(small[0]), small[1], small[2], _pt(small[3]), img)


def _pt(x: float) -> str:
    return f"{x:g}" if math.isfinite(x) else ""


def _close(fig) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def try_narrow(make):
    """``make()``, or ``None`` when it fails (a figure for phones is never required)."""
    try:
        return make()
    except Exception:  # noqa: BLE001 - the wide figure is always there
        return None


def try_figure(make, alt: str, narrow=True) -> Markup | None:
    """Draw a figure with ``make()``; ``None`` when matplotlib is missing.

    ``narrow``: a callable drawing the figure for phones (see :func:`figure_img`).
    """
    try:
        fig = make()
    except MissingDependencyError:
        return None
    return figure_img(fig, alt, narrow=narrow)


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


#: An "n needed" above this many times the rows already compared is not asked for: the
#: sentence says "not reachable with data like this" instead.
UNREACHABLE_FACTOR = 100
#: ... and gives the smallest gap that this many times the rows could show.
MORE_DATA_FACTOR = 10


def unreachable(need, have) -> bool:
    """Whether a planned ``need`` exceeds :data:`UNREACHABLE_FACTOR` times ``have``.

    Examples
    --------
    >>> unreachable(451_245_094, 2_845), unreachable(3_752, 3_669), unreachable(float("inf"), 10)
    (True, False, False)
    """
    need, have = num(need), num(have)
    return (math.isfinite(need) and math.isfinite(have) and have > 0
            and need > UNREACHABLE_FACTOR * have)


def need_phrase(need, have, reachable: str, *, noun: str = "annotated examples",
                smallest_gap=math.nan, gap_words: str = "a gap", shown: str = "") -> str:
    """How much data would settle a question, in words: the one rule every report uses.

    Parameters
    ----------
    need : float
        The planned total (``n needed``).
    have : float
        The rows (examples, gold labels, applicants) already compared.
    reachable : str
        The phrase to use when ``need`` is within reach (returned unchanged).
    noun : str
        What ``have`` counts.
    smallest_gap : float
        The smallest gap :data:`MORE_DATA_FACTOR` times ``have`` could show (NaN: unknown).
    gap_words : str
        What is shown (``"a gap"``, ``"a difference"`` ...).
    shown : str
        What :data:`MORE_DATA_FACTOR` times the data could show, in words (used instead of
        ``smallest_gap`` where a gap is not the scale, e.g. impact ratios).

    Returns
    -------
    str
        ``reachable``, or, when ``need`` exceeds :data:`UNREACHABLE_FACTOR` times ``have``,
        "not reachable with data like this" and what ten times the data could show.

    Examples
    --------
    >>> need_phrase(451_245_094, 2_845, "about 451,242,249 more would settle it",
    ...             smallest_gap=0.1487)  # doctest: +NORMALIZE_WHITESPACE
    'not reachable with data like this (it would take over 100 times the 2,845 annotated
     examples compared); 10 times as many (28,450) could show a gap of 0.149 or more'
    >>> need_phrase(3_752, 3_669, "about 83 more would settle it")
    'about 83 more would settle it'
    """
    if not unreachable(need, have):
        return reachable
    out = (f"not reachable with data like this (it would take over {UNREACHABLE_FACTOR} "
           f"times the {fint(have)} {noun} compared)")
    gap = num(smallest_gap)
    more = f"; {MORE_DATA_FACTOR} times as many ({fint(MORE_DATA_FACTOR * num(have))}) could show"
    if shown:
        out += f"{more} {shown}"
    elif math.isfinite(gap):
        out += f"{more} {gap_words} of {gap:.3f} or more"
    return out


def write_page(path: Path, text: str, *, param: str = "path", inputs=()) -> Path:
    """Write a page whole or not at all (:func:`fairbound._io.write_text_atomic`).

    A new file gets the permissions a plain ``open`` would give it (``0666 & ~umask``), as
    a report is meant to be shared; a named pipe or a device is written in place, never
    replaced or changed.
    """
    from fairbound._io import write_text_atomic

    return write_text_atomic(path, text, param=param, inputs=inputs)


def write_html(path, render, *args, **kwargs) -> Path:
    """Check ``path`` (``.html`` or ``.htm``), then write ``render(*args, **kwargs)`` there.

    The path is checked before the page is rendered, and the page is written whole or not
    at all (:func:`write_page`): what every ``write_*_report`` does.
    """
    p = check_path(path, (".html", ".htm"))
    return write_page(p, render(*args, **kwargs))


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
