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

``tests/docs/test_regenerate.py`` checks that every output block of the README and the docs
carries one of these markers (or is listed there with the reason it does not), runs
``--check`` in the ``long`` suite and ``--check --long`` in the ``slow`` one.
``--examples`` also rebuilds the reports, JSON and figures of ``docs/examples/``
(``docs/build_examples.py``; compared by ``tests/docs/test_build_examples.py``).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
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
            if num.lstrip("+-") not in shown:
                problems.append(f"{_name(page)}: the number {num} in a marked "
                                "paragraph is in none of the page's outputs")
    return new, problems


def prepare(folder: Path, commands: list[str] | None = None) -> None:
    """Write :data:`FILES` into ``folder`` (with ``commands``: only the files they name)."""
    for name, make in FILES.items():
        if commands is None or any(name in c for c in commands):
            make(folder / name)


def main(argv: list[str] | None = None) -> int:
    """Regenerate (or with ``--check`` compare) every marked block; 1 when any differs."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    ap.add_argument("--long", action="store_true",
                    help="with --check: check only the run-long blocks (model runs, "
                         "long simulations)")
    ap.add_argument("--examples", action="store_true",
                    help="also rebuild docs/examples/ (docs/build_examples.py)")
    ap.add_argument("pages", nargs="*", type=Path, help="only these pages")
    args = ap.parse_args(argv)
    todo = [p.resolve() for p in args.pages] or pages()
    todo = [p for p in todo if any(r.search(p.read_text(encoding="utf-8"))
                                   for r in (RUN, NUMBERS, BENCHMARK, PYOUT))]
    kinds = ("run", "run-long") if not args.check else ("run-long",) if args.long \
        else ("run",)
    differs = 0
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
