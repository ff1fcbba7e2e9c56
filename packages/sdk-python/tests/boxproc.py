"""The real box for the end-to-end tests: `openlolo serve` on the simulated
phone on a temp state dir and port 0, and an owner who drives its box page
over HTTPS the way a browser does (cookie jar, Origin, the page's CSRF
token)."""

from __future__ import annotations

import html
import http.cookiejar
import os
import queue
import re
import signal
import ssl
import struct
import subprocess
import threading
import time
import urllib.parse
import urllib.request
import zlib
from typing import IO, Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def binary() -> str:
    """$OPENLOLO_BIN, else bin/openlolo at the repository root."""
    b = os.environ.get("OPENLOLO_BIN", "")
    if not b:
        return os.path.join(REPO, "bin", "openlolo")
    return b if os.path.isabs(b) else os.path.join(REPO, b)


class Lines:
    """Reads a pipe line by line on a thread; wait_for() returns the first
    line matching a pattern."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self.q: "queue.Queue[Optional[str]]" = queue.Queue()
        self.seen: List[str] = []
        self.t = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self.t.start()

    def _run(self, pipe: IO[bytes]) -> None:
        for raw in iter(pipe.readline, b""):
            self.q.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.q.put(None)

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match:
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no line matching %r within %.0fs; saw: %s" % (pattern, timeout, self.seen[-20:]))
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError("stream ended before a line matching %r; saw: %s" % (pattern, self.seen[-20:]))
            self.seen.append(line)
            m = rx.search(line)
            if m:
                return m


class BoxProcess:
    """One `openlolo serve` process."""

    def __init__(self, state: str, port: int = 0, rotate: bool = False, name: str = "openlolo-e2e", sims: int = 1) -> None:
        self.state = state
        args = [binary(), "serve", "--state", state, "--lan", "127.0.0.1:%d" % port, "--phone", "sim", "--name", name, "--sims", str(sims)]
        if rotate:
            args.append("--rotate-cert")
        self.log = open(os.path.join(state + ".log"), "ab")
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        out = Lines(self.p.stdout)
        try:
            self.url = out.wait_for(r"^LAN URL:\s+(\S+)").group(1).rstrip("/")
            self.fingerprint = out.wait_for(r"^Fingerprint:\s+([0-9a-f]{64})").group(1)
            self.spki = out.wait_for(r"^SPKI pin:\s+(\S+)").group(1)
            self.setup_code = out.wait_for(r"^Setup code:\s+(.*)$").group(1).strip()
        except AssertionError:
            self.stop()
            raise
        self.port = int(urllib.parse.urlsplit(self.url).port or 443)

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(5)
        if self.p.stdout:
            self.p.stdout.close()
        self.log.close()


def pair_with(box: "BoxProcess", owner: "Owner", store: Any, name: str, pin: Optional[str] = None) -> Any:
    """Pair the Python SDK with box in store while owner approves on the
    Access page; returns the paired openlolo.Box."""
    from openlolo import Box

    codes: "queue.Queue[str]" = queue.Queue()
    client = Box(box.url, store=store)
    errors: List[BaseException] = []

    def run() -> None:
        try:
            client.pair(pin=pin or box.spki, client_name=name, prompt=lambda msg, code, link: codes.put(msg))
        except BaseException as e:  # reported below
            errors.append(e)
            codes.put("")

    t = threading.Thread(target=run, daemon=True)
    t.start()
    msg = codes.get(timeout=60)
    assert not errors, errors
    m = re.fullmatch(r"Approve '(.*)' on the box page \(Access\)\. Code ([A-Z0-9]{4}-[A-Z0-9]{4})\.", msg)
    assert m is not None, msg
    assert m.group(1) == name, (m.group(1), name)
    owner.approve(m.group(2))
    t.join(60)
    assert not t.is_alive(), "pairing did not finish after approval"
    assert not errors, errors
    return client


_CSRF = re.compile(r'name="csrf" value="([^"]+)"')
_REQUEST = re.compile(r'data-user-code="([^"]+)" data-handle="([^"]+)"')


class Owner:
    """The box's owner in a browser: trusts the box's certificate file."""

    def __init__(self, box: BoxProcess) -> None:
        self.base = box.url
        ctx = ssl.create_default_context(cafile=os.path.join(box.state, "lan-cert.pem"))
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPSHandler(context=ctx),
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
        )

    def get(self, path: str) -> Tuple[str, str]:
        with self.opener.open(self.base + path, timeout=30) as r:
            return urllib.parse.urlsplit(r.geturl()).path, r.read().decode("utf-8", "replace")

    def post(self, path: str, form: Dict[str, str]) -> Tuple[str, str]:
        req = urllib.request.Request(self.base + path, data=urllib.parse.urlencode(form).encode(), method="POST",
                                     headers={"Origin": self.base, "Content-Type": "application/x-www-form-urlencoded"})
        with self.opener.open(req, timeout=30) as r:
            return urllib.parse.urlsplit(r.geturl()).path, r.read().decode("utf-8", "replace")

    def csrf(self, path: str) -> Tuple[str, str]:
        _, page = self.get(path)
        m = _CSRF.search(page)
        if not m:
            raise AssertionError("no CSRF token on %s" % path)
        return html.unescape(m.group(1)), page

    def claim(self, code: str, passphrase: str) -> None:
        tok, _ = self.csrf("/claim")
        where, page = self.post("/claim", {"csrf": tok, "code": code, "passphrase": passphrase, "confirm": passphrase})
        if where != "/status":
            raise AssertionError("claim ended at %s" % where)

    def approve(self, user_code: str, life: str = "30d") -> None:
        deadline = time.monotonic() + 20
        while True:
            tok, page = self.csrf("/access")
            for code, handle in _REQUEST.findall(page):
                if html.unescape(code).upper() == user_code.upper():
                    where, _ = self.post("/access/approve", {"csrf": tok, "handle": html.unescape(handle), "life": life})
                    if where != "/access":
                        raise AssertionError("approve ended at %s" % where)
                    return
            if time.monotonic() > deadline:
                raise AssertionError("no pending request with code %s on the Access page" % user_code)
            time.sleep(0.2)

    def revoke(self, client_id: str) -> None:
        tok, _ = self.csrf("/status")
        where, _ = self.post("/access/revoke", {"csrf": tok, "client_id": client_id, "confirm": "yes"})
        if where != "/access":
            raise AssertionError("revoke ended at %s" % where)

    def access_page(self) -> str:
        return self.get("/access")[1]


def decode_png(data: bytes) -> Tuple[int, int, List[bytes]]:
    """Width, height and RGB rows of an 8-bit RGB or RGBA PNG (what Go's
    encoder writes for the sim's screens)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    w = h = ctype = 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("PNG kind %d/%d/%d not handled" % (depth, ctype, interlace))
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows: List[bytes] = []
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        prev = line
        if bpp == 4:
            rgb = bytearray()
            for x in range(w):
                rgb += line[x * 4:x * 4 + 3]
            rows.append(bytes(rgb))
        else:
            rows.append(bytes(line))
    return w, h, rows
