"""Regenerate every command output shown in the README and the docs, or check them.

Run from the repository root::

    python docs/regenerate.py            # rewrite every marked output block in place
    python docs/regenerate.py --check    # exit 1 with a diff when any block differs
    python docs/regenerate.py --examples # also rebuild docs/examples/ (reports, figures;
                                         # docs/build_examples.py, a few minutes)

What is generated
-----------------
A Markdown file marks each output it shows with the command that prints it, on the line
just above the fenced block::

    <!-- fairbound:run fairbound audit adult_test_predictions.parquet --group sex ... -->
    ```text
    (the command's output, written by this script)
    ```

The command runs in a scratch folder that holds the bundled data as files (see
:data:`FILES`: ``adult_test_predictions.parquet`` holds the 16,281 test predictions of the
model of ``fairbound example adult``), with a fixed terminal width and no colour, so the
output is the same on every machine. A paragraph that quotes numbers from those outputs is
marked ``<!-- fairbound:numbers -->`` on the line above it: every number in it with three or
more digits, or a decimal point, must appear in one of the page's generated outputs, so
prose cannot keep a number the tool no longer prints.

More markers:

* ``<!-- fairbound:run-long CMD -->``: an output that trains models or runs a long
  simulation. ``python docs/regenerate.py`` regenerates it like any other; ``--check``
  leaves it alone (the fast check) and ``--check --long`` checks only these (the slow suite).
* ``CMD`` may chain commands with `` && `` (the block shows the last one's output), end
  in ``| head -n N`` (the first N lines) or ``| grep -e "A" -e "B"`` (the lines holding
  A or B), or list commands with `` ; `` (each one's output). A block whose text starts
  with ``$ `` shows the commands first, as a terminal would.
* ``<!-- fairbound:python -->`` above an output block: what the page's ``python`` blocks
  above it print, run in order in one interpreter (in the scratch folder).
* ``<!-- fairbound:setup -->`` above a ``python`` block: the page's own code that writes the
  files its commands read; it runs in the scratch folder before the page's commands.
* ``<!-- fairbound:benchmark PATH -->`` above a block that quotes timings: timings are never
  regenerated. ``PATH`` is a committed benchmark output that names its machine (a line
  with ``cores``), and every line of the block must be a line of that file.

Numbers in prose
----------------
A paragraph, list item or table row that states a *measured* number (a decimal such as
0.043, a percentage, a ratio such as 1.9x, a timing in s or ms, a count with a thousands
separator; see :data:`MEASURED` and :data:`NOT_MEASURED`: versions, dates, section numbers
and anything in backticks are not measured numbers) must say where the number comes from,
with a marker on the line above its paragraph (a marker above a table or list covers all of
its rows or items, up to the next blank line; inside a list item, indent it as the item):

* ``<!-- fairbound:numbers -->``: the numbers are in the page's generated outputs (above);
* ``<!-- fairbound:cites results PATH -->``: a committed output in ``benchmarks/results/``
  that names its machine (a line with ``cores``) and holds every number;
* ``<!-- fairbound:cites paper SEED where -->``: a seed paper (``SEED`` a file of
  ``../shared/seeds/``); where the seed is present, it must hold every number;
* ``<!-- fairbound:cites law SOURCE -->``: a statute or rule, named in ``SOURCE``;
* ``<!-- fairbound:cites test tests/PATH.py::test_name ... -->``: tests that assert the
  numbers; each must exist and hold every number (in the test or its module's constants);
* ``<!-- fairbound:cites code src/fairbound/PATH.py -->``: a default or constant of the
  package, stated in that module (``1,000,000`` may be written ``1_000_000`` there).

Several markers may stand above one paragraph; a number must be in one of their sources.
A number that is a convention, not a measurement (:data:`CONVENTIONS`: confidence levels,
the four-fifths rule), needs no source. A paragraph that cannot cite a source is listed in
:data:`ALLOWED` under a category that gives the reason (derived, approximate, unkept, ...).
``--check`` fails on a cited number missing from its source and on a paragraph with none;
``python docs/regenerate.py --census`` counts the numeric paragraphs of each kind.

``tests/docs/test_regenerate.py`` checks that every output block of the README and the docs
carries one of these markers (or is listed there with the reason it does not), runs
``--check`` in the ``long`` suite and ``--check --long`` in the ``slow`` one.
``--examples`` also rebuilds the reports, JSON and figures of ``docs/examples/``
(``docs/build_examples.py``; compared by ``tests/docs/test_build_examples.py``).
"""

