"""A small fake openlolo box over real HTTPS for the unit tests: the OAuth
device grant with refresh rotation and reuse detection, and a stateless
/mcp endpoint with scripted tool answers. Certificates come from the
openssl command."""

from __future__ import annotations

import base64
import json
import os
import secrets
import ssl
import subprocess
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

PNG_1x1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def make_cert(directory: str, name: str = "openlolo-test") -> Tuple[str, str]:
    """A self-signed P-256 certificate and key (PEM paths) like the box's."""
    key = os.path.join(directory, name + "-key.pem")
    cert = os.path.join(directory, name + "-cert.pem")
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", key, "-out", cert, "-days", "30", "-subj", "/CN=" + name,
            "-addext", "subjectAltName=DNS:%s.local,DNS:%s,DNS:localhost,IP:127.0.0.1,IP:::1" % (name, name),
        ],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return cert, key


def cert_der(cert_pem: str) -> bytes:
    with open(cert_pem) as f:
        return ssl.PEM_cert_to_DER_cert(f.read())


def openssl_spki_sha256(cert_pem: str) -> bytes:
    """SHA-256 of the SubjectPublicKeyInfo as openssl computes it."""
    pub = subprocess.run(["openssl", "x509", "-in", cert_pem, "-pubkey", "-noout"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub, check=True, capture_output=True).stdout
    import hashlib

    return hashlib.sha256(der).digest()


class Grant:
    def __init__(self, client_id: str, scope: str) -> None:
        self.client_id = client_id
        self.scope = scope
        self.access: Dict[str, float] = {}
        self.refresh = ""
        self.used_refresh: set = set()
        self.revoked = False


class FakeBox:
    """State and behaviour knobs of the fake box."""

    def __init__(self, cert: str, key: str) -> None:
        self.lock = threading.Lock()
        self.cert, self.key = cert, key
        self.requests: List[Tuple[str, str]] = []
        self.mcp_calls: List[Dict[str, Any]] = []
        self.access_ttl = 900
        self.pending_polls = 1  # authorization_pending answers before approval
        self.slow_down_polls = 0
        self.device_decision = "approve"  # approve | deny | expire
        self.device_status = 200  # 429 to refuse device authorization
        self.device_requests: List[Dict[str, str]] = []
        self.devices: Dict[str, Dict[str, Any]] = {}
        self.grants: Dict[str, Grant] = {}  # client_id -> grant
        self.wrong_entry = False
        self.refreshes = 0
        self.refresh_delay = 0.0
        self.drop: Dict[str, int] = {}  # tool -> how many calls to drop without an answer
        self.journal: Dict[str, Dict[str, Any]] = {}
        self.tool_answers: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {}
        self.frame = 1
        self.watch_events: List[Dict[str, Any]] = []
        # Raw answers: path -> (status, content type, body) instead of the normal one.
        self.raw: Dict[str, Tuple[int, str, bytes]] = {}
        self.metadata_grants = ["refresh_token", "urn:ietf:params:oauth:grant-type:device_code"]
        self.sse = False  # answer /mcp as an event stream
        self.watch_expire_cursor = ""
        self.connections: List[Any] = []  # the open client sockets, oldest first
        self.accepted = 0  # connections accepted so far
        self.finished = 0  # connections whose handler has ended
        self.closed = threading.Condition(self.lock)

    def close_connections(self, reset: bool = False) -> int:
        """Close every open client connection, as a box does with idle ones
        (reset: abort it with a TCP RST instead of a clean close), and wait
        until they are closed. Returns how many it closed."""
        import socket
        import struct
        import time

        with self.lock:
            conns, self.connections = self.connections, []
            want = self.finished + len(conns)
        for c in conns:
            try:
                if reset:
                    # Reading stops; the handler's close then sends the RST.
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    c.shutdown(socket.SHUT_RD)
                else:
                    c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + 10
        with self.closed:
            while self.finished < want and time.monotonic() < deadline:
                self.closed.wait(0.1)
        return len(conns)

    # --- OAuth ---

    def issue(self, g: Grant) -> Dict[str, Any]:
        tok = "at-" + secrets.token_hex(8)
        g.access = {tok: 1}
        g.refresh = "rt-" + secrets.token_hex(8)
        return {"access_token": tok, "token_type": "Bearer", "expires_in": self.access_ttl,
                "refresh_token": g.refresh, "scope": g.scope}

    def grant_for_access(self, token: str) -> Optional[Grant]:
        for g in self.grants.values():
            if token in g.access and not g.revoked:
                return g
        return None

    def revoke_all(self) -> None:
        for g in self.grants.values():
            g.revoked = True


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        fb = self.server.fb
        with fb.lock:
            fb.connections.append(self.connection)
            fb.accepted += 1

    def finish(self) -> None:
        fb = self.server.fb
        with fb.lock:
            if self.connection in fb.connections:
                fb.connections.remove(self.connection)
        try:
            super().finish()
        except OSError:
            pass  # closed under it by close_connections
        self.connection.close()
        with fb.lock:
            fb.finished += 1
            fb.closed.notify_all()

    def _json(self, status: int, doc: Any, headers: Optional[Dict[str, str]] = None) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _form(self) -> Dict[str, str]:
        n = int(self.headers.get("Content-Length", "0"))
        return {k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(n).decode()).items()}

    def _raw(self, fb: FakeBox) -> bool:
        ans = fb.raw.get(self.path)
        if ans is None:
            return False
        n = int(self.headers.get("Content-Length", "0"))
        if n:
            self.rfile.read(n)
        status, ctype, body = ans
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def do_GET(self) -> None:
        fb = self.server.fb
        with fb.lock:
            fb.requests.append(("GET", self.path))
        if self._raw(fb):
            return
        if self.path == "/.well-known/oauth-authorization-server":
            base = "https://" + self.headers.get("Host", "")
            self._json(200, {
                "issuer": base, "token_endpoint": base + "/token",
                "device_authorization_endpoint": base + "/oauth/device_authorization",
                "grant_types_supported": fb.metadata_grants,
            })
            return
        self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        fb = self.server.fb
        with fb.lock:
            fb.requests.append(("POST", self.path))
        if self._raw(fb):
            return
        if self.path == "/oauth/device_authorization":
            return self._device(fb, self._form())
        if self.path == "/token":
            return self._token(fb, self._form())
        if self.path == "/mcp":
            return self._mcp(fb)
        self._json(404, {"error": "not_found"})

    def _device(self, fb: FakeBox, f: Dict[str, str]) -> None:
        with fb.lock:
            fb.device_requests.append(f)
            if fb.device_status == 429:
                return self._json(429, {"error": "slow_down", "error_description": "too many pending requests"})
            cid = f.get("client_id") or "c-" + secrets.token_hex(4)
            dc = "dc-" + secrets.token_hex(6)
            fb.devices[dc] = {"client_id": cid, "scope": f.get("scope", ""), "polls": 0}
        self._json(200, {"device_code": dc, "user_code": "BCDF-GHJK",
                         "verification_uri": "http://box/access?r=h1", "verification_uri_complete": "http://box/access?r=h1",
                         "expires_in": 600, "interval": 2, "client_id": cid})

    def _token(self, fb: FakeBox, f: Dict[str, str]) -> None:
        gt = f.get("grant_type")
        if gt == "urn:ietf:params:oauth:grant-type:device_code":
            with fb.lock:
                d = fb.devices.get(f.get("device_code", ""))
                if d is None or d["client_id"] != f.get("client_id"):
                    return self._json(400, {"error": "invalid_grant"})
                d["polls"] += 1
                if d["polls"] <= fb.slow_down_polls:
                    return self._json(400, {"error": "slow_down"})
                if d["polls"] <= fb.slow_down_polls + fb.pending_polls:
                    return self._json(400, {"error": "authorization_pending"})
                if fb.device_decision == "deny":
                    return self._json(400, {"error": "access_denied"})
                if fb.device_decision == "expire":
                    return self._json(400, {"error": "expired_token"})
                g = Grant(d["client_id"], d["scope"])
                fb.grants[g.client_id] = g
                del fb.devices[f["device_code"]]
                return self._json(200, fb.issue(g))
        if gt == "refresh_token":
            import time

            if fb.refresh_delay:
                time.sleep(fb.refresh_delay)
            with fb.lock:
                if fb.wrong_entry:
                    return self._json(400, {"error": "invalid_grant", "error_description": "refresh token issued by another entry of this box"})
                g = fb.grants.get(f.get("client_id", ""))
                rt = f.get("refresh_token", "")
                if g is None or g.revoked:
                    return self._json(400, {"error": "invalid_grant", "error_description": "grant revoked"})
                if rt in g.used_refresh:
                    g.revoked = True  # reuse revokes the whole grant
                    return self._json(400, {"error": "invalid_grant", "error_description": "refresh token reused; grant revoked"})
                if rt != g.refresh:
                    return self._json(400, {"error": "invalid_grant", "error_description": "unknown refresh token"})
                g.used_refresh.add(rt)
                fb.refreshes += 1
                return self._json(200, fb.issue(g))
        self._json(400, {"error": "unsupported_grant_type"})

    def _mcp(self, fb: FakeBox) -> None:
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n))
        auth = self.headers.get("Authorization", "")
        tok = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
        with fb.lock:
            if fb.wrong_entry:
                return self._json(401, {}, {"WWW-Authenticate": 'Bearer error="invalid_token", error_description="token issued by another entry of this box"'})
            g = fb.grant_for_access(tok)
            if g is None:
                return self._json(401, {}, {"WWW-Authenticate": 'Bearer error="invalid_token"'})
            fb.mcp_calls.append(req)
        method = req.get("method")
        rid = req.get("id")
        if method == "tools/list":
            return self._json(200, {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        if method != "tools/call":
            return self._json(200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})
        params = req.get("params") or {}
        name = params.get("name")
        args = params.get("arguments") or {}
        with fb.lock:
            if fb.drop.get(name, 0) > 0:
                fb.drop[name] -= 1
                op = args.get("operation_id")
                if op:  # the box ran it, but the answer is lost
                    fb.journal[op] = {"id": op, "tool": name, "state": "succeeded", "code": "",
                                      "answer": {"status": "ok", "operation_id": op, "dispatched": True, "replayed": True}}
                self.close_connection = True
                self.connection.close()
                return
        if name in fb.tool_answers:
            result = fb.tool_answers[name](args)
            return self._json(200, {"jsonrpc": "2.0", "id": rid, "result": result})
        result = self._tool(fb, name, args)
        if fb.sse:
            body = ("event: message\ndata: %s\n\n" % json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self._json(200, {"jsonrpc": "2.0", "id": rid, "result": result})

    def _tool(self, fb: FakeBox, name: str, args: Dict[str, Any]) -> Dict[str, Any]:
        def ok(sc: Dict[str, Any], image: bool = False) -> Dict[str, Any]:
            sc = dict(sc, status="ok")
            content: List[Dict[str, Any]] = [{"type": "text", "text": json.dumps(sc)}]
            if image:
                content.append({"type": "image", "data": base64.b64encode(PNG_1x1).decode(), "mimeType": "image/png"})
            return {"content": content, "structuredContent": sc}

        def failed(code: str, msg: str, **extra: Any) -> Dict[str, Any]:
            sc: Dict[str, Any] = {"status": "failed", "dispatched": False,
                                  "error": dict({"code": code, "message": msg, "retryable": True, "next_steps": ["do " + code]}, **extra)}
            return {"content": [{"type": "text", "text": msg}], "structuredContent": sc, "isError": True}

        if name == "openlolo_screenshot":
            with fb.lock:
                fb.frame += 1
                fid = "f-%d" % fb.frame
            return ok({"frame_id": fid, "geometry_epoch": "7", "width": 1, "height": 1,
                       "native_width": 1179, "native_height": 2556, "age_ms": 3, "format": "png"}, image=True)
        if name == "openlolo_tap":
            with fb.lock:
                current = "f-%d" % fb.frame
            if args.get("frame_id") != current or args.get("geometry_epoch") != "7":
                return failed("FRAME_EXPIRED", "That screenshot is no longer current.")
            return ok({"operation_id": args.get("operation_id"), "dispatched": True, "state": "succeeded"})
        if name == "openlolo_operation_status":
            with fb.lock:
                rec = fb.journal.get(args.get("operation_id", ""))
            if rec is None:
                return failed("OPERATION_NOT_FOUND", "no such operation")
            return ok({"operation": rec})
        if name == "openlolo_watch":
            cur = args.get("cursor", "")
            if fb.watch_expire_cursor and cur == fb.watch_expire_cursor:
                return failed("CURSOR_EXPIRED", "unknown cursor")
            idx = int(cur[1:]) if cur else 0
            evs = fb.watch_events[idx:idx + 2]
            sc: Dict[str, Any] = {"events": evs, "cursor": "c%d" % (idx + len(evs))}
            if idx + len(evs) >= len(fb.watch_events):
                sc["ended"] = "grant_revoked"
            return ok(sc)
        if name in ("openlolo_type_text", "openlolo_key", "openlolo_button", "openlolo_launch_app",
                    "openlolo_control", "openlolo_pause", "openlolo_swipe"):
            return ok({"operation_id": args.get("operation_id"), "dispatched": True, "state": "succeeded", "echo": args})
        return ok({"echo": args})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fb: FakeBox

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that stop after a pin mismatch reset the connection


def _tool(name: str, props: Dict[str, Any], required: Optional[List[str]] = None) -> Dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": props, "required": required or []}}


_frame = {"frame_id": {"type": "string"}, "geometry_epoch": {"type": ["string", "integer"]},
          "x": {"type": "number"}, "y": {"type": "number"}, "observe": {"type": "boolean"},
          "settle": {"type": "number"}, "operation_id": {"type": "string"}}
TOOLS = [
    _tool("openlolo_status", {}),
    _tool("openlolo_screenshot", {"format": {"type": "string", "enum": ["jpeg", "png"]}, "max_size": {"type": "integer"}}),
    _tool("openlolo_tap", _frame, ["frame_id", "geometry_epoch", "x", "y"]),
    _tool("openlolo_key", {"key": {"type": "string"}, "modifiers": {"type": "array", "items": {"type": "string"}},
                           "operation_id": {"type": "string"}}, ["key"]),
    _tool("openlolo_watch", {"cursor": {"type": "string"}, "wait_ms": {"type": "integer"},
                             "kinds": {"type": "array", "items": {"type": "string"}}}),
]


class Running:
    """A FakeBox served over HTTPS on 127.0.0.1 (port 0)."""

    def __init__(self, cert: str, key: str) -> None:
        self.fb = FakeBox(cert, key)
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.fb = self.fb
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True, do_handshake_on_connect=False)
        self.port = self.httpd.server_address[1]
        self.url = "https://127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def new_tempdir() -> str:
    return tempfile.mkdtemp(prefix="openlolo-sdk-test-")
