"""Markdown export of an audit, for model cards and pull requests."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fairbound._docs import fill
from fairbound._validate import check_int
from fairbound._words import NOT_ESTIMABLE
from fairbound.report._common import UNREACHABLE_FACTOR, check_path, fci, fint, fnum, write_page
from fairbound.report.audit_report import (
    GAP_VERDICTS,
    NO_GAP,
    _facts,
    _heading,
    _verdict_text,
    comparison_level,
    comparison_sentence,
    fmt_level,
    interval_level_text,
    need_cell,
    normalise_audit,
    parity_cell,
    sentence_context,
)
from fairbound.viz.audit import audit_dict

# Characters with a Markdown meaning mid-line; an underscore only at a word edge (GFM leaves
# intraword underscores alone, so metric names stay readable).
_MD_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<!\w)_|_(?!\w))")


def md_escape(text) -> str:
    r"""Make a user string literal in Markdown (and inert where raw HTML is allowed).

    Parameters
    ----------
    text : object
        Any value; it is converted with ``str``.

    Returns
    -------
    str
        HTML-escaped, Markdown punctuation backslash-escaped, newlines folded.

    Examples
    --------
    >>> print(md_escape("<script>alert(1)</script> | *x* a_b"))
    &lt;script&gt;alert(1)&lt;/script&gt; \| \*x\* a_b
    """
    s = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(s, quote=False))


@fill
def to_markdown(result, *, title: str | None = None, max_rows: int | None = None) -> str:
    """The audit as Markdown: what was audited, the findings and the table of gaps.

    Parameters
    ----------
    result : AuditResult, dict or path
        The audit (live, ``to_dict()`` form or a JSON file).
    title : str, optional
        Heading (default: "Fairness audit by <group columns>").
    max_rows : int, optional
        Keep at most this many rows in the table (all by default); the findings list is
        never cut.

    Returns
    -------
    str
        GitHub-flavoured Markdown.

    Notes
    -----
    Every user string is escaped, so a group named ``<script>`` stays text in renderers
    that allow raw HTML.

    {{toy_examples}}
    >>> md = to_markdown(audit(df, group="g", label="y", prediction="p"))
    >>> md.splitlines()[0]
    '## Fairness audit by g'
    >>> "| a | b |" in md
    True
    """
    d = normalise_audit(audit_dict(result))
    ctx = sentence_context(d)
    if max_rows is not None:
        check_int(max_rows, "max_rows", low=0)
    levels = interval_level_text(d)
    tol = d.get("tolerance")
    heading = title or _heading(d).replace("Audit by", "Fairness audit by", 1)
    out = [f"## {md_escape(heading)}", ""]
    for k, v in _facts(d):
        out.append(f"- **{k}:** {md_escape(v)}")
    out.append("- **Groups:** " + ", ".join(
        f"{md_escape(g['group'])} ({int(g['rows']):,})" for g in d["groups"]))
    out += ["", "### Findings", ""]
    comps = d["comparisons"]
    gap = [c for c in comps if c["verdict"] in GAP_VERDICTS]
    ok = [c for c in comps if c["verdict"] == NO_GAP]
    rest = [c for c in comps if c["verdict"] not in GAP_VERDICTS and c["verdict"] != NO_GAP]
    if not gap:
        out.append(f"No interval excludes zero ({levels} intervals); not enough evidence is "
                   "not evidence of equality.")
        out.append("")
    out += [f"- {md_escape(comparison_sentence(c, result=ctx))}" for c in gap + ok + rest]
    parity = tol is not None
    out += ["", f"### Gaps ({md_escape(d['method'])}, {levels} intervals)", "",
            "| metric | rate | A | B | n A | n B | rate A | rate B | gap | interval | level "
            "| verdict | n needed |" + (" n for parity |" if parity else ""),
            "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|" + ("--:|" if parity else "")]
    shown = comps if max_rows is None else comps[:max_rows]
    for c in shown:
        verdict, _ = _verdict_text(c)
        if c["component"] == "max":
            g, ci = fnum(c["estimate"]), fci(c["low"], c["high"])
        else:
            g = fnum(c["rate_gap"], signed=True)
            ci = fci(c["rate_gap_low"], c["rate_gap_high"], signed=True)
        rate = c["rate"] if c.get("class") is None else f"{c['rate']} (k={c['class']})"
        lvl = "-" if c["verdict"] == NOT_ESTIMABLE else fmt_level(comparison_level(c))
        cells = [c["metric"], rate, c["group_a"], c["group_b"], fint(c["n_a"]),
                 fint(c["n_b"]), fnum(c["rate_a"]), fnum(c["rate_b"]), g, ci, lvl, verdict,
                 need_cell(c)] + ([parity_cell(c)] if parity else [])
        user = {1, 2, 3, 11}  # rate (class), groups, verdict (group) hold data values
        out.append("| " + " | ".join(md_escape("missing" if x is None else x) if i in user
                                      else str(x).replace("|", "\\|")
                                      for i, x in enumerate(cells)) + " |")
    if len(shown) < len(comps):
        out.append(f"\n{len(comps) - len(shown)} more rows in the JSON export.")
    out += ["", f"Gap = rate(A) - rate(B). Interval method: {md_escape(d['method'])} "
                f"({md_escape(d['guarantee'])}); *level*: the level of the row's own "
                f"interval ({md_escape(d.get('error_control', 'none'))} error control, above). "
                "*n needed*: total annotated examples at which the interval would exclude 0 "
                "at the observed gap (*reached*: the interval already does; *not reachable*: "
                f"over {UNREACHABLE_FACTOR} times the rows compared)." + (
                    f" *n for parity*: total examples at which the interval would lie within "
                    f"+/-{tol:g} if the observed gap were the truth." if parity else "")
            + f" Generated by fairbound {md_escape(d['fairbound_version'])}.", ""]
    return "\n".join(out)


@fill
def write_markdown(result, path, *, title: str | None = None) -> Path:
    """Write :func:`to_markdown` of ``result`` to ``path`` (``.md``).

    Parameters
    ----------
    result : AuditResult, dict, path, or a list of them
        One audit or several (written one after the other).
    path : str or Path
        Output file ending in ``.md`` or ``.markdown``.
    title : str, optional
        Heading of a single audit.

    Returns
    -------
    Path

    {{toy_examples}}
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "card.md"
    >>> write_markdown(audit(df, group="g", label="y", prediction="p"), out).suffix
    '.md'
    """
    p = check_path(path, (".md", ".markdown"))
    return write_page(p, markdown_text(result, title=title))


def markdown_text(result, *, title: str | None = None) -> str:
    """:func:`to_markdown` of one audit, or of several one after the other."""
    items = result if isinstance(result, list | tuple) else [result]
    return "\n".join(to_markdown(r, title=title if len(items) == 1 else None) for r in items)


__all__ = ["markdown_text", "md_escape", "to_markdown", "write_markdown"]