from __future__ import annotations

import argparse
import difflib
import functools
import os
import re
import shlex
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose marked blocks are generated.
PAGES = ("README.md", "docs/*.md")
#: Terminal width of every generated output.
WIDTH = 160   # what fairbound._render.console() uses off a terminal
RUN = re.compile(r"^<!-- fairbound:(?P<kind>run|run-long) (?P<cmd>.+?) -->\n"
                 r"(?P<fence>```[a-z]*)\n(?P<body>.*?)^```$", re.M | re.S)
PYOUT = re.compile(r"^<!-- fairbound:python -->\n(?P<fence>```[a-z]*)\n(?P<body>.*?)^```$",
                   re.M | re.S)
PYCODE = re.compile(r"^```python\n(?P<code>.*?)^```$", re.M | re.S)
CUT = "\x00fairbound-cut\x00"
SETUP = re.compile(r"^<!-- fairbound:setup -->\n```python\n(?P<code>.*?)^```$", re.M | re.S)
BENCHMARK = re.compile(r"^<!-- fairbound:benchmark (?P<path>\S+) -->\n```[a-z]*\n"
                       r"(?P<body>.*?)^```$", re.M | re.S)
HEAD = re.compile(r"\s*\|\s*head -n (?P<n>\d+)\s*$")
GREP = re.compile(r"\s*\|\s*grep (?P<args>(?:-e \"[^\"]+\"\s*)+)$")
NUMBERS = re.compile(r"^<!-- fairbound:numbers -->\n(?P<para>(?:.+\n)+)", re.M)
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d{3,}|\d*\.\d+)(?![\w])")
#: A number a reader could take for a measurement: a count with a thousands separator, a
#: decimal, a percentage, a ratio (``1.9x``) or a timing (``s``, ``ms``).
MEASURED = re.compile(r"(?<![\w.\-/])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?"
                      r"|\d*\.\d+(?:e[-+]?\d+)?(?:\s?(?:%|x\b|s\b|ms\b))?"
                      r"|\d+(?:\s?%|x\b|\s?ms\b|\s?s\b))(?![\w.]*\d)")
#: Text that holds no measured number: code spans, comments, link targets, software
#: versions, dates, times of day, section numbers (``§ 1607.4``, ``Table 1.2``).
NOT_MEASURED = re.compile(
    r"`[^`]*`|<!--.*?-->|\]\([^)]*\)|https?://\S+|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}"
    r"|(?i:\b(?:python|duckdb|pandas|polars|pyarrow|pyspark|spark|numpy|scipy|fairlearn"
    r"|scikit-learn|java|multinli|version|cc by|v)\s?\d+(?:\.\d+)*)"
    r"|arXiv:\S+|§+\s*[\d.()A-Za-z-]+"
    r"|(?i:\b(?:section|sec\.|table|figure|fig\.|eq\.|equation)\s*\d+(?:\.\d+)*)")
