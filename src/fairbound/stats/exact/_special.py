"""SciPy's special-function ufuncs without the cost of importing :mod:`scipy.special`.

The tail bound and the Clopper-Pearson bounds of large groups need three of SciPy's
ufuncs: ``ndtr``, ``ndtri`` and ``betaincinv``.  They live in the compiled module
``scipy.special._ufuncs``, which loads in a few hundredths of a second; the package
``scipy.special`` around it also builds its array-API wrappers (which import
``numpy.f2py``, ``numpy.ma`` and ``numpy.testing``) and parses every docstring, about half
a second of CPU on an idle machine and more than the whole audit of a 1M-row file.

:func:`ufuncs` returns the compiled module itself, loaded under its own name with the
package's initialisation skipped: the very same ufunc objects as ``scipy.special.ndtr``
and the others (a later ``import scipy.special`` reuses the loaded module), so every
number is the same bit for bit.  Where the package is already imported, or the shortcut
fails for any reason (another SciPy layout), it is the package itself.

Examples
--------
>>> sp = ufuncs()
>>> round(float(sp.ndtri(0.975)), 6), round(float(sp.ndtr(0.0)), 6)
(1.959964, 0.5)
>>> import scipy.special
>>> sp.betaincinv is scipy.special.betaincinv
True
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
import types
from importlib import machinery

try:  # the import system's per-module lock (private; without it, a rare race remains)
    from importlib._bootstrap import _ModuleLockManager as _module_lock
except ImportError:  # pragma: no cover - another Python
    def _module_lock(name):
        return contextlib.nullcontext()

__all__ = ["ufuncs"]

_LOCK = threading.Lock()
_NAME = "scipy.special._ufuncs"


def ufuncs():
    """The module holding SciPy's ``ndtr``, ``ndtri`` and ``betaincinv`` ufuncs."""
    done = sys.modules.get(_NAME)
    if done is not None:
        return done
    # the package's lock: no other thread is importing ``scipy.special`` meanwhile, and one
    # that starts waits (the stand-in below is marked as initialising) and then imports the
    # real package, which finds the compiled module loaded and reuses it
    with _LOCK, _module_lock("scipy.special"):
        if "scipy.special" in sys.modules or _NAME in sys.modules:
            return importlib.import_module("scipy.special._ufuncs")
        try:
            import scipy

            # the package's directory, as a stand-in package that only holds a path: the
            # compiled module (and the ones it imports relative to it) load from it, then
            # the stand-in goes, so that ``import scipy.special`` later runs the package's
            # own initialisation
            stand_in = types.ModuleType("scipy.special")
            stand_in.__path__ = [f"{scipy.__path__[0]}/special"]
            stand_in.__spec__ = machinery.ModuleSpec("scipy.special", None, is_package=True)
            stand_in.__spec__._initializing = True
            sys.modules["scipy.special"] = stand_in
            try:
                mod = importlib.import_module("scipy.special._ufuncs")
            finally:
                if sys.modules.get("scipy.special") is stand_in:
                    del sys.modules["scipy.special"]
            if all(hasattr(mod, f) for f in ("ndtr", "ndtri", "betaincinv")):
                return mod
        except Exception:               # pragma: no cover - another SciPy layout
            for name in [m for m in sys.modules if m.startswith("scipy.special.")]:
                sys.modules.pop(name, None)
    import scipy.special

    return scipy.special
