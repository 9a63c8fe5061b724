"""The old module paths of the audit kinds, kept for one release.

The audit kinds moved from the subpackage ``fairbound.audit`` (which shared its name with the
function :func:`fairbound.audit`) to ``fairbound.audits``, one folder per kind.  Importing an
old path (``from fairbound.audit import AuditResult``, ``import fairbound.audit.ppi``) still
works: it gives the very module object of the new path (no second copy, so ``isinstance``
checks and monkeypatching agree) and raises a :class:`DeprecationWarning` naming the new
path.  ``docs/changelog.md`` lists every move.

Examples
--------
>>> import sys, warnings
>>> _ = sys.modules.pop("fairbound.audit.ppi", None)  # imported earlier: import it anew
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     from fairbound.audit.ppi import ppi_audit
>>> import fairbound.audits.ppi.audit as new
>>> ppi_audit is new.ppi_audit, "fairbound.audits.ppi.audit" in str(seen[-1].message)
(True, True)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

#: Old module path -> new module path.
MOVED = {
    "fairbound.audit": "fairbound.audits",
    "fairbound.audit.build": "fairbound.audits.gaps.build",
    "fairbound.audit.result": "fairbound.audits.gaps.result",
    "fairbound.audit.bootstrap": "fairbound.audits.gaps.bootstrap",
    "fairbound.audit.multiplicity": "fairbound.audits.gaps.multiplicity",
    "fairbound.audit.simultaneous": "fairbound.audits.gaps.simultaneous",
    "fairbound.audit.ppi": "fairbound.audits.ppi.audit",
    "fairbound.audit.sampling": "fairbound.audits.ppi.sampling",
    "fairbound.audit.scores": "fairbound.audits.scores.audit",
    "fairbound.audit.ratios": "fairbound.audits.ratios.audit",
    "fairbound.audit.disagreement": "fairbound.audits.disagreement.audit",
    "fairbound.audit.pairing": "fairbound.audits.pairing",
    "fairbound.audit.verdicts": "fairbound.audits.verdicts",
    "fairbound.audit.contract": "fairbound.audits.contract",
    "fairbound.audit.control": "fairbound.audits.control",
}


def _importer_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the code doing the import."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename == __file__
                                 or frame.f_code.co_filename.startswith("<frozen importlib")):
        level, frame = level + 1, frame.f_back
    return level


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers an old path with the module of its new path (see :data:`MOVED`)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self,
                                              is_package=fullname == "fairbound.audit")

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=_importer_stacklevel())
        if spec.name == "fairbound.audit":
            # A stand-in, not fairbound.audits itself: the import system sets each old
            # submodule imported through it as its attribute (``.ppi`` would become the
            # module fairbound.audits.ppi.audit), which must not touch the new package.
            proxy = types.ModuleType(spec.name, "Deprecated: use fairbound.audits.")
            proxy.__getattr__ = lambda name: getattr(importlib.import_module(new), name)
            return proxy
        module = importlib.import_module(new)
        self._spec = module.__spec__  # the import system overwrites it; exec_module restores
        return module

    def exec_module(self, module) -> None:
        if module.__name__ != "fairbound.audit":
            module.__spec__ = self._spec


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once).

    First, before the path finder, which would otherwise import
    ``fairbound/audits/pairing.py`` a second time as ``fairbound.audit.pairing``.
    """
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