#: Numbers that are conventions a user sets or a rule fixes, not measurements; a paragraph
#: whose every measured number is one of these needs no source.
CONVENTIONS = {
    **dict.fromkeys(("90%", "95%", "99%", "0.95", "0.05", "5%"),
                    "a confidence level or error rate: a setting, not a result"),
    **dict.fromkeys(("2.5%",), "the lower quantile of a 95% interval (alpha / 2)"),
    **dict.fromkeys(("0.8", "80%"), "the four-fifths rule (29 CFR 1607.4(D)) or the usual "
                    "80% power of a sample-size plan"),
}
#: Paragraphs whose measured numbers have no source of their own, by category:
#: ``category: (reason, ((page, start of the paragraph's text), ...))``.
ALLOWED: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "approximate": (
        "an order of magnitude given in words ('about 30% wider', 'about 98% agreement'), from "
        "runs whose output was not kept; no exact figure is claimed", (
            ('docs/stability.md', '**Metrics per run.** Accuracy, macro-F1 '),
            ('docs/few_labels.md', 'accuracy: the finite-sample PPI interval'),
        )),
    "unkept": (
        "measured once when the feature was written (a timing in passing, the value a seeded "
        "slow test printed); the output was not kept, and the paragraph names how to measure "
        "it again", (
            ('docs/nli.md', 'The resampling is vectorised. Cluster in'),
            ('docs/nli.md', 'A seeded coverage simulation (`pytest -m'),
            ('docs/proxies.md', 'The calibration check finds nothing (Hos'),
            ('docs/scores.md', '**AUC** (DeLong): asymptotic. Needs two '),
            ('docs/scores.md', 'Measured (`tests/audits/scores/test_audi'),
            ('docs/scores.md', 'The deciles rank every race about equall'),
            ('docs/reproductions.md', 'The paper (section 2) defines the cost f'),
            ('docs/reproductions.md', 'The mean selection-rate gap also moves w'),
            ('docs/overview.md', '**0/1 costs (every confusion-matrix metr'),
            ('docs/engines.md', '**hashed rows** (`"hashed rows (bottom-k'),
            ('docs/many_groups.md', 'fairlearn 0.15, `MetricFrame(metrics=sel'),
            ('docs/many_groups.md', 'The fairlearn count (needs `pip install '),
            ('docs/discover.md', '**Error control.** At most 5% of data se'),
            ('docs/discover.md', '**Peers** (earlier run of this benchmark'),
            ('docs/discover.md', '**fairaudit** (Cherian & Candes: bootstr'),
        )),
    "illustration": (
        "a made-up value in an explanation ('0.75 and 0.9 can both be chance'), not a result", (
            ('docs/impact_ratios.md', 'What fairbound adds is **the interval**.'),
        )),
    "inputs": (
        "the bad value a row of docs/bad_inputs.md feeds the tool, or the DuckDB sniffing "
        "default (20,480 rows) a row works around: an input, not a result", (
            ("docs/bad_inputs.md", "|"),
            ("docs/bad_inputs.md", "DuckDB reads CSV files"),
            ("docs/bad_inputs.md", "In the Python calls"),
        )),
    "history": (
        "the changelog records what each change measured when it was made; it is dated "
        "history, not a claim about the current tool", (
            ("docs/changelog.md", ""),
        )),
    "derived": (
        "a ratio, range or arithmetic result worked out from numbers the page cites (e.g. '2 "
        "to 13 times wider', '2 * 0.5**n: 25% at 3 runs'); the inputs are checked, the "
        "reading is not", (
            ('docs/which_interval.md', '`agresti-caffo`, `newcombe` and `bayes` '),
            ('docs/which_interval.md', 'The finite-sample bounds always cover, b'),
            ('docs/which_interval.md', '`exact`, the default for 0/1 costs, is a'),
            ('docs/which_interval.md', '`betting` always covers like the other f'),
            ('docs/stability.md', '`write_report` (folder: `scores.<fmt>`, '),
            ('docs/nli.md', '| man_is_to_programmer | 10 | 22 | 570 ('),
            ('docs/nli.md', 'Matching Table 10 too would mean choosin'),
            ('docs/nli.md', 'In a seeded simulation (60 premise templ'),
            ('docs/impact_ratios.md', '| fairbound, 60 data sets, 30 per group,'),
            ('docs/impact_ratios.md', '| fairbound, 400 data sets, 150 per grou'),
            ('docs/impact_ratios.md', '| naive: 95% interval vs the data-chosen'),
            ('docs/proxies.md', '(timings removed; 2-core shared machine.'),
            ('docs/proxies.md', '**Width.** The issue asked for intervals'),
            ('docs/proxies.md', 'The prediction-powered interval keeps it'),
            ('docs/reproductions.md', 'At 2,000 rows, the TPR gap for the class'),
            ('docs/verdicts.md', 'One audit makes many comparisons: every '),
            ('docs/verdicts.md', 'Every output says which control is in fo'),
            ('docs/disagreement.md', '| `"entropy"` | `-sum_k p_k log p_k / lo'),
            ('docs/many_groups.md', 'The asymptotic methods are tighter but u'),
            ('docs/many_groups.md', 'For 0/1 costs, `method="clopper-pearson"'),
            ('docs/discover.md', '**The depth weights.** Within `T`, depth'),
            ('docs/discover.md', '**Power vs plain Bonferroni with the old'),
            ('docs/discover.md', '**Power vs plain Bonferroni with the sam'),
        )),
}
CITES = re.compile(r"^<!-- fairbound:cites (?P<kind>results|paper|law|test|code) (?P<src>.+?) -->$")
#: Where the seed papers are (``cites paper``).
SEEDS = ROOT.parent / "shared" / "seeds"


