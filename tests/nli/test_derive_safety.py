"""Safety of the masked-template writer and of masked-template ``base`` references."""

import json
import os
import warnings

import pytest

from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.nli import (
    derive_masked_templates,
    load_masked_templates,
    load_templates,
    write_masked_templates,
)
from fairbound.nli.derive import MANIFEST_NAME, MANIFEST_VERSION, StaleFileWarning
from fairbound.nli.templates import shipped_template_dir

SUBS = ["man_is_to_programmer", "man_is_to_surgeon"]


@pytest.fixture(scope="module")
def two():
    """A derivation of two subtopics, and one of the first alone."""
    templates = load_templates(subtopics=SUBS)
    both = derive_masked_templates(templates, overrides=None, targets=dict.fromkeys(SUBS, 3))
    one = derive_masked_templates(templates[:1], overrides=None, targets={SUBS[0]: 3})
    return both, one


def _manifest(d):
    return json.loads((d / MANIFEST_NAME).read_text())


# -- 2. --write removes only what fairbound wrote --------------------------------------------
def test_cli_write_keeps_unrelated_json(tmp_path, capsys):
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StaleFileWarning)
        assert main(["nli", "masked-templates", "--write", "--out", str(tmp_path)]) in (0,
                                                                                           None)
    assert notes.read_text() == '{"mine": true}'
    capsys.readouterr()
    # A second write, now with a manifest, still leaves it alone (and says nothing of it).
    assert main(["nli", "masked-templates", "--write", "--out", str(tmp_path)]) in (0, None)
    out = capsys.readouterr()
    assert notes.read_text() == '{"mine": true}'
    assert "notes.json" not in out.err + out.out
    man = _manifest(tmp_path)
    assert man["version"] == MANIFEST_VERSION and len(man["files"]) == 16
    assert "notes.json" not in man["files"]
    assert sorted(p.name for p in tmp_path.glob("*.json")) == sorted([*man["files"],
                                                                      "notes.json"])


def test_stale_file_listed_in_manifest_is_removed(tmp_path, two):
    both, one = two
    notes = tmp_path / "notes.json"
    notes.write_text("{}")
    with pytest.warns(StaleFileWarning, match="notes.json"):  # first write: no manifest yet
        first = write_masked_templates(tmp_path, both)
    assert sorted(p.name for p in first) == [f"{s}.json" for s in SUBS]
    assert _manifest(tmp_path)["files"] == [f"{s}.json" for s in SUBS]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the manifest says what is stale
        second = write_masked_templates(tmp_path, one)
    assert [p.name for p in second] == [f"{SUBS[0]}.json"]
    assert not (tmp_path / f"{SUBS[1]}.json").exists()  # written before, no longer produced
    assert notes.exists()
    assert _manifest(tmp_path)["files"] == [f"{SUBS[0]}.json"]
    # A listed file already gone is no error.
    (tmp_path / f"{SUBS[0]}.json").unlink()
    write_masked_templates(tmp_path, two[0])
    (tmp_path / f"{SUBS[1]}.json").unlink()
    write_masked_templates(tmp_path, one)
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["man_is_to_programmer.json",
                                                               "notes.json"]


def test_cli_removes_stale_template_listed_in_manifest(tmp_path, capsys):
    main(["nli", "masked-templates", "--write", "--out", str(tmp_path)])
    man = _manifest(tmp_path)
    old = tmp_path / "retired_subtopic.json"
    old.write_text("{}")
    man["files"].append(old.name)
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(man))
    assert main(["nli", "masked-templates", "--write", "--out", str(tmp_path)]) in (0, None)
    assert not old.exists()
    assert old.name not in _manifest(tmp_path)["files"]


def test_no_manifest_warns_and_keeps_stale_files(tmp_path, two):
    both, _ = two
    old = tmp_path / "woman_is_to_homemaker.json"  # e.g. written by an older fairbound
    old.write_text('{"old": 1}')
    (tmp_path / "notes.json").write_text("{}")
    (tmp_path / "readme.txt").write_text("x")
    with pytest.warns(StaleFileWarning) as rec:
        write_masked_templates(tmp_path, both)
    msg = str(rec[0].message)
    assert msg == (f"out_dir: {str(tmp_path)!r} had no {MANIFEST_NAME}, so fairbound cannot "
                   "tell which files it wrote there before; left alone 2 other .json file(s) "
                   "that may be stale: notes.json, woman_is_to_homemaker.json")
    assert old.read_text() == '{"old": 1}' and (tmp_path / "notes.json").exists()
    assert (tmp_path / "readme.txt").exists()
    # The new manifest records only what this write produced.
    assert _manifest(tmp_path)["files"] == [f"{s}.json" for s in SUBS]


def test_cli_no_manifest_note(tmp_path, capsys):
    (tmp_path / "old_subtopic.json").write_text("{}")
    assert main(["nli", "masked-templates", "--write", "--out", str(tmp_path)]) in (0, None)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("note:")]
    assert len(lines) == 1 and "old_subtopic.json" in lines[0]
    assert "Traceback" not in err
    assert (tmp_path / "old_subtopic.json").exists()


