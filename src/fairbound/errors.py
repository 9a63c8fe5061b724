"""Errors and warnings raised by fairbound.

Every user error is a :class:`FairboundError` whose message is one line that names the
offending parameter or column and echoes the bad value.  The CLI turns it into that line
on standard error and exit status 2.
"""

from __future__ import annotations


class FairboundError(ValueError):
    """A user error: bad parameter, column, value or file.

    Parameters
    ----------
    message : str
        One line naming the culprit and the bad value.
    param : str, optional
        The parameter or column at fault.
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(" ".join(str(message).split()))
        self.param = param


class MissingDependencyError(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class SmallGroupWarning(UserWarning):
    """A group is too small for the requested interval method to be informative."""


class DegenerateDataWarning(UserWarning):
    """A quantity is not estimable (empty group, one-class group, zero variance, ...)."""


def require(module: str, extra: str):
    """Import an optional dependency or raise an error naming the extra.

    Parameters
    ----------
    module : str
        Module to import, e.g. ``"matplotlib.pyplot"``.
    extra : str
        The ``pip install "fairbound[extra]"`` extra that provides it.

    Returns
    -------
    module
        The imported module.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            f"{module.split('.')[0]} is required for this feature: "
            f'pip install "fairbound[{extra}]"'
        ) from exc

