"""The example reports in docs/examples/ are what ``python docs/build_examples.py`` builds now.

A fresh build goes to a scratch folder; its text outputs (Markdown, CSV, JSON, the HTML
pages' text and image alt texts, the index page) are compared with the committed ones,
leaving out what changes on every build (the build's time stamps and duration) and what
changes between processors: numbers are compared to a relative 1e-4 (absolute 2e-5 near
0).  numpy's vectorised ``exp``, ``log`` and sums round the last bits differently with
and without AVX-512 (the committed 0.09309231812247191 was built 0.09309231812244448 on an
AVX-512 machine), and where such a bit moves a p-value of the exact search across
``alpha`` the interval's end moves within the search's tolerance, ``min(1e-5, 0.001 se)``
(a stability study's mean interval width 0.08755567730626987 was built
0.08755468956200008).  Numbers shown to 3 or 4 digits still differ by more when they
change.  That
check builds every example, so it runs in the ``long`` suite (``tests/conftest.py``);
the figures (SVG, written with a fixed hash salt and no date, so byte-for-byte
reproducible) are compared in the ``slow`` suite.
"""

from __future__ import annotations

import importlib.util
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
SCRIPT = ROOT / "docs" / "build_examples.py"
#: What changes on every build: time stamps, the build's duration, the JSON's creation time.
STAMP = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z?(?: UTC)?")
BUILT_IN = re.compile(r"^Built in \d+ s\.$", re.M)
TEXT = (".md", ".csv", ".json", ".html", ".htm")
FIGURES = (".svg",)


class _Text(HTMLParser):
    """The text a reader sees in a page, with each image's alt text (no style, no data URIs)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._skip += 1
        elif tag == "img":
            self.parts.append(f"[image: {dict(attrs).get('alt', '')}]")

    def handle_endtag(self, tag):
        if tag in ("style", "script") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.parts.append(" ".join(data.split()))


def _drop_created(obj):
    if isinstance(obj, dict):
        return {k: _drop_created(v) for k, v in obj.items() if k != "created"}
    if isinstance(obj, list):
        return [_drop_created(v) for v in obj]
    return obj


def text_of(path: Path) -> str:
    """The comparable text of one output file (time stamps and build time left out).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "r.html"
    >>> _ = p.write_text("<style>b{}</style><p>gap 0.12, 2026-11-26 18:39 UTC</p>"
    ...                  "<img alt='Forest plot' src='data:image/png;base64,AAAA'>")
    >>> text_of(p)
    'gap 0.12, <time>\\n[image: Forest plot]'
    """
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        raw = json.dumps(_drop_created(json.loads(raw)), indent=1, sort_keys=True)
    elif path.suffix in (".html", ".htm"):
        parser = _Text()
        parser.feed(raw)
        raw = "\n".join(parser.parts)
    raw = BUILT_IN.sub("Built in <seconds> s.", raw)
    return STAMP.sub("<time>", raw)


#: A number as JSON and CSV print it.
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def same_text(a: str, b: str, *, rel: float = 1e-4, near_zero: float = 2e-5) -> bool:
    """Whether two texts are equal but for numbers within ``rel`` (or ``near_zero``).

    Examples
    --------
    >>> same_text("gap 0.09309231812247191,", "gap 0.09309231812244448,")
    True
    >>> same_text("gap 0.0931", "gap 0.0932"), same_text("gap 1", "gap 1 x")
    (False, False)
    """
    import math

    if a == b:
        return True
    if NUMBER.split(a) != NUMBER.split(b):
        return False
    return all(x == y or math.isclose(float(x), float(y), rel_tol=rel, abs_tol=near_zero)
               for x, y in zip(NUMBER.findall(a), NUMBER.findall(b), strict=True))


def differences(committed: Path, fresh: Path, suffixes: tuple[str, ...], *,
                as_bytes: bool = False) -> list[str]:
    """Files of those suffixes that differ, are missing or are new, with a short diff each."""
    import difflib

    def files(folder: Path) -> set[str]:
        return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
                if p.is_file() and p.suffix in suffixes}

    old, new = files(committed), files(fresh)
    out = [f"{name}: not built any more" for name in sorted(old - new)]
    out += [f"{name}: built but not committed" for name in sorted(new - old)]
    for name in sorted(old & new):
        a, b = committed / name, fresh / name
        if as_bytes:
            if a.read_bytes() != b.read_bytes():
                out.append(f"{name}: differs")
            continue
        ta, tb = text_of(a), text_of(b)
        if not same_text(ta, tb):
            diff = list(difflib.unified_diff(ta.splitlines(), tb.splitlines(), name,
                                             name + " (fresh build)", lineterm="", n=1))
            out.append("\n".join(diff[:40]))
    return out


def test_the_comparison_sees_a_changed_number_and_ignores_time_stamps(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, gap, when in ((a, "0.120", "18:39"), (b, "0.120", "19:40")):
        (folder / "x").mkdir(parents=True)
        (folder / "x" / "r.html").write_text(
            f"<p>Generated 2026-11-26 {when} UTC</p><p>gap {gap}</p>")
        (folder / "x" / "a.json").write_text(json.dumps(
            {"created": f"2026-11-26T{when}:00Z", "gap": float(gap)}))
        (folder / "README.md").write_text(f"gap {gap}\n\nBuilt in {len(when) * 7} s.\n")
    assert differences(a, b, TEXT) == []
    (b / "x" / "r.html").write_text("<p>Generated 2026-11-26 19:40 UTC</p><p>gap 0.121</p>")
    (b / "x" / "a.json").write_text(json.dumps({"created": "x", "gap": 0.12, "n": 3}))
    (b / "x" / "new.csv").write_text("a\n")
    found = differences(a, b, TEXT)
    assert len(found) == 3 and "x/new.csv: built but not committed" in found
    assert any("+gap 0.121" in d for d in found) and any('"n": 3' in d for d in found)


def test_the_comparison_ignores_the_last_digits_of_full_precision_numbers(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, low in ((a, -0.09309231812247191), (b, -0.09309231812244448)):
        folder.mkdir()
        (folder / "r.json").write_text(json.dumps({"low": low, "n": 30}))
        (folder / "s.csv").write_text(f"g,low\nx,{low}\n")
    assert differences(a, b, TEXT) == []
    (b / "s.csv").write_text("g,low\nx,-0.0931923\n")      # a change in the 4th digit
    assert len(differences(a, b, TEXT)) == 1


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """Every example, built now into a scratch folder (a few minutes on two cores)."""
    spec = importlib.util.spec_from_file_location("build_examples", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path_factory.mktemp("examples")
    assert mod.main(["--out", str(out)]) == 0
    return out


def test_example_texts_match_a_fresh_build(fresh):
    """In the ``long`` suite (tests/conftest.py LONG): it builds every example."""
    found = differences(EXAMPLES, fresh, TEXT)
    assert not found, ("docs/examples/ drifted; run `python docs/build_examples.py`:\n"
                       + "\n".join(found))


@pytest.mark.slow
def test_example_figures_match_a_fresh_build(fresh):
    found = differences(EXAMPLES, fresh, FIGURES, as_bytes=True)
    assert not found, ("docs/examples/ figures drifted; run `python docs/build_examples.py`:\n"
                       + "\n".join(found))
