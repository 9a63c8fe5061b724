"""The ``fairbound`` command line: every typer command lives in this package.

Each module listed in ``_PLUGINS`` defines ``register(app)`` and adds its commands or
sub-apps; the code a command drives lives in the library (``fairbound.audit``,
``fairbound.planning``, ``fairbound.evaluation``, ...), and nothing in the library imports
this package.  Command modules import heavy things (pandas, scipy, matplotlib, the audit,
the engines) inside the command functions, so that ``fairbound --help`` and
``fairbound --version`` start at once.  A command line that names a command builds only
that command (:func:`_app_for`), and plain option values (text, decimal numbers, lists of
text) are converted without typer's pydantic adapters (:class:`_PlainValues`), so that a
command such as ``fairbound audit`` starts without importing pydantic.  :func:`main` turns
every user error into one line on standard error and exit status 2.

Two things hold for every command, whoever wrote it:

* Option spellings are the same everywhere: ``--prediction`` / ``--pred`` and
  ``--confidence-level`` / ``--confidence`` are aliases of each other (see
  :data:`OPTION_ALIASES`), added to any command that declares only one of them.
* Python warnings raised while a command runs (a small group, a degenerate rate) are printed
  as one tidy ``note: <message>`` line on standard error, once each, without the source
  path and code line that Python's default display adds.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import os
import re
import sys
import warnings
from pathlib import Path

import typer
from typer.core import TyperCommand, TyperGroup

from fairbound._io import escape_controls
from fairbound.errors import FairboundError, MissingDependencyError

#: Option spellings that mean the same in every command.
OPTION_ALIASES = {
    "--prediction": "--pred",
    "--pred": "--prediction",
    "--confidence-level": "--confidence",
    "--confidence": "--confidence-level",
}

#: Old option spellings, kept for one release as hidden aliases: old -> the one spelling.
#: A command that declares the new spelling (and not the old) accepts the old one too; it
#: is not shown by --help, and using it prints one ``note:`` line on standard error.
DEPRECATED_OPTIONS = {
    "--output": "--out",
    "--out-dir": "--out",
    "--formats": "--format",
    "--correction": "--error-control",
    "--proxy-score": "--proxy",
    "--versus": "--comparison",
}


def _renamed(args: list[str], renames: dict[str, str]) -> list[str]:
    """``args`` with each old spelling (``--old`` or ``--old=value``) in its new spelling."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg == "--":  # the end of the options
            break
        old, eq, value = arg.partition("=")
        if old in renames:
            out[i] = renames[old] + eq + value
            typer.echo(f"note: {old} is deprecated; use {renames[old]} (the old spelling "
                       "goes in the next release)", err=True)
    return out


def _accept_old_spellings(command, taken: set[str]) -> None:
    """Let ``command`` parse the :data:`DEPRECATED_OPTIONS` of the options it declares."""
    renames = {old: new for old, new in DEPRECATED_OPTIONS.items()
               if new in taken and old not in taken}
    if not renames or getattr(command, "_old_spellings", None) is not None:
        return
    parse = command.parse_args
    command._old_spellings = renames
    command.parse_args = lambda ctx, args: parse(ctx, _renamed(args, renames))


def harmonise_options(command) -> None:
    """Add the missing spelling of each aliased option (recursively into sub-commands).

    Parameters
    ----------
    command : click.Command
        A command or group; changed in place (idempotent).
    """
    for sub in getattr(command, "commands", {}).values():
        harmonise_options(sub)
    params = [p for p in getattr(command, "params", ()) if hasattr(p, "opts")]
    taken = {o for p in params for o in (*p.opts, *getattr(p, "secondary_opts", ()))}
    for p in params:
        if getattr(p, "is_flag", False):
            continue
        for opt in list(p.opts):
            alias = OPTION_ALIASES.get(opt)
            if alias is not None and alias not in taken:
                p.opts.append(alias)
                taken.add(alias)
    _accept_old_spellings(command, taken)


