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

Timings are never regenerated here: the docs quote committed benchmark outputs that name
their machine (``benchmarks/``).  ``tests/docs/test_regenerate.py`` runs ``--check`` in the
default suite.  ``--examples`` also rebuilds the reports, JSON and figures of
``docs/examples/`` (``docs/build_examples.py``); those are not compared by a test yet.
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
RUN = re.compile(r"^<!-- fairbound:run (?P<cmd>.+?) -->\n(?P<fence>```[a-z]*)\n"
                 r"(?P<body>.*?)^```$", re.M | re.S)
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


def run(cmd: str, cwd: Path) -> str:
    """The output of ``cmd`` (standard output, then standard error) as a reader sees it."""
    env = dict(os.environ, COLUMNS=str(WIDTH), LINES="50", NO_COLOR="1", TERM="dumb",
               PYTHONWARNINGS="ignore", FAIRBOUND_NO_PROGRESS="1")
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run(shlex.split(cmd), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    text = proc.stdout + proc.stderr
    if proc.returncode not in (0,):
        text += f"[exit status {proc.returncode}]\n"
    text = text.replace(str(cwd) + os.sep, "")
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n") + "\n"


def generate(page: Path, cwd: Path) -> tuple[str, list[str]]:
    """``(new text, problems)``: the page with every marked block regenerated."""
    text = page.read_text(encoding="utf-8")
    outputs: list[str] = []

    def block(m: re.Match) -> str:
        out = run(m["cmd"], cwd)
        outputs.append(out)
        return f"<!-- fairbound:run {m['cmd']} -->\n{m['fence']}\n{out}```"

    new = RUN.sub(block, text)
    problems = []
    shown = "\n".join(outputs)
    for m in NUMBERS.finditer(new):
        for num in NUMBER.findall(m["para"]):
            if num.lstrip("+-") not in shown:
                problems.append(f"{_name(page)}: the number {num} in a marked "
                                "paragraph is in none of the page's outputs")
    return new, problems


def prepare(folder: Path) -> None:
    """Write :data:`FILES` into ``folder``."""
    for name, make in FILES.items():
        make(folder / name)


def main(argv: list[str] | None = None) -> int:
    """Regenerate (or with ``--check`` compare) every marked block; 1 when any differs."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    ap.add_argument("--examples", action="store_true",
                    help="also rebuild docs/examples/ (docs/build_examples.py)")
    ap.add_argument("pages", nargs="*", type=Path, help="only these pages")
    args = ap.parse_args(argv)
    todo = [p.resolve() for p in args.pages] or pages()
    todo = [p for p in todo if RUN.search(p.read_text(encoding="utf-8"))
            or NUMBERS.search(p.read_text(encoding="utf-8"))]
    differs = 0
    with tempfile.TemporaryDirectory(prefix="fairbound-docs-") as tmp:
        work = Path(tmp)
        prepare(work)
        for page in todo:
            old = page.read_text(encoding="utf-8")
            new, problems = generate(page, work)
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
