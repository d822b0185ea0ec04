"""A real Chromium, headless, driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
commands on the child's fd 3, replies and events on its fd 4, each a JSON text ended by NUL).

Browser().open(url) loads a page in a fresh tab and returns what a person would have seen: the
console's errors (console.error, uncaught exceptions, and the browser's own error log, such as
a Content-Security-Policy refusal or a failed load), each image's decoded size, and screenshots."""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

WIDTH, HEIGHT = 1280, 1024


class BrowserError(Exception):
    pass


class Page:
    def __init__(self):
        self.errors, self.warnings, self.images, self.screenshot, self.figure_shots, self.state = [], [], [], b"", [], {}


class Browser:
    def __init__(self, timeout=60):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if not binary:
            raise BrowserError("chromium is not installed (apt-get install chromium; scripts/test.sh installs it)")
        self.timeout, self.next_id, self.events = timeout, 0, []
        self.profile = tempfile.mkdtemp(prefix="minigpu_chromium_")
        to_child, self.to_browser = os.pipe()
        self.from_browser, from_child = os.pipe()

        def on_fds_3_and_4():
            # Moved above 4 first, so that neither dup2 can overwrite the other's source.
            a, b = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10), fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        flags = ["--headless", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--mute-audio",
                 "--remote-debugging-pipe", f"--user-data-dir={self.profile}", f"--window-size={WIDTH},{HEIGHT}"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium refuses to run its sandbox as root
        self.process = subprocess.Popen([binary] + flags + ["about:blank"], preexec_fn=on_fds_3_and_4,
                                        close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self.buffer = b""

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise BrowserError("chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium exited (code {self.process.poll()})")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, session):
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == method and e.get("sessionId") == session for e in self.events):
            self.events.append(self._read_message(deadline))

    def evaluate(self, expression, session):
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session)
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluate: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def open(self, url):
        page = Page()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=session)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session)
        self.events = []
        self.call("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        # After the load handlers (the page's own image check among them) have run.
        page.state = json.loads(self.evaluate("""new Promise(done => setTimeout(() => done(JSON.stringify({
            broken: document.body.getAttribute('data-figures-broken'), text: document.body.innerText,
            images: Array.from(document.images).map(i => {
              const r = i.getBoundingClientRect();
              return {alt: i.alt, complete: i.complete, naturalWidth: i.naturalWidth, loaded: i.dataset.loaded,
                      x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })})), 100))""",
                                              session))
        page.images = page.state["images"]
        page.screenshot = self._shot(session)
        page.figure_shots = [self._shot(session, i) for i in page.images if i["width"] > 0 and i["height"] > 0]
        self._collect(page, session)
        self.call("Target.closeTarget", {"targetId": target})
        return page

    def _shot(self, session, box=None):
        params = {"format": "png"}
        if box:
            params.update(captureBeyondViewport=True,
                          clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"],
                                "scale": 1})
        return base64.b64decode(self.call("Page.captureScreenshot", params, session)["data"])

    def _collect(self, page, session):
        for e in self.events:
            if e.get("sessionId") != session:
                continue
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                if p.get("type") in ("error", "assert"):
                    page.errors.append(f"console.{p['type']}: {text}")
                elif p.get("type") == "warning":
                    page.warnings.append(text)
            elif method == "Runtime.exceptionThrown":
                details = p.get("exceptionDetails", {})
                page.errors.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
            elif method == "Log.entryAdded":
                entry = p.get("entry", {})
                (page.errors if entry.get("level") == "error" else page.warnings).append(
                    f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip())

    def close(self):
        try:
            self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
