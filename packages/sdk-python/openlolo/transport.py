"""HTTPS to one box: pinned for LAN boxes, CA-verified for tailnet boxes.

Every connection is checked before a byte of the request is sent: for a
pinned box the peer certificate (``getpeercert(binary_form=True)``) must
match the pin, whatever the chain or host name says; anything else closes
the connection and raises ``PinMismatch``. Redirects are never followed and
proxy variables are not consulted (the box is on the LAN or the tailnet).
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import threading
import urllib.parse
import weakref
from typing import Dict, List, NamedTuple, Optional, Tuple

from .errors import PinMismatch, TransportError
from .pin import Pin, fingerprint_hex, parse_pin

USER_AGENT = "openlolo-sdk-python/1"


class Response(NamedTuple):
    """One HTTP answer, read whole."""

    status: int
    headers: Dict[str, str]  # lower-case names
    body: bytes


def normalize_url(s: str) -> str:
    """What a person types ("openlolo-1a2b.local", "https://host:8443/") as
    the store's key: https://host[:port], lower case, no path, no :443."""
    s = s.strip()
    if not s:
        raise ValueError("openlolo: empty box address; give a host such as openlolo-1a2b.local")
    if "://" not in s:
        s = "https://" + s
    u = urllib.parse.urlsplit(s)
    if u.scheme != "https":
        raise ValueError("openlolo: %r: the box is reached over https only" % s)
    if not u.netloc or u.hostname is None:
        raise ValueError(
            "openlolo: %r is not a box address (want a host like openlolo-1a2b.local or https://host:port)" % s
        )
    if (u.path not in ("", "/")) or u.query or u.fragment:
        raise ValueError("openlolo: %r: give the box's address without a path" % s)
    if "@" in u.netloc:
        raise ValueError("openlolo: %r: a box address has no user name" % s)
    try:
        port = u.port
    except ValueError:
        raise ValueError("openlolo: %r: the port is not a number" % s) from None
    host = u.hostname.lower()
    if ":" in host:
        host = "[" + host + "]"
    if port is not None and port != 443:
        return "https://%s:%d" % (host, port)
    return "https://" + host


def host_port(url: str) -> Tuple[str, int]:
    """The host (without brackets) and port of a normalized URL."""
    u = urllib.parse.urlsplit(url)
    return (u.hostname or ""), (u.port or 443)


def is_tailnet(url: str) -> bool:
    """Tailnet boxes (*.ts.net) carry CA-issued certificates and are not pinned."""
    host, _ = host_port(url)
    return host.endswith(".ts.net")


def _pinned_context() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    # The pin replaces chain and name verification (self-signed LAN box).
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def fetch_certificate(url: str, timeout: float = 15.0) -> bytes:
    """Handshake without verifying anything and return the box's leaf
    certificate (DER). It makes no trust decision: show it to a person or
    compare it with a pin."""
    host, port = host_port(url)
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw:
            with _pinned_context().wrap_socket(raw, server_hostname=host if not _is_ip(host) else None) as tls:
                der = tls.getpeercert(binary_form=True)
    except (OSError, ssl.SSLError) as e:
        raise TransportError("reach %s: %s" % (url, e)) from e
    if not der:
        raise TransportError("reach %s: the box sent no certificate" % url)
    return der


