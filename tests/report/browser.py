"""Drive headless Chromium over the DevTools protocol on a pipe (stdlib only).

``--remote-debugging-pipe`` makes Chromium read protocol messages from file descriptor 3
and write to descriptor 4, each message ending in a NUL byte.  No port is opened, nothing
else can connect, and no extra package is needed.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-quic", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--no-default-browser-check", "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--disable-dev-shm-usage",  # small /dev/shm in containers
]


def find_chromium() -> str | None:
    """Path of a Chromium binary, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Chromium:
    """One headless Chromium with one page, recording what the page does."""

    def __init__(self, binary: str, *, timeout: float = 60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="fb-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire():  # runs in the child: descriptors 3 (commands in) and 4 (replies out)
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=wire)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    # -- protocol
    def _send(self, msg: dict) -> None:
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")

    def _recv(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from Chromium")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None) -> dict:
        """Send a command and wait for its reply, recording events meanwhile."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if self.session is not None and not method.startswith("Target."):
            msg["sessionId"] = self.session
        self._send(msg)
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._recv(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self._record(m)

    def _record(self, m: dict) -> None:
        self.events.append(m)
        if m["method"] == "Page.javascriptDialogOpening":  # dismiss, or the page would hang
            self._id += 1
            self._send({"id": self._id, "method": "Page.handleJavaScriptDialog",
                        "params": {"accept": False}, "sessionId": self.session})

    def wait_for(self, event: str, timeout: float | None = None) -> dict:
        """Wait for an event (returns at once if it was already recorded)."""
        for e in self.events:
            if e["method"] == event:
                return e
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._recv(deadline)
            if "method" in m:
                self._record(m)
                if m["method"] == event:
                    return m

    def settle(self, seconds: float = 0.5) -> None:
        """Collect events for a short while (late console messages, requests)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                m = self._recv(deadline)
                if "method" in m:
                    self._record(m)
        except TimeoutError:
            pass

    # -- page helpers
    def open(self, path: Path, *, width: int = 1200, height: int = 900) -> None:
        """Load a local file and wait for its load event."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events.clear()
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()})
        self.wait_for("Page.loadEventFired")
        self.settle()

    def evaluate(self, expression: str):
        """Value of a JavaScript expression (run by the protocol, not by the page)."""
        res = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True})
        if "exceptionDetails" in res:
            raise RuntimeError(f"evaluate failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        """Full-page PNG."""
        metrics = self.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.call("Page.captureScreenshot", {"format": "png", "clip": clip,
                                                    "captureBeyondViewport": True})["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def pdf(self) -> bytes:
        """The page printed to PDF (uses the print stylesheet)."""
        data = self.call("Page.printToPDF", {"preferCSSPageSize": True,
                                             "printBackground": True})["data"]
        return base64.b64decode(data)

    # -- what happened
    def requests(self) -> list[str]:
        """URLs of every request the page made."""
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]

    def problems(self) -> list[str]:
        """Console errors/warnings, exceptions, log errors and dialogs."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error",
                                                                              "warning",
                                                                              "assert"):
                out.append(f"console {p['type']}: {p.get('args')}")
            elif e["method"] == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails')}")
            elif e["method"] == "Log.entryAdded" and p["entry"]["level"] in ("error",
                                                                            "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry'].get('text')}")
            elif e["method"] == "Page.javascriptDialogOpening":
                out.append(f"dialog: {p.get('message')}")
        return out

    def close(self) -> None:
        """Stop this Chromium and remove its profile."""
        try:
            self.call("Browser.close") if self.session is None else self._send(
                {"id": self._id + 1, "method": "Browser.close"})
        except Exception:  # noqa: BLE001 - closing is best effort
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


#: Layout of the loaded page (JSON): elements wider than their container, the page's
#: sideways scroll, where the first verdict sentence starts, and every figure's size.
LAYOUT = r"""(() => {
  const vw = document.documentElement.clientWidth;
  const wide = [];
  const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className ?
     '.' + e.className.trim().replace(/\s+/g, '.') : '');
  for (const e of document.querySelectorAll('main *')) {
    const r = e.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    const p = e.parentElement, pr = p.getBoundingClientRect();
    const over = Math.max(r.right - pr.right, pr.left - r.left);
    const scroll = e.scrollWidth - e.clientWidth;
    const s = getComputedStyle(e);
    // content clipped or scrolled inside a box also counts: nothing may be wider than
    // the box it is drawn in
    if (over > 1 || (scroll > 1 && s.overflowX !== 'visible' && e.tagName !== 'DETAILS'))
      wide.push({el: name(e), parent: name(p), width: Math.round(r.width),
                 container: Math.round(pr.width), scroll: scroll,
                 text: (e.innerText || '').slice(0, 60)});
  }
  const v = document.querySelector('[data-verdict]') ||
            document.querySelector('ul.findings > li');
  const vr = v ? v.getBoundingClientRect() : null;
  const figs = [...document.querySelectorAll('main img')].map(i => ({
    alt: i.alt, natural: i.naturalWidth, shown: Math.round(i.getBoundingClientRect().width),
    font_pt: parseFloat(i.dataset.minFontPt || 'NaN'),
    font_px: parseFloat(i.dataset.minFontPt || 'NaN') * 4 / 3 *
             i.getBoundingClientRect().width / (i.naturalWidth || 1)}));
  return JSON.stringify({
    viewport: vw, page_width: document.documentElement.scrollWidth,
    wide: wide.slice(0, 40), n_wide: wide.length,
    verdict_top: vr ? vr.top + window.scrollY : null,
    figure_top: document.querySelector('main img') ?
      document.querySelector('main img').getBoundingClientRect().top + window.scrollY : null,
    figure_bottom: document.querySelector('main img') ?
      document.querySelector('main img').getBoundingClientRect().bottom + window.scrollY : null,
    verdict_text: v ? v.innerText.slice(0, 200) : null,
    figures: figs});
})()"""


def layout(browser: Chromium, path: Path, *, width: int, height: int = 800,
           media: str = "") -> dict:
    """Open ``path`` at ``width`` x ``height`` CSS px and measure its layout (:data:`LAYOUT`).

    ``media="print"`` lays the page out with its print stylesheet.
    """
    browser.call("Emulation.setEmulatedMedia", {"media": media})
    try:
        browser.open(path, width=width, height=height)
        return json.loads(browser.evaluate(LAYOUT))
    finally:
        browser.call("Emulation.setEmulatedMedia", {"media": ""})
