"""A small local web form for the human-validation stage of the extension pipeline.

It reads and writes the same CSV as the pipeline (``04_validation.csv``: ``hypothesis_id``,
``hypothesis``, ``category`` ...), so the form and a spreadsheet can be used interchangeably.
Only the standard library's ``http.server`` is used; it listens on ``127.0.0.1`` by default.
"""

from __future__ import annotations

import html
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import pandas as pd

from fairbound.errors import FairboundError
from fairbound.nli.extend import CATEGORIES, _write

__all__ = ["render_validation_form", "serve_validation_form", "validation_server"]

_HINTS = {
    "valid-pro": "states a harmful stereotype about the group",
    "valid-anti": "states the reverse of a stereotype (anti-stereotype)",
    "invalid": "no harmful stereotype",
    "incoherent": "not a sensible sentence",
}


def _read(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise FairboundError(f"validations: file {str(path)!r} does not exist",
                             param="validations")
    from fairbound._io import unescape_frame

    # the form is fairbound's CSV (nli.extend._write): undo its spreadsheet escape
    table = unescape_frame(pd.read_csv(path, keep_default_na=False, dtype=str))
    need = {"hypothesis_id", "hypothesis", "category"}
    if not need <= set(table.columns):
        raise FairboundError(f"validations: {str(path)!r} needs columns hypothesis_id, "
                             f"hypothesis, category; got {list(table.columns)[:6]}",
                             param="validations")
    return table


def render_validation_form(table: pd.DataFrame, *, message: str = "") -> str:
    """Render the validation table as an HTML form.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``hypothesis_id``, ``hypothesis``, ``category`` (and optionally ``domain``,
        ``subtopic``).
    message : str
        A line shown above the form.

    Returns
    -------
    str
        A complete HTML page; every text is escaped.

    Examples
    --------
    >>> t = pd.DataFrame({"hypothesis_id": ["h00000"], "hypothesis": ["A <b>x</b>."],
    ...                   "category": [""]})
    >>> "A &lt;b&gt;x&lt;/b&gt;." in render_validation_form(t)
    True
    """
    done = int((table["category"].astype(str).str.strip() != "").sum())
    legend = "".join(f"<li><b>{c}</b>: {html.escape(_HINTS[c])}</li>" for c in CATEGORIES)
    rows = []
    for r in table.itertuples(index=False):
        hid = html.escape(str(r.hypothesis_id))
        current = str(r.category).strip().lower()
        where = html.escape(f"{getattr(r, 'domain', '')} / {getattr(r, 'subtopic', '')}")
        radios = "".join(
            f'<label><input type="radio" name="{hid}" value="{c}"'
            f'{" checked" if current == c else ""}> {c}</label> ' for c in CATEGORIES)
        rows.append(f"<tr><td>{hid}</td><td>{where}</td>"
                    f"<td>{html.escape(str(r.hypothesis))}</td><td>{radios}</td></tr>")
    msg = f"<p><b>{html.escape(message)}</b></p>" if message else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>fairbound: validate "
        "hypotheses</title><style>body{font-family:sans-serif;margin:2em}"
        "td{border-bottom:1px solid #ddd;padding:4px;vertical-align:top}</style></head><body>"
        f"<h1>Validate generated hypotheses</h1>{msg}<p>{done} of {len(table)} categorised."
        f"</p><ul>{legend}</ul><form method='post' action='/'>"
        "<table><tr><th>id</th><th>domain / subtopic</th><th>hypothesis</th>"
        f"<th>category</th></tr>{''.join(rows)}</table>"
        "<p><button type='submit'>Save</button></p></form></body></html>"
    )


def validation_server(path: str | Path, *, host: str = "127.0.0.1",
                      port: int = 8765) -> ThreadingHTTPServer:
    """Create (not start) the HTTP server of the validation form.

    Parameters
    ----------
    path : str or pathlib.Path
        The validation CSV; saved atomically on every submit.
    host : str
        Interface to listen on (default: this machine only).
    port : int
        Port; 0 picks a free one (see ``server.server_address``).

    Returns
    -------
    http.server.ThreadingHTTPServer
        Call ``serve_forever()`` (or ``handle_request()``) on it.

    Examples
    --------
    >>> server = validation_server("run/04_validation.csv", port=0)  # doctest: +SKIP
    """
    path = Path(path)
    _read(path)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: str, status: int = 200) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            with lock:
                self._send(render_validation_form(_read(path)))

        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("Content-Length") or 0)
            fields = parse_qs(self.rfile.read(length).decode("utf-8"))
            with lock:
                table = _read(path)
                n = 0
                for i, hid in enumerate(table["hypothesis_id"]):
                    value = fields.get(str(hid), [""])[-1].strip().lower()
                    if value in CATEGORIES:
                        table.loc[i, "category"] = value
                        n += 1
                _write(table, path)
                pending = int((table["category"].str.strip() == "").sum())
                self._send(render_validation_form(
                    table, message=f"saved {n} categories; {pending} pending"))

        def log_message(self, *args) -> None:  # keep the terminal quiet
            return

    try:
        return ThreadingHTTPServer((host, int(port)), Handler)
    except OSError as exc:
        raise FairboundError(f"port: cannot listen on {host}:{port} ({exc.strerror})",
                             param="port") from exc


def serve_validation_form(path: str | Path, *, host: str = "127.0.0.1",
                          port: int = 8765) -> None:
    """Serve the validation form until interrupted (Ctrl-C).

    Parameters
    ----------
    path : str or pathlib.Path
        The validation CSV (``OUT/04_validation.csv``).
    host : str
        Interface to listen on.
    port : int
        Port.

    Examples
    --------
    >>> serve_validation_form("run/04_validation.csv")  # doctest: +SKIP
    """
    serve_until_interrupted(validation_server(path, host=host, port=port))


def serve_until_interrupted(server) -> None:
    """Run ``server`` until Ctrl-C, then close it."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
