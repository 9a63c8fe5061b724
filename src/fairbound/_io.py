"""Small I/O helpers: files are written whole or not at all."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from fairbound.errors import FairboundError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text_atomic(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and an atomic rename."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def json_text(data, path=None, *, indent: int = 2) -> str:
    """``data`` as JSON text (other objects as ``str``); also written to ``path`` when given.

    What every result's ``to_json(path=None, indent=2)`` does with its ``to_dict()``.

    Examples
    --------
    >>> json_text({"a": 1}, indent=None)
    '{"a": 1}'
    """
    import json

    text = json.dumps(data, indent=indent, default=str)
    if path is not None:
        write_text_atomic(path, text)
    return text


def write_bytes_atomic(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole or not at all (temporary file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        # mkstemp creates the file 0600: give it the mode a plain open() would (umask)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_all_atomic(outputs: Sequence[tuple[str, object, bytes]]) -> list[Path]:
    """Write several files all or none: ``(param, path, data)`` for each.

    Every file is first written to a temporary file beside its target; only when all of them
    are written are they renamed into place, so a failure (a folder where a file should go,
    an unwritable folder, a full disk) leaves every target as it was.  Errors are one line
    naming the option and the path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> [p.name for p in write_all_atomic([("--json", d / "a.json", b"{}"),
    ...                                    ("--html", d / "a.html", b"<p>")])]
    ['a.json', 'a.html']
    """
    staged: list[tuple[str, Path, str]] = []
    try:
        for param, path, data in outputs:
            path = Path(path)
            if path.is_dir():
                raise FairboundError(f"{param}: {str(path)!r} is a folder; give a file name",
                                     param=param.lstrip("-"))
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                           suffix=".tmp")
                staged.append((param, path, tmp))
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.chmod(tmp, 0o666 & ~_umask())
            except OSError as exc:
                raise FairboundError(f"{param}: cannot write {str(path)!r}: "
                                     f"{exc.strerror or exc}", param=param.lstrip("-")) from None
        done = []
        for param, path, tmp in staged:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise FairboundError(f"{param}: cannot write {str(path)!r}: "
                                     f"{exc.strerror or exc}", param=param.lstrip("-")) from None
            done.append(path)
        return done
    finally:
        for _, _, tmp in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