@contextlib.contextmanager
def tidy_warnings(*, err: bool = True):
    """Show warnings raised inside the block as ``note: <message>`` lines, once each.

    Parameters
    ----------
    err : bool, default True
        Write the notes to standard error (else standard output).
    """
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = escape_controls(" ".join(str(message).split()))
        if text and text not in shown:
            shown.add(text)
            typer.echo(f"note: {text}", err=err)

    with warnings.catch_warnings():
        # fairbound's own warnings (UserWarning subclasses) every time; other filters kept
        warnings.filterwarnings("default", category=UserWarning)
        warnings.showwarning = show
        yield


_WHOLE = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,17})?")


class _PlainValues:
    """Coerce a parameter's value the way typer would, without pydantic, where that is plain.

    typer (0.2x) converts every parameter's value with a pydantic ``TypeAdapter`` built the
    first time the parameter is parsed; importing pydantic and building the adapters is a
    large part of a command's start-up.  Text, plain decimal numbers (``0.95``, ``-3``) and
    lists of text come out of the adapter unchanged or through ``int`` / ``float``, so they
    are converted here to the same values; anything else (paths, choices, ``1e-3``, a value
    typer would refuse) goes to typer's own coercion, which then keeps the parameter.
    """

    def __init__(self, annotation, fallback):
        self.annotation = annotation
        self.fallback = fallback

    def coerce(self, value, param, ctx):
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        out = self._plain(value)
        if out is not None:
            return out
        real = self.fallback(param.type_descriptor)
        param._runtime_param = real
        return real.coerce(value, param=param, ctx=ctx)

    def _plain(self, value):
        ann = self.annotation
        if ann == list[str]:
            if isinstance(value, list | tuple) and all(type(v) is str for v in value):
                return list(value)
            return None
        if type(value) is ann:
            return value
        if type(value) is not str:
            return None
        if ann is int and _WHOLE.fullmatch(value):
            return int(value)
        if ann is float and _DECIMAL.fullmatch(value):
            return float(value)
        return None


def _plain_values(params) -> None:
    """Install :class:`_PlainValues` on the parameters in ``params`` where it applies."""
    try:
        from typer._coercion import build_runtime_param
    except ImportError:  # another typer: its own coercion throughout
        return
    for p in params:
        desc = getattr(p, "type_descriptor", None)
        if desc is None or getattr(p, "_runtime_param", False) is not None:
            continue
        ann, info = desc.annotation, desc.parameter_info
        if (ann not in (str, int, float, bool, Path, list[str])
                or getattr(desc, "file_annotation", None) is not None):
            continue
        if (getattr(info, "parser", None) is not None
                or getattr(info, "click_type", None) is not None
                or getattr(info, "min", None) is not None
                or getattr(info, "max", None) is not None or getattr(info, "clamp", False)):
            continue
        p._runtime_param = _PlainValues(ann, build_runtime_param)


class _FairboundCommand(TyperCommand):
    """A command whose plain parameter values are converted without pydantic."""

    def parse_args(self, ctx, args):
        _plain_values(self.get_params(ctx))
        return super().parse_args(ctx, args)


class _FairboundGroup(TyperGroup):
    """The top-level group: harmonised option spellings and tidy warnings for every command."""

    def get_command(self, ctx, cmd_name):
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            harmonise_options(cmd)
        return cmd

    def parse_args(self, ctx, args):
        _plain_values(self.get_params(ctx))
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        with tidy_warnings():
            return super().invoke(ctx)


app = typer.Typer(rich_markup_mode=None,
    name="fairbound",
    help="Is this classifier actually biased? Fairness gaps with confidence intervals.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_FairboundGroup,
)

# Modules that add commands; each defines ``register(app: typer.Typer) -> None``.
_PLUGINS = (
    "fairbound.cli.audit",
    "fairbound.cli.discover",
    "fairbound.cli.impact",
    "fairbound.cli.scores",
    "fairbound.cli.plan",
    "fairbound.cli.reproduce",
    "fairbound.cli.simulate",
    "fairbound.cli.monitor",
    "fairbound.cli.engines",
    "fairbound.cli.nli",
    "fairbound.cli.stability",
    "fairbound.cli.report",
    "fairbound.cli.examples",
    "fairbound.cli.ppi",
    "fairbound.cli.proxies",
    "fairbound.cli.sample",
)


