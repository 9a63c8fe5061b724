"""fairbound.audits.contract: the methods results share (select, to_json)."""

from __future__ import annotations

import json

import pandas as pd

from fairbound.audits import audit
from fairbound.audits.contract import JsonMethod, ResultMethods
from fairbound.audits.ratios.audit import ImpactRatioResult, LL144Audit


def _result():
    df = pd.DataFrame({"g": list("aaaabbbb") * 20, "y": [1, 1, 0, 0] * 40,
                       "p": [1, 1, 0, 1, 1, 0, 0, 0] * 20})
    return audit(df, group="g", label="y", prediction="p",
                 metrics=["demographic_parity", "equal_opportunity"])


def test_select_resolves_metric_aliases_and_filters_verdicts():
    res = _result()
    assert isinstance(res, ResultMethods)
    tpr = res.select(metric="tpr")
    assert tpr and all(c.metric == "equal_opportunity" for c in tpr)
    verdict = res.comparisons[0].verdict
    assert all(c.verdict == verdict for c in res.select(verdict=verdict))
    assert len(res.select(metric="dp")) + len(tpr) == len(res.comparisons)


def test_to_json_is_to_dict_and_writes_the_file(tmp_path):
    res = _result()
    path = tmp_path / "a.json"
    text = res.to_json(path)
    assert json.loads(text) == json.loads(json.dumps(res.to_dict()))
    assert path.read_text(encoding="utf-8") == text


def test_the_impact_results_take_to_json_from_the_contract():
    assert ImpactRatioResult.to_json is JsonMethod.to_json
    assert LL144Audit.to_json is JsonMethod.to_json


def test_the_shared_result_fields_are_declared_once_and_built_by_keyword():
    from dataclasses import fields

    from fairbound.audits.contract import ResultFields
    from fairbound.audits.ppi.audit import PPIAuditResult
    from fairbound.audits.proxies.audit import ProxyAuditResult
    from fairbound.audits.scores.audit import ScoreAuditResult

    shared = [f.name for f in fields(ResultFields)]
    assert {"groups", "reference", "confidence_level", "error_control", "n_tests",
            "columns", "n_rows", "excluded", "engine", "source", "version",
            "created"} == set(shared)
    for cls in (PPIAuditResult, ProxyAuditResult, ScoreAuditResult, ImpactRatioResult):
        assert issubclass(cls, ResultFields)
        names = [f.name for f in fields(cls)]
        assert names[:len(shared)] == shared and len(set(names)) == len(names)
    res = _result()  # a gap audit keeps its own declaration (defaults for old callers)
    assert not isinstance(res, ResultFields)