def _adult(path: Path) -> None:
    from fairbound.examples import adult_predictions

    adult_predictions(0).to_parquet(path, index=False)


#: Files the commands can read, made once per run in the scratch folder.
FILES = {"adult_test_predictions.parquet": _adult}


def _name(page: Path) -> str:
    """The page's path as the repository names it (or as given, outside it)."""
    try:
        return str(page.relative_to(ROOT))
    except ValueError:
        return str(page)


def pages() -> list[Path]:
    """Every Markdown page that may hold generated blocks."""
    out: list[Path] = []
    for pattern in PAGES:
        out += sorted(ROOT.glob(pattern))
    return out


def _env() -> dict:
    env = dict(os.environ, COLUMNS=str(WIDTH), LINES="50", NO_COLOR="1", TERM="dumb",
               PYTHONWARNINGS="ignore", FAIRBOUND_NO_PROGRESS="1", MPLBACKEND="Agg")
    env.pop("FORCE_COLOR", None)
    return env


def run(cmd: str, cwd: Path) -> str:
    """The output of ``cmd`` (standard output, then standard error) as a reader sees it.

    ``A && B`` runs both and shows B's output (A's only if it fails); a final
    ``| head -n N`` keeps the first N lines.
    """
    if " ; " in cmd:
        return "".join(run(part, cwd) for part in cmd.split(" ; "))
    head, grep = HEAD.search(cmd), GREP.search(cmd)
    if head or grep:
        cmd = cmd[:(head or grep).start()]
    text = ""
    for part in cmd.split(" && "):
        proc = subprocess.run(shlex.split(part), cwd=cwd, env=_env(), capture_output=True,
                              text=True, timeout=900)
        text = proc.stdout + proc.stderr
        if proc.returncode not in (0,):
            text += f"[exit status {proc.returncode}]\n"
            break
    text = text.replace(str(cwd) + os.sep, "")
    lines = [line.rstrip() for line in text.splitlines()]
    if head:
        lines = lines[:int(head["n"])]
    if grep:
        keep = re.findall(r'-e "([^"]+)"', grep["args"])
        lines = [line for line in lines if any(k in line for k in keep)]
    return "\n".join(lines).strip("\n") + "\n"


def setup(page_text: str, cwd: Path) -> list[str]:
    """Run the page's ``<!-- fairbound:setup -->`` Python blocks in ``cwd``; problems."""
    problems = []
    for m in SETUP.finditer(page_text):
        proc = subprocess.run([sys.executable, "-c", m["code"]], cwd=cwd, env=_env(),
                              capture_output=True, text=True, timeout=900)
        if proc.returncode:
            problems.append(f"a setup block failed: {proc.stderr.strip().splitlines()[-1:]}")
    return problems


def python_outputs(page_text: str, cwd: Path) -> list[str]:
    """What each ``<!-- fairbound:python -->`` block of a page shows.

    That is the standard output of the page's ``python`` blocks above it, all run in order
    in one fresh interpreter in ``cwd``.
    """
    cuts = [m.start() for m in PYOUT.finditer(page_text)]
    if not cuts:
        return []
    events = sorted([(m.start(), m["code"]) for m in PYCODE.finditer(page_text[:cuts[-1]])]
                    + [(c, f"print({CUT!r}, flush=True)") for c in cuts])
    proc = subprocess.run([sys.executable, "-c", "\n".join(code for _, code in events)],
                          cwd=cwd, env=_env(), capture_output=True, text=True, timeout=900)
    parts = proc.stdout.split(CUT + "\n")
    if proc.returncode:
        parts[-1] += proc.stderr + f"[exit status {proc.returncode}]\n"
    parts += [""] * (len(cuts) - len(parts))
    return ["\n".join(line.rstrip() for line in s.splitlines()).strip("\n") + "\n"
            for s in parts[:len(cuts)]]