def test_manifest_lists_only_plain_names(tmp_path, two):
    """A tampered manifest cannot make the writer delete outside the folder."""
    both, one = two
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    d = tmp_path / "out"
    d.mkdir()
    bad = {"format": "fairbound-masked-templates", "version": MANIFEST_VERSION,
           "files": ["../outside.json"]}
    (d / MANIFEST_NAME).write_text(json.dumps(bad))
    with pytest.raises(FairboundError) as exc:
        write_masked_templates(d, one)
    msg = str(exc.value)
    assert exc.value.param == "out_dir" and "\n" not in msg
    assert msg.startswith(f"out_dir: {str(d / MANIFEST_NAME)!r} must be a fairbound manifest")
    assert "../outside.json" in msg
    assert outside.exists()
    assert sorted(os.listdir(d)) == [MANIFEST_NAME]  # nothing written


@pytest.mark.parametrize("text", ["not json", '{"format": "other", "version": 1, "files": []}',
                                  '{"format": "fairbound-masked-templates", "version": 99, '
                                  '"files": []}'])
def test_cli_unreadable_manifest_one_line(tmp_path, capsys, text):
    (tmp_path / MANIFEST_NAME).write_text(text)
    assert main(["nli", "masked-templates", "--write", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "must be a fairbound manifest" in err and repr(text)[1:-1][:40] in err
    assert sorted(os.listdir(tmp_path)) == [MANIFEST_NAME]


def test_write_is_all_or_nothing(tmp_path, two):
    both, _ = two
    (tmp_path / f"{SUBS[1]}.json").mkdir()  # a folder where a file must go
    with pytest.raises(FairboundError, match="is a folder"):
        write_masked_templates(tmp_path, both)
    assert sorted(os.listdir(tmp_path)) == [f"{SUBS[1]}.json"]


def test_out_dir_is_a_file(tmp_path, two):
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(FairboundError, match=r"^out_dir must be a folder \(it is a file\); "):
        write_masked_templates(f, two[1])


# -- 10. a masked template's base stays inside the template folder --------------------------
def _base_tree(tmp_path):
    """A template folder with one BBNLI template, and a copy of it outside the folder."""
    shipped = shipped_template_dir() / "gender" / "man_is_to_programmer.json"
    root = tmp_path / "templates"
    (root / "gender").mkdir(parents=True)
    (root / "gender" / "man_is_to_programmer.json").write_text(shipped.read_text())
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.json").write_text(shipped.read_text())  # loads fine if it were read
    masked = tmp_path / "masked"
    masked.mkdir()
    return root, masked


def _masked(masked, base):
    p = masked / "m.json"
    p.write_text(json.dumps({"base": base, "masked_hypotheses": ["{{GROUP1}} <MASK> more."]}))
    return p


def test_base_inside_folder_loads(tmp_path):
    root, masked = _base_tree(tmp_path)
    t = load_masked_templates(_masked(masked, "gender/man_is_to_programmer"), base_dir=root)
    assert t[0].subtopic == "man_is_to_programmer"


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink", "dotdot-back-in"])
def test_base_outside_folder_refused(tmp_path, how):
    root, masked = _base_tree(tmp_path)
    if how == "dotdot":
        base = "../outside/x"
    elif how == "absolute":
        base = str(tmp_path / "outside" / "x")
    elif how == "symlink":
        (root / "gender" / "link.json").symlink_to(tmp_path / "outside" / "x.json")
        base = "gender/link"
    else:
        base = "gender/../../outside/x"
    p = _masked(masked, base)
    with pytest.raises(FairboundError) as exc:
        load_masked_templates(p, base_dir=root)
    assert str(exc.value) == (f"templates: m.json base must name a template inside "
                              f"{str(root)!r} (no '..', absolute path or link out of it); "
                              f"got {base!r}")
    assert exc.value.param == "templates"


def test_base_dotdot_staying_inside_is_fine(tmp_path):
    root, masked = _base_tree(tmp_path)
    p = _masked(masked, "gender/../gender/man_is_to_programmer")
    assert load_masked_templates(p, base_dir=root)[0].subtopic == "man_is_to_programmer"


@pytest.mark.parametrize("base", [5, "", None])
def test_base_not_a_name(tmp_path, base):
    root, masked = _base_tree(tmp_path)
    with pytest.raises(FairboundError, match=r"^templates: m\.json base must be "
                                             r"\"<domain>/<subtopic>\""):
        load_masked_templates(_masked(masked, base), base_dir=root)


def test_base_outside_shipped_folder_cli(tmp_path, capsys):
    """Through the CLI (default base folder: the shipped templates)."""
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"x": 1}))
    rel = os.path.relpath(secret.with_suffix(""), shipped_template_dir())
    masked = tmp_path / "m.json"
    masked.write_text(json.dumps({"base": rel, "masked_hypotheses": ["{{GROUP1}} <MASK>."]}))
    code = main(["nli", "expand", "--masked", "--templates", str(masked),
                 "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (f"error: templates: m.json base must name a template inside "
                           f"{str(shipped_template_dir())!r} (no '..', absolute path or link "
                           f"out of it); got {rel!r}")
    assert not (tmp_path / "out.csv").exists()