def _is_ip(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


class _Connection(http.client.HTTPSConnection):
    """An HTTPS connection that checks the pin right after the handshake."""

    def __init__(self, host: str, port: int, timeout: float, context: ssl.SSLContext, pin: Optional[Pin]) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._pin = pin

    def connect(self) -> None:
        super().connect()
        if self._pin is None:
            return
        sock = self.sock
        der = sock.getpeercert(binary_form=True) if isinstance(sock, ssl.SSLSocket) else None
        if not self._pin.matches(der):
            self.close()
            raise PinMismatch(str(self._pin), fingerprint_hex(der) if der else "(no certificate)")


class Transport:
    """Requests to one box. pin: the leaf or SPKI pin (None: CA verification
    with the host name, for tailnet boxes).

    Connections are kept alive and reused: one call after another goes over
    one TLS connection (its certificate checked once, at the handshake). A
    request takes an idle connection or opens a new one, so calls from
    several threads (a watch long poll beside taps) run side by side on
    their own connections, and at most ``max_idle`` stay open between calls.
    An idle connection the box has closed meanwhile is noticed before
    anything is sent on it, and the request goes on a new one.
    """

    def __init__(self, url: str, pin: Optional[str], timeout: float = 30.0, max_idle: int = 2) -> None:
        self.url = url
        self.host, self.port = host_port(url)
        self.timeout = timeout
        self.max_idle = max_idle
        self.pin: Optional[Pin] = parse_pin(pin) if pin else None
        if self.pin is not None:
            self._ctx = _pinned_context()
        else:
            self._ctx = ssl.create_default_context()
            self._ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        self._lock = threading.Lock()
        self._idle: List[_Connection] = []
        # The idle connections are closed when the transport is collected.
        weakref.finalize(self, _close_all, self._idle, self._lock)

    def handshakes(self) -> int:
        """How many TLS handshakes this transport has started (OpenSSL's own
        count for its context)."""
        return int(self._ctx.session_stats().get("connect", 0))

    def close(self) -> None:
        """Close the idle connections (a later request opens a new one)."""
        _close_all(self._idle, self._lock)

    def _take(self) -> Optional[_Connection]:
        """An idle connection that is still open, or None."""
        while True:
            with self._lock:
                if not self._idle:
                    return None
                conn = self._idle.pop()
            if _usable(conn):
                return conn
            conn.close()  # the box closed it while it was idle

    def _give_back(self, conn: _Connection) -> None:
        with self._lock:
            if len(self._idle) < self.max_idle:
                self._idle.append(conn)
                return
        conn.close()

    def request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        headers: Optional[Dict[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> Response:
        """Send one request (on a kept-alive connection when one is idle;
        the pin is checked at every handshake) and read the whole answer.
        TransportError when no answer came; PinMismatch when the
        certificate is not the pinned one.

        A request is sent once: it goes on a new connection only when
        sending it on a reused one failed (the box had closed it, so it saw
        nothing). Once sent, a connection lost before the answer is a
        TransportError whatever the method; Box.mutate then retries with the
        same operation_id, which the box answers from its journal.
        """
        t = timeout or self.timeout
        h = {"User-Agent": USER_AGENT}
        if headers:
            h.update(headers)
        conn = self._take()
        sent = False
        if conn is not None:
            assert conn.sock is not None
            conn.sock.settimeout(t)
            try:
                conn.request(method, path, body=body, headers=h)
                sent = True
            except (OSError, http.client.HTTPException):
                conn.close()  # closed by the box just now: nothing reached it
        if not sent:
            conn = _Connection(self.host, self.port, t, self._ctx, self.pin)
        assert conn is not None
        try:
            if not sent:
                conn.request(method, path, body=body, headers=h)
            resp = conn.getresponse()
            data = resp.read(_MAX_BODY)
            ans = Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data)
        except PinMismatch:
            conn.close()
            raise
        except ssl.SSLCertVerificationError as e:
            conn.close()
            raise TransportError("%s %s: certificate not trusted: %s" % (method, self.url + path, e)) from e
        except (OSError, http.client.HTTPException, ssl.SSLError) as e:
            conn.close()
            raise TransportError("%s %s: %s" % (method, self.url + path, e)) from e
        if resp.isclosed() and not resp.will_close and conn.sock is not None:
            self._give_back(conn)
        else:
            conn.close()  # the box asked to close, or the body was not read whole
        return ans


# The most an answer may carry (a 4096-pixel PNG screenshot is well below).
_MAX_BODY = 64 << 20


def _usable(conn: _Connection) -> bool:
    """Whether an idle connection can carry a request: still open, and
    nothing to read on it (an idle box sends nothing but its close)."""
    sock = conn.sock
    if sock is None:
        return False
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def _close_all(conns: List[_Connection], lock: threading.Lock) -> None:
    with lock:
        idle = list(conns)
        conns.clear()
    for c in idle:
        c.close()
