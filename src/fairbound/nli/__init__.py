"""Counterfactual NLI bias audits (BBNLI) and benchmark extension (BBNLI-next)."""

from fairbound.nli.expand import (
    SAMPLE_COLUMNS,
    ExpansionResult,
    UndefinedSlotWarning,
    expand_templates,
    expansion_counts,
)
from fairbound.nli.extend import CATEGORIES, ExtensionResult, extend_benchmark, extension_stats
from fairbound.nli.labels import label_names, parse_labels
from fairbound.nli.measures import (
    MEASURES,
    BenchmarkComparisonResult,
    NLIBiasResult,
    NLIComparisonResult,
    align_predictions,
    audit_nli,
    compare_benchmarks,
    compare_nli,
    pair_accounting,
)
from fairbound.nli.models import (
    CallableFillMask,
    CallableNLI,
    FillMaskModel,
    NLIModel,
    PredictionsFileNLI,
    TransformersFillMask,
    TransformersNLI,
    load_fill_mask,
    load_nli_model,
    parse_label_map,
    resolve_label_order,
)
from fairbound.nli.templates import (
    LABELS,
    MASK,
    Template,
    load_masked_templates,
    load_templates,
    render,
    shipped_template_dir,
    slots_of,
)
from fairbound.nli.validate_form import serve_validation_form, validation_server

__all__ = [
    "PAPER_SAMPLES_TOTAL",
    "PAPER_SUBTOPICS",
    "PAPER_TABLE9",
    "PAPER_TABLE10",
    "PAPER_TOTAL",
    "BenchmarkComparisonResult",
    "CATEGORIES",
    "DerivationResult",
    "DerivedTemplate",
    "compare_benchmarks",
    "derive_masked_templates",
    "dry_run",
    "masked_sample_counts",
    "masked_template_counts",
    "paper_targets",
    "parse_label_map",
    "resolve_label_order",
    "write_masked_templates",
    "CallableFillMask",
    "CallableNLI",
    "ExtensionResult",
    "FillMaskModel",
    "NLIModel",
    "PredictionsFileNLI",
    "TransformersFillMask",
    "TransformersNLI",
    "extend_benchmark",
    "extension_stats",
    "load_fill_mask",
    "load_nli_model",
    "LABELS",
    "MASK",
    "MEASURES",
    "NLIBiasResult",
    "NLIComparisonResult",
    "align_predictions",
    "audit_nli",
    "compare_nli",
    "label_names",
    "pair_accounting",
    "parse_labels",
    "SAMPLE_COLUMNS",
    "ExpansionResult",
    "Template",
    "UndefinedSlotWarning",
    "expand_templates",
    "expansion_counts",
    "load_masked_templates",
    "load_templates",
    "render",
    "serve_validation_form",
    "validation_server",
    "shipped_template_dir",
    "slots_of",
]

# The deriver is imported on first use, so that ``python -m fairbound.nli.derive`` runs it
# without importing it twice.
_DERIVE = ("PAPER_SAMPLES_TOTAL", "PAPER_SUBTOPICS", "PAPER_TABLE9", "PAPER_TABLE10",
           "PAPER_TOTAL", "DerivationResult", "DerivedTemplate", "derive_masked_templates",
           "dry_run", "masked_sample_counts", "masked_template_counts", "paper_targets",
           "write_masked_templates")


def __getattr__(name: str):
    if name in _DERIVE:
        from fairbound.nli import derive

        return getattr(derive, name)
    raise AttributeError(f"module 'fairbound.nli' has no attribute {name!r}")
