"""The vocabulary of fairbound: every verdict of every audit kind, and the small-group size.

This is the one module that spells the verdicts.  It sits at the base layer (it imports
nothing) so that every layer can use the same words: the statistical core
(:mod:`fairbound.stats.monitor` says "A disadvantaged" like the audits do, and the core
must not import :mod:`fairbound.audits`), the domains, the reports, the plots and the CLI
(which read results as dictionaries and must not import the audit builders either).
:mod:`fairbound.audits.verdicts` re-exports every name, with what each verdict means; code
elsewhere compares and writes verdicts through these constants, never as string literals
(``tests/test_vocabulary.py`` keeps that true).

Verdicts of a gap (the main audit, prediction-powered and score audits):

* :data:`A_DISADVANTAGED`, :data:`B_DISADVANTAGED` - the interval lies above / below 0;
* :data:`NO_GAP` - with a tolerance, the interval lies within it;
* :data:`NO_EVIDENCE` - none of these;
* :data:`UNEQUAL` - a simultaneous ``max |gap|`` (or a threshold sweep's band) excludes 0;
* :data:`NOT_ESTIMABLE` - an empty denominator or a method that cannot run.

Verdicts of an impact ratio (four-fifths rule, Local Law 144): :data:`ADVERSE`,
:data:`NO_ADVERSE`, :data:`NO_EVIDENCE`, :data:`NOT_ESTIMABLE` and :data:`REFERENCE` (the
reference group's own row).  Verdicts of a sequential monitor
(:mod:`fairbound.stats.monitor`): :data:`A_DISADVANTAGED`, :data:`B_DISADVANTAGED`,
:data:`WITHIN_TOLERANCE` and :data:`NO_EVIDENCE`.

Examples
--------
>>> from fairbound._words import GAP_VERDICTS, IMPACT_VERDICTS
>>> GAP_VERDICTS
('A disadvantaged', 'B disadvantaged', 'unequal')
>>> IMPACT_VERDICTS[0], SMALL_GROUP
('evidence of adverse impact', 30)
"""

from __future__ import annotations

A_DISADVANTAGED = "A disadvantaged"
B_DISADVANTAGED = "B disadvantaged"
NO_EVIDENCE = "not enough evidence"
NO_GAP = "no meaningful gap"
UNEQUAL = "unequal"
NOT_ESTIMABLE = "not estimable"
ADVERSE = "evidence of adverse impact"
NO_ADVERSE = "evidence of no adverse impact"
REFERENCE = "reference group"
WITHIN_TOLERANCE = "within tolerance"

#: Verdicts that name a disadvantaged group.
DISADVANTAGED = (A_DISADVANTAGED, B_DISADVANTAGED)
#: Verdicts that claim a gap.
GAP_VERDICTS = (A_DISADVANTAGED, B_DISADVANTAGED, UNEQUAL)
#: Every verdict of a gap (main, prediction-powered and score audits).
AUDIT_VERDICTS = (A_DISADVANTAGED, B_DISADVANTAGED, UNEQUAL, NO_GAP, NO_EVIDENCE,
                  NOT_ESTIMABLE)
#: Every verdict of an impact-ratio row.
IMPACT_VERDICTS = (ADVERSE, NO_ADVERSE, NO_EVIDENCE, NOT_ESTIMABLE, REFERENCE)
#: Every verdict of a sequential monitor.
MONITOR_VERDICTS = (A_DISADVANTAGED, B_DISADVANTAGED, WITHIN_TOLERANCE, NO_EVIDENCE)
#: Every verdict fairbound gives, of any kind.
VERDICTS = tuple(dict.fromkeys(AUDIT_VERDICTS + IMPACT_VERDICTS + MONITOR_VERDICTS))

#: Below this many rows in a denominator a group is named in a small-group note and
#: :class:`~fairbound.errors.SmallGroupWarning` (every audit kind and report).
SMALL_GROUP = 30