def _register_plugins() -> None:
    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that part of fairbound is not present
            raise
        module.register(app)
    for info in app.registered_commands:
        if info.cls is TyperCommand:  # typer's default
            info.cls = _FairboundCommand


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"fairbound {version('fairbound')}")
        except PackageNotFoundError:  # pragma: no cover
            typer.echo("fairbound (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Is this classifier actually biased? Fairness gaps with confidence intervals."""


_register_plugins()


def _app_for(argv: list[str]) -> typer.Typer:
    """The app with only the command that ``argv`` starts with (the whole app otherwise).

    typer builds the click object of every command (reading each function's signature)
    whenever the app runs; a command line that names one command needs only that one.
    Sub-groups, options before the command and unknown names get the whole app.
    """
    if not argv or argv[0].startswith("-"):
        return app
    chosen = [c for c in app.registered_commands if c.name == argv[0]]
    if len(chosen) != 1 or any(isinstance(g.name, str) and g.name == argv[0]
                               for g in app.registered_groups):
        return app
    narrow = copy.copy(app)
    narrow.registered_commands = chosen
    narrow.registered_groups = []
    return narrow


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app; every user error is one line on stderr and exit status 2.

    A :class:`~fairbound.errors.FairboundError` prints ``error: <message>``; click's usage
    errors (a missing option, a number that is not one) print ``error: <message>`` with a
    pointer to ``--help``, also with status 2.

    While a command runs, OpenBLAS's idle threads sleep at once (see
    :func:`_short_blas_spin`).
    """
    with _short_blas_spin():
        return _main(argv)


#: OpenBLAS reads its idle-spin length when a copy of the library loads; 4 is its least.
BLAS_SPIN = ("OPENBLAS_THREAD_TIMEOUT", "4")


@contextlib.contextmanager
def _short_blas_spin():
    """``OPENBLAS_THREAD_TIMEOUT`` set to its least while a command runs, unless set.

    OpenBLAS's worker threads spin for about 2^28 cycles (a tenth of a second) after they
    start and after each call before they sleep.  In a command that lasts a second that is
    CPU spent for nothing, once for numpy's copy of the library (loaded when a command
    first imports numpy, after this is set) and once more for SciPy's own copy (loaded for
    the tail bound of large groups): about 0.1 s of CPU per worker thread each.  With the
    least spin the threads sleep right away and wake for work (products of 200 x 200 to
    1,500 x 1,500 matrices timed the same both ways; 5,000 small matrix-vector products
    about a tenth slower, as the threads wake for each: ``benchmarks/bench_blas_spin.py``).
    A value the user set is kept, and the variable is restored afterwards, so that a
    program calling :func:`main` keeps its environment.
    """
    name, value = BLAS_SPIN
    if name in os.environ or "GOTO_THREAD_TIMEOUT" in os.environ:
        yield
        return
    os.environ[name] = value
    try:
        yield
    finally:
        os.environ.pop(name, None)


def _main(argv: list[str] | None) -> int:
    """:func:`main` without the environment it sets."""
    try:
        command_line = sys.argv[1:] if argv is None else list(argv)
        result = _app_for(command_line)(args=argv, standalone_mode=False,
                                        prog_name="fairbound")
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except (FairboundError, MissingDependencyError) as exc:
        typer.echo(f"error: {escape_controls(str(exc))}", err=True)
        return 2
    except Exception as exc:
        # typer vendors click, so match click's exceptions by their interface
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            msg = " ".join(str(exc.format_message()).split())
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            if msg:  # help shown for a bare command has no message
                typer.echo(f"error: {escape_controls(msg)}{hint}", err=True)
            return int(exc.exit_code)
        if type(exc).__name__ == "Abort":
            typer.echo("aborted", err=True)
            return 1
        raise
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
