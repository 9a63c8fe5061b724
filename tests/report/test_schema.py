"""Golden checks of the "fairbound.audit/1" JSON: the shipped schema, the writer, the validator."""

from __future__ import annotations

import copy
import json

import pytest

from fairbound.errors import FairboundError
from fairbound.report import AUDIT_SCHEMA_PATH, audit_schema, validate_audit_json

jsonschema = pytest.importorskip("jsonschema")


def _validator():
    return jsonschema.Draft202012Validator(audit_schema())


def test_schema_file_is_packaged_and_valid():
    assert AUDIT_SCHEMA_PATH.is_file()
    schema = json.loads(AUDIT_SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema"]["const"] == "fairbound.audit/1"


def test_real_audits_validate(adult_audits, hostile_audit):
    for res in (*adult_audits, hostile_audit):
        d = json.loads(res.to_json())  # through text, as a file reader sees it
        _validator().validate(d)
        assert validate_audit_json(d) is d


def test_writer_keys_match_schema_exactly(adult_audits):
    """Every key written is declared, and every declared key is written (no silent drift)."""
    schema = audit_schema()
    d = adult_audits[1].to_dict()
    # "kind" is written but not required: files written before it was added still validate
    assert set(d) == set(schema["properties"]) == set(schema["required"]) | {"kind"}
    comp = schema["$defs"]["comparison"]
    for c in d["comparisons"]:
        assert set(c) == set(comp["properties"]) == set(comp["required"])


def test_file_round_trip(adult_audits, tmp_path):
    p = tmp_path / "a.json"
    adult_audits[0].to_json(p)
    assert validate_audit_json(p)["schema"] == "fairbound.audit/1"


def _mutations(d):
    yield "missing key", lambda x: x.pop("method")
    yield "wrong schema", lambda x: x.__setitem__("schema", "fairbound.audit/2")
    yield "bad verdict", lambda x: x["comparisons"][0].__setitem__("verdict", "biased")
    yield "negative n", lambda x: x["comparisons"][0].__setitem__("n_a", -1)
    yield "string n", lambda x: x["comparisons"][0].__setitem__("n_a", "12")
    yield "level 1.5", lambda x: x.__setitem__("confidence_level", 1.5)
    yield "extra key", lambda x: x.__setitem__("alpha", 0.05)
    yield "extra comparison key", lambda x: x["comparisons"][1].__setitem__("p", 0.1)
    yield "one group", lambda x: x.__setitem__("groups", x["groups"][:1])
    yield "bad timestamp", lambda x: x.__setitem__("created", "yesterday")
    yield "bool seed", lambda x: x.__setitem__("seed", True)
    yield "bad comparison", lambda x: x.__setitem__("comparison", "all")
    yield "group object", lambda x: x["groups"][0].__setitem__("group", {"a": 1})
    yield "bad error control", lambda x: x.__setitem__("error_control", "holm")
    yield "missing error control", lambda x: x.pop("error_control")
    yield "negative n_tests", lambda x: x.__setitem__("n_tests", -1)
    yield "bad favourable", lambda x: x.__setitem__("favourable", "harmful")
    yield "tolerance 0", lambda x: x.__setitem__("tolerance", 0)
    yield "comparison tolerance 1", lambda x: x["comparisons"][0].__setitem__("tolerance", 1)
    yield "negative parity n", lambda x: x["comparisons"][0].__setitem__("required_n_parity",
                                                                          -3)


@pytest.mark.parametrize("name", [n for n, _ in _mutations({})])
def test_hand_validator_agrees_with_jsonschema(adult_audits, name):
    mutate = dict(_mutations({}))[name]
    d = copy.deepcopy(adult_audits[0].to_dict())
    mutate(d)
    assert not _validator().is_valid(d)
    with pytest.raises(FairboundError, match=r"^data: \$"):
        validate_audit_json(d)


def test_validator_error_names_the_place(adult_audits):
    d = copy.deepcopy(adult_audits[0].to_dict())
    d["comparisons"][2]["verdict"] = "biased"
    with pytest.raises(FairboundError, match=r"\$\.comparisons\[2\]\.verdict .*'biased'"):
        validate_audit_json(d)


def test_validator_input_errors(tmp_path):
    with pytest.raises(FairboundError, match="data must be a dict or a JSON file path; got list"):
        validate_audit_json([1])
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(FairboundError, match="cannot read audit JSON"):
        validate_audit_json(bad)


def test_non_strict_accepts_extra_keys_only(adult_audits):
    d = copy.deepcopy(adult_audits[0].to_dict())
    d["new_field"] = {"x": 1}
    d["comparisons"][0]["new_too"] = 2
    assert validate_audit_json(d, strict=False) is d
    with pytest.raises(FairboundError, match="unexpected key"):
        validate_audit_json(d)
    d["comparisons"][0]["verdict"] = "biased"
    with pytest.raises(FairboundError, match="verdict"):
        validate_audit_json(d, strict=False)


def test_new_keys_of_honest_verdicts_validate(adult_rule):
    """error_control, n_tests, favourable, tolerance; per comparison tolerance,
    required_n_parity and the "no meaningful gap" verdict."""
    import warnings

    from fairbound import audit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit(adult_rule, group="sex", label="income", prediction="prediction",
                    metrics=["equal_opportunity", "accuracy_parity", "false_negative_rate"],
                    favourable="negative", tolerance=0.2, error_control="fdr",
                    method="newcombe")  # fast planner for the parity sample sizes
    d = json.loads(res.to_json())
    _validator().validate(d)
    assert validate_audit_json(d) is d
    assert (d["error_control"], d["favourable"], d["tolerance"]) == ("fdr", "negative", 0.2)
    assert d["n_tests"] == len([c for c in d["comparisons"] if c["component"] != "max"])
    assert "no meaningful gap" in {c["verdict"] for c in d["comparisons"]}
    assert "no meaningful gap" in audit_schema()["$defs"]["comparison"]["properties"][
        "verdict"]["enum"]
    assert all(c["tolerance"] == 0.2 for c in d["comparisons"])