def benchmarks(page: Path) -> list[str]:
    """Problems with the page's quoted benchmark outputs (file, machine, lines)."""
    problems = []
    for m in BENCHMARK.finditer(page.read_text(encoding="utf-8")):
        src = ROOT / m["path"]
        if not src.is_file():
            problems.append(f"{_name(page)}: {m['path']} (quoted benchmark output) is missing")
            continue
        have = {line.rstrip() for line in src.read_text(encoding="utf-8").splitlines()}
        if not any("cores" in line for line in have):
            problems.append(f"{_name(page)}: {m['path']} does not name its machine")
        for line in m["body"].splitlines():
            if line.strip() and line.rstrip() not in have:
                problems.append(f"{_name(page)}: the line {line.strip()[:60]!r} is not in "
                                f"{m['path']}")
    return problems


def prose(page: Path) -> list[tuple[int, str, list[str], list[str]]]:
    """Every paragraph, list item and table row of ``page`` that states a measured number.

    ``(line, text, markers, numbers)``, outside code blocks and headings:
    ``markers`` are the ``<!-- fairbound:... -->`` lines at the top of its paragraph (a
    run of non-blank lines), ``numbers`` the measured numbers (:data:`MEASURED`).
    """
    units: list[list] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        marks = []
        while block and block[0][1].lstrip().startswith("<!--"):
            marks.append(block.pop(0)[1].strip())
        unit = None
        for n, line in block:
            s = line.lstrip()
            if s.startswith("#"):
                unit = None
            elif unit is None or s.startswith("|") or re.match(r"(?:[-*+]|\d+\.)\s", s):
                unit = [n, line, marks]
                units.append(unit)
            else:
                unit[1] += "\n" + line
        block.clear()

    fence = False
    for n, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
        if line.lstrip().startswith("```"):   # fenced code, also inside a list item
            fence = not fence
            flush()
        elif not fence and line.strip():
            block.append((n, line))
        elif not fence:
            flush()
    flush()
    out = []
    for n, text, marks in units:
        nums = MEASURED.findall(NOT_MEASURED.sub(" ", text))
        if nums:
            out.append((n, text, marks, nums))
    return out


def allowed(page: Path, text: str) -> str | None:
    """The :data:`ALLOWED` category of the paragraph ``text`` of ``page``, if any."""
    start = re.sub(r"^(?:[-*+]|\d+\.)\s+", "", " ".join(text.split()))
    name = _name(page)
    for category, (_, entries) in ALLOWED.items():
        if any(name == where and start.startswith(prefix)
               for where, prefix in entries):
            return category
    return None


def _core(num: str) -> str:
    """The digits of a measured number, without its unit (``1.9x`` -> ``1.9``)."""
    return re.sub(r"\s?(?:%|x|ms|s)$", "", num)


def _holds(text: str, num: str) -> bool:
    """Whether ``text`` states ``num`` (with or without its thousands separators)."""
    core = _core(num)
    forms = {core, core.replace(",", ""), core.replace(",", "_")}
    if num.endswith("%") and "," not in core:   # 44.85% is also 0.4485
        forms.add(format(Decimal(core) / 100, "f"))
    if "." in core and "," not in core:   # 0.001 is also 1e-3 in code
        forms.add(re.sub(r"e([+-])0*(\d)", r"e\1\2", re.sub(r"\.?0*e", "e", f"{float(core):e}")))
    return not forms.isdisjoint(_stated(text))


@functools.lru_cache(maxsize=128)
def _stated(text: str) -> frozenset[str]:
    """Every number ``text`` states: each numeric token, and its prefixes a non-digit follows.

    ``1770.0`` states ``1770``; ``0.1594`` does not state ``0.159``.
    """
    out = set()
    for m in re.finditer(r"(?<![\d.])\d[\d.,_]*(?:e[-+]?\d+)?", text):
        tok = m[0].rstrip(".,_")
        out.add(tok)
        out.update(tok[:i] for i in range(1, len(tok)) if not tok[i].isdigit())
    return frozenset(out)


