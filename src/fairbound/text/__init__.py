"""Text transforms for bias studies: removing explicit gender indicators."""

from fairbound.text.debias import (
    GENDERED_PAIRS,
    NOUN_PAIRS,
    PAPER_PAIRS,
    GenderNeutralizer,
    neutralize_gender,
)
from fairbound.text.names import (
    NameDetector,
    NameListDetector,
    SpacyNameDetector,
    first_names,
)

__all__ = ["GENDERED_PAIRS", "NOUN_PAIRS", "PAPER_PAIRS", "GenderNeutralizer", "NameDetector",
           "NameListDetector", "SpacyNameDetector", "first_names", "neutralize_gender"]