def _source(kind: str, src: str) -> tuple[str | None, str | None]:
    """``(text, problem)``: what a ``cites`` marker's source says (None: not checkable)."""
    if kind == "law":
        return None, None if re.search(r"\d", src) else f"cites law {src!r} names no section"
    if kind == "paper":
        seed = SEEDS / src.split()[0]
        if not SEEDS.is_dir():
            return None, None      # the seeds are not checked out here
        if not seed.is_file():
            return None, f"cites paper {src.split()[0]}: no such seed in {SEEDS}"
        return seed.read_text(encoding="utf-8", errors="replace"), None
    if kind == "results":
        path = ROOT / src.split()[0]
        if not path.is_file() or path.parent != ROOT / "benchmarks" / "results":
            return None, f"cites results {src}: not a file of benchmarks/results/"
        text = path.read_text(encoding="utf-8")
        if "cores" not in text:
            return None, f"cites results {src}: the file does not name its machine"
        return text, None
    if kind == "code":
        path = ROOT / src.split()[0]
        if not path.is_file() or not src.startswith("src/fairbound/"):
            return None, f"cites code {src}: not a file of src/fairbound/"
        return path.read_text(encoding="utf-8"), None
    texts = []
    for ref in src.split():
        path, _, name = ref.partition("::")
        if not (ROOT / path).is_file() or not path.startswith("tests/"):
            return None, f"cites test {ref}: no such test file"
        module = (ROOT / path).read_text(encoding="utf-8")
        if not re.search(rf"^\s*def {re.escape(name)}\(", module, re.M):
            return None, f"cites test {ref}: no test {name} in {path}"
        texts.append(module)
    return "\n".join(texts), None


def sources(page: Path) -> tuple[list[str], dict]:
    """``(problems, census)`` of the measured numbers in ``page``'s prose.

    Each paragraph with a measured number is counted once in ``census``, under the kind
    of its first marker (``numbers``, ``results``, ``paper``, ``law``, ``test``), or
    ``convention`` (every number a :data:`CONVENTIONS` one) or ``unsourced``; a cited
    number missing from every cited source is a problem. (``numbers`` paragraphs are
    checked against the page's outputs by :func:`generate`.)
    """
    problems: list[str] = []
    census: dict = {}
    for n, text, marks, nums in prose(page):
        cites = [CITES.match(m) for m in marks]
        cites = [c for c in cites if c]
        if any(m == "<!-- fairbound:numbers -->" for m in marks):
            kind = "numbers"
        elif allowed(page, text):
            kind = "allowed"
        elif cites:
            kind = cites[0]["kind"]
            have, checkable = [], True
            for c in cites:
                got, problem = _source(c["kind"], c["src"])
                if problem:
                    problems.append(f"{_name(page)}:{n}: {problem}")
                if got is None:
                    checkable = checkable and c["kind"] in ("law", "paper") and not problem
                else:
                    have.append(got)
            if have and not (checkable and len(have) < len(cites)):
                problems += [f"{_name(page)}:{n}: {num} is in none of its cited sources"
                             for num in nums if num not in CONVENTIONS
                             and not any(_holds(t, num) for t in have)]
        elif all(num in CONVENTIONS for num in nums):
            kind = "convention"
        else:
            kind = "unsourced"
        census.setdefault(kind, []).append((n, text))
    return problems, census


def generate(page: Path, cwd: Path, kinds=("run", "run-long")) -> tuple[str, list[str]]:
    """``(new text, problems)``: the page with every marked block of ``kinds`` regenerated.

    Blocks of other kinds are kept as they are (their text still backs marked numbers).
    """
    text = page.read_text(encoding="utf-8")
    outputs: list[str] = []
    problems = benchmarks(page)
    if any(m["kind"] in kinds for m in RUN.finditer(text)):
        problems += [f"{_name(page)}: {p}" for p in setup(text, cwd)]

    def block(m: re.Match) -> str:
        if m["kind"] not in kinds:
            outputs.append(m["body"])
            return m[0]
        out = run(m["cmd"], cwd)
        if m["body"].startswith("$ "):  # the commands, as typed in a terminal
            out = "".join(f"$ {c}\n" for c in m["cmd"].split(" && ")) + out
        outputs.append(out)
        return f"<!-- fairbound:{m['kind']} {m['cmd']} -->\n{m['fence']}\n{out}```"

    new = RUN.sub(block, text)
    if "run" in kinds and PYOUT.search(new):
        shown = iter(python_outputs(new, cwd))

        def pyblock(m: re.Match) -> str:
            out = next(shown)
            outputs.append(out)
            return f"<!-- fairbound:python -->\n{m['fence']}\n{out}```"

        new = PYOUT.sub(pyblock, new)
    else:
        outputs += [m["body"] for m in PYOUT.finditer(new)]
    shown = "\n".join(outputs)
    for m in NUMBERS.finditer(new):
        for num in NUMBER.findall(m["para"]):
            if num.lstrip("+-") not in shown and num.lstrip("+-").replace(",", "") not in shown:
                problems.append(f"{_name(page)}: the number {num} in a marked "
                                "paragraph is in none of the page's outputs")
    return new, problems


def prepare(folder: Path, commands: list[str] | None = None) -> None:
    """Write :data:`FILES` into ``folder`` (with ``commands``: only the files they name)."""
    for name, make in FILES.items():
        if commands is None or any(name in c for c in commands):
            make(folder / name)


def census(todo: list[Path]) -> int:
    """Print how many paragraphs state measured numbers, by source; 1 on a problem."""
    kinds = ("numbers", "results", "paper", "law", "test", "code", "convention", "allowed",
             "unsourced")
    total = dict.fromkeys(kinds, 0)
    problems = []
    for page in todo:
        found, counts = sources(page)
        problems += found
        row = {k: len(counts.get(k, ())) for k in kinds}
        if any(row.values()):
            print(f"{_name(page):28s} " + " ".join(f"{k} {v:3d}" for k, v in row.items()))
        for k in kinds:
            total[k] += row[k]
    print(f"{'total':28s} " + " ".join(f"{k} {v:3d}" for k, v in total.items())
          + f"  (all {sum(total.values())})")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """Regenerate (or with ``--check`` compare) every marked block; 1 when any differs."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    ap.add_argument("--long", action="store_true",
                    help="with --check: check only the run-long blocks (model runs, "
                         "long simulations)")
    ap.add_argument("--examples", action="store_true",
                    help="also rebuild docs/examples/ (docs/build_examples.py)")
    ap.add_argument("--census", action="store_true",
                    help="count the paragraphs with measured numbers by source, then stop")
    ap.add_argument("pages", nargs="*", type=Path, help="only these pages")
    args = ap.parse_args(argv)
    if args.census:
        return census([p.resolve() for p in args.pages] or pages())
    todo = [p.resolve() for p in args.pages] or pages()
    differs = 0
    if not args.long:   # numbers in prose: their sources (fast; --census counts them)
        for page in todo:
            found, counts = sources(page)
            found += [f"{_name(page)}:{n}: a measured number with no source (see 'Numbers in "
                      "prose')" for n, _ in counts.get("unsourced", ())]
            for problem in found:
                print(problem, file=sys.stderr)
            differs += len(found)
    todo = [p for p in todo if any(r.search(p.read_text(encoding="utf-8"))
                                   for r in (RUN, NUMBERS, BENCHMARK, PYOUT))]
    kinds = ("run", "run-long") if not args.check else ("run-long",) if args.long \
        else ("run",)
    with tempfile.TemporaryDirectory(prefix="fairbound-docs-") as tmp:
        work = Path(tmp)
        prepare(work, [m["cmd"] for p in todo for m in RUN.finditer(p.read_text("utf-8"))
                       if m["kind"] in kinds])
        for page in todo:
            old = page.read_text(encoding="utf-8")
            new, problems = generate(page, work, kinds)
            for p in problems:
                print(p, file=sys.stderr)
                differs += 1
            if new == old:
                continue
            if args.check:
                differs += 1
                rel = _name(page)
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), new.splitlines(True), rel, rel + " (now)"))
            else:
                page.write_text(new, encoding="utf-8")
                print(f"regenerated {_name(page)}")
    if args.examples and not args.check:
        subprocess.run([sys.executable, str(ROOT / "docs" / "build_examples.py")], check=True,
                       cwd=ROOT)
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
