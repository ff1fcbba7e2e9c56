"""``Box``: one paired openlolo box, its grant, and its tools."""

from __future__ import annotations

import base64
import binascii
import contextlib
import itertools
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Type, TypeVar, Union

from . import api
from .errors import (
    AskPending,
    AuthorizationPending,
    CursorExpired,
    ExpiredToken,
    GrantRevoked,
    NotPaired,
    OpenloloError,
    PinMismatch,
    ProtocolError,
    SlowDown,
    TransportError,
    WrongEntry,
    refused_from,
)
from .oauth import DEVICE_CODE_GRANT, OAuthError, endpoint_path, fetch_metadata, map_token_error, post_form
from .pin import box_name, fingerprint_hex, parse_pin, spki_pin
from .store import BoxEntry, TokenStore
from .transport import Transport, fetch_certificate, is_tailnet, normalize_url

DEFAULT_SCOPES = ("phone:read", "phone:control")

# The _meta member the box reads (openlolo.mcp: structured, run).
META_KEY = "openlolo.mcp"

# Tools that change the phone or the box: they take an operation_id and are
# retried once with the same id after a dropped connection.
MUTATING_TOOLS = api.MUTATING_TOOLS


T = TypeVar("T")


def default_client_name() -> str:
    """"<program> on <hostname>", e.g. "nightly.py on mac-mini"."""
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    if prog in ("", "-c", "-m"):
        prog = "python"
    host = socket.gethostname()
    return "%s on %s" % (prog, host) if host else prog


@dataclass(frozen=True)
class Frame:
    """The screenshot that touch coordinates refer to: its ``frame_id`` and
    ``geometry_epoch`` as the box sent them, and the image's size."""

    id: str
    epoch: str
    width: int = 0
    height: int = 0


# The frame an element id belongs to: an openlolo_elements answer, or a
# Frame with its frame_id and geometry_epoch.
ElementFrame = Union[Frame, api.ElementsResult]


def _element_args(frame: ElementFrame, element: str) -> Dict[str, Any]:
    """The members of a touch by element: the frame and the id."""
    if isinstance(frame, api.ElementsResult):
        return {"frame_id": frame.frame_id, "geometry_epoch": frame.geometry_epoch, "element": element}
    return {"frame_id": frame.id, "geometry_epoch": frame.epoch, "element": element}


@dataclass
class Image:
    """One image content block, decoded."""

    mime_type: str
    data: bytes


@dataclass
class Result:
    """The answer of one tools/call."""

    structured: Dict[str, Any]
    text: str = ""
    images: List[Image] = field(default_factory=list)
    is_error: bool = False
    raw: Dict[str, Any] = field(default_factory=dict)
    tool: str = ""

    @property
    def outcome(self) -> api.Outcome:
        """The members every answer carries (status, error, and for mutating
        tools the operation), typed."""
        return api.parse_answer(self.tool, self.structured)[0]

    @property
    def result(self) -> Any:
        """The tool's typed result (the tool's dataclass in
        ``openlolo.api.RESULTS``, e.g. ``api.TapResult``), or None for a
        failed answer or a tool this SDK does not know. DecodeError when a
        member has the wrong JSON type."""
        return api.parse_answer(self.tool, self.structured)[1]

    @property
    def status(self) -> str:
        """structuredContent.status: "ok", "failed" or "pending"."""
        s = self.structured.get("status")
        return s if isinstance(s, str) else ""

    @property
    def operation_id(self) -> str:
        """structuredContent.operation_id of a mutating tool."""
        s = self.structured.get("operation_id")
        return s if isinstance(s, str) else ""

    @property
    def dispatched(self) -> Optional[bool]:
        """structuredContent.dispatched of a mutating tool (False: nothing
        reached the phone; None when the answer does not say)."""
        d = self.structured.get("dispatched")
        return d if isinstance(d, bool) else None

    @property
    def observation(self) -> Optional["Screenshot"]:
        """The screenshot an input tool took after acting (observe=true), or None."""
        obs = self.structured.get("observation")
        if not isinstance(obs, dict) or not self.images or obs.get("frame_id") is None:
            return None
        return _screenshot(obs, self.images[0], self)


@dataclass
class Screenshot:
    """One picture of the phone's screen and the frame to touch it by."""

    frame: Frame
    image: bytes
    mime_type: str
    native_width: int
    native_height: int
    age_ms: int
    result: Result


def _int(v: Any) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


def _screenshot(fields: Mapping[str, Any], img: Image, res: Result) -> Screenshot:
    f = api.decode(api.Frame, fields, path=res.tool or "openlolo_screenshot")
    return Screenshot(
        Frame(f.frame_id, f.geometry_epoch, f.width, f.height), img.data, img.mime_type,
        f.native_width, f.native_height, f.age_ms, res,
    )


def _last_sse_data(body: bytes) -> bytes:
    last = b""
    for line in body.split(b"\n"):
        if line.startswith(b"data:"):
            last = line[5:].strip()
    return last


def decode_tool_result(tool: str, raw: Any) -> Result:
    """A tools/call result as a Result; a failed answer raises the Refused
    subclass for its code (with .result set), a pending one with an ask
    raises AskPending (the owner decides first), isError without
    structuredContent raises ProtocolError."""
    if not isinstance(raw, dict):
        raise ProtocolError("answer to %s is not a tool result" % tool)
    sc = raw.get("structuredContent")
    is_error = raw.get("isError") is True
    res = Result(structured=sc if isinstance(sc, dict) else {}, is_error=is_error, raw=raw, tool=tool)
    content = raw.get("content")
    if isinstance(content, list):
        for c in content:
            if not isinstance(c, dict):
                continue
            if c.get("type") == "text" and not res.text and isinstance(c.get("text"), str):
                res.text = c["text"]
            elif c.get("type") == "image":
                try:
                    data = base64.b64decode(str(c.get("data", "")), validate=True)
                except (binascii.Error, ValueError) as e:
                    raise ProtocolError("%s: image block is not base64: %s" % (tool, e)) from e
                res.images.append(Image(str(c.get("mimeType", "")), data))
    if is_error and not isinstance(sc, dict):
        raise ProtocolError("%s failed without a structured answer: %s" % (tool, res.text))
    if res.status == "failed" or is_error:
        raise refused_from(tool, res.structured, res)
    ask = res.structured.get("ask")
    if res.status == "pending" and isinstance(ask, dict):
        try:
            a = api.decode(api.Ask, ask, path=tool + ".ask")
        except api.DecodeError as e:
            raise ProtocolError("%s: the answer's ask: %s" % (tool, e)) from e
        op = res.structured.get("operation_id")
        raise AskPending(tool, op if isinstance(op, str) else "", a, res)
    return res



def on_entry(box_url: str, link: str) -> str:
    """The box page link the person is shown, on the HTTPS entry the client
    pairs with. The box's verification_uri is plain http:// on port 80
    (short to type on a phone; it only redirects to HTTPS), so its path and
    query move onto the pinned https:// URL, port included; an https://
    link (or one that does not parse) is kept."""
    try:
        lk = urllib.parse.urlsplit(link)
        b = urllib.parse.urlsplit(box_url)
    except ValueError:
        return link
    if lk.scheme != "http" or b.scheme != "https":
        return link
    return urllib.parse.urlunsplit((b.scheme, b.netloc, lk.path, lk.query, lk.fragment))

class Box:
    """One openlolo box, addressed by URL ("openlolo-1a2b.local",
    "https://192.168.1.20:8443", "https://pi.tail1234.ts.net").

    ``pair()`` once (trust on first use, or an expected ``pin``); then call
    tools. The grant lives in the token store shared with the Go client, and
    access tokens are refreshed under its lock, stored before use.

    Calls share one kept-alive connection; a Box may be used from several
    threads at once (a watch beside taps), each call then on a connection
    of its own. ``close()`` (or ``with Box(...) as box:``) closes the idle
    ones.
    """

    def __init__(
        self,
        url: str,
        *,
        store: Optional[TokenStore] = None,
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = normalize_url(url)
        self.store = store if store is not None else TokenStore()
        self.timeout = timeout
        self._clock = clock
        self._lock = threading.Lock()
        self._entry: Optional[BoxEntry] = None
        self._transport: Optional[Transport] = None
        self._ids = itertools.count(1)
        self._meta: Optional[Dict[str, Any]] = None

    def close(self) -> None:
        """Close the box's idle connections (the next call opens a new one)."""
        with self._lock:
            t = self._transport
        if t is not None:
            t.close()

    def __enter__(self) -> "Box":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- pairing

    @property
    def paired(self) -> bool:
        """Whether the token store holds a grant for this box."""
        return self.store.find(self.url) is not None

    @property
    def entry(self) -> BoxEntry:
        """The stored grant as this client last saw it (NotPaired if none)."""
        with self._lock:
            if self._entry is None:
                self._load()
            assert self._entry is not None
            return self._entry

    def _load(self) -> None:
        e = self.store.get(self.url)
        pin = e.fingerprint or e.pin
        self._entry = e
        self._transport = Transport(self.url, pin or None, self.timeout)

    def pair(
        self,
        *,
        pin: Optional[str] = None,
        client_name: Optional[str] = None,
        scopes: Sequence[str] = DEFAULT_SCOPES,
        confirm: Optional[Callable[[str, str, bytes], bool]] = None,
        prompt: Optional[Callable[[str, str, str], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> BoxEntry:
        """Pair with the box and store the grant.

        The certificate is checked against ``pin`` (leaf SHA-256 hex,
        colon-hex, or ``sha256//…``) when given; otherwise ``confirm(fingerprint,
        spki_pin, der)`` decides (trust on first use; None accepts). Tailnet
        boxes (*.ts.net) are CA-verified and not pinned. ``prompt(message,
        user_code, link)`` receives "Approve '<name>' on the box page
        (Access). Code XXXX-XXXX." (default: printed to stderr). Polling
        honours interval and slow_down. An earlier grant's client_id is
        reused so the Access entry is replaced, not duplicated.
        """
        tailnet = is_tailnet(self.url)
        fp, spki, name = "", "", ""
        if tailnet:
            t = Transport(self.url, None, self.timeout)
        else:
            der = fetch_certificate(self.url, self.timeout)
            fp, spki, name = fingerprint_hex(der), spki_pin(der), box_name(der)
            if pin:
                p = parse_pin(pin)
                if not p.matches(der):
                    raise PinMismatch(str(p), fp)
            elif confirm is not None and not confirm(fp, spki, der):
                raise OpenloloError("openlolo: pairing stopped: the certificate was not confirmed")
            # Every later connection, this pairing's included, must present
            # exactly this certificate.
            t = Transport(self.url, fp, self.timeout)

        md = fetch_metadata(t)
        grants = md.get("grant_types_supported")
        if not isinstance(grants, list) or DEVICE_CODE_GRANT not in grants:
            raise ProtocolError(
                "%s does not offer the device grant: the box is too old for scripts; update it" % self.url
            )
        cname = client_name or default_client_name()
        form = {"client_name": cname, "scope": " ".join(scopes)}
        prev = self.store.find(self.url)
        if prev is not None and prev.client_id:
            form["client_id"] = prev.client_id
        try:
            da = post_form(t, endpoint_path(t, md.get("device_authorization_endpoint"), "/oauth/device_authorization"), form)
        except OAuthError as e:
            if e.status == 429 or e.code == "slow_down":
                raise SlowDown(
                    "the box has too many pairing requests waiting; approve or deny them on the box page, or wait a minute"
                ) from e
            raise map_token_error(e) from e
        user_code = str(da.get("user_code", ""))
        link = on_entry(self.url, str(da.get("verification_uri_complete") or da.get("verification_uri") or ""))
        msg = "Approve '%s' on the box page (Access). Code %s." % (cname, user_code)
        if prompt is None:
            print(msg, file=sys.stderr, flush=True)
            if link:
                print("Box page: " + link, file=sys.stderr, flush=True)
        else:
            prompt(msg, user_code, link)

        interval = float(_int(da.get("interval")) or 5)
        expires_in = _int(da.get("expires_in"))
        deadline = self._clock() + expires_in
        token_path = endpoint_path(t, md.get("token_endpoint"), "/token")
        client_id = str(da.get("client_id", ""))
        while True:
            sleep(interval)
            try:
                ans = post_form(
                    t, token_path,
                    {"grant_type": DEVICE_CODE_GRANT, "device_code": str(da.get("device_code", "")), "client_id": client_id},
                )
            except OAuthError as e:
                mapped = map_token_error(e)
                if isinstance(mapped, SlowDown):
                    interval += 5
                elif not isinstance(mapped, AuthorizationPending):
                    raise mapped from e
            except TransportError:
                pass  # a dropped poll is retried at the next interval
            else:
                now = self._clock()
                entry = BoxEntry(
                    url=self.url, name=name, pin=spki, fingerprint=fp,
                    entry="tailnet" if tailnet else "lan", issuer=str(md.get("issuer", "")),
                    client_id=client_id, client_name=cname, scope=str(ans.get("scope", "")),
                    access_token=str(ans.get("access_token", "")), refresh_token=str(ans.get("refresh_token", "")),
                    expires_at=now + _int(ans.get("expires_in")), paired_at=now,
                )
                self.store.put(entry)
                with self._lock:
                    old, self._entry, self._transport = self._transport, entry, t
                if old is not None and old is not t:
                    old.close()
                return entry
            if expires_in > 0 and self._clock() > deadline:
                raise ExpiredToken()

    # ------------------------------------------------------------ the bearer

    def refresh(self) -> BoxEntry:
        """Refresh the access token now, under the token store's lock (a
        token another process stored meanwhile is taken instead). The new
        pair is stored before it is used."""
        self._access_token(True)
        return self.entry

    def _access_token(self, force: bool) -> str:
        e = self.entry
        if not force and not e.expired(self._clock()):
            return e.access_token
        seen = e.access_token

        def refresh(cur: Optional[BoxEntry]) -> BoxEntry:
            if cur is None:
                raise NotPaired(self.url)
            # Another process may have refreshed while we waited for the
            # lock: use its tokens rather than present a used refresh token.
            if cur.access_token != seen and not cur.expired(self._clock()):
                return cur
            return self._refresh(cur)

        nxt = self.store.update(self.url, refresh)  # written before it is used
        with self._lock:
            self._entry = nxt
        return nxt.access_token

    def _refresh(self, cur: BoxEntry) -> BoxEntry:
        if not cur.refresh_token:
            raise GrantRevoked("no refresh token stored")
        t = self._t()
        form = {"grant_type": "refresh_token", "refresh_token": cur.refresh_token, "client_id": cur.client_id}
        try:
            try:
                ans = post_form(t, "/token", form)
            except TransportError:
                # The answer was lost, perhaps after the box rotated: it
                # takes the used refresh token once more within 60 s, while
                # the new pair is unused, and answers with that same pair.
                # One retry, at once; any other reuse revokes the grant.
                ans = post_form(t, "/token", form)
        except OAuthError as e:
            raise map_token_error(e) from e
        cur.access_token = str(ans.get("access_token", ""))
        cur.refresh_token = str(ans.get("refresh_token", ""))
        cur.expires_at = self._clock() + _int(ans.get("expires_in"))
        if ans.get("scope"):
            cur.scope = str(ans["scope"])
        return cur

    def _t(self) -> Transport:
        with self._lock:
            if self._transport is None:
                self._load()
            assert self._transport is not None
            return self._transport

    # ------------------------------------------------------------------- MCP

    def _rpc(self, token: str, method: str, params: Any, timeout: Optional[float]) -> Any:
        body = json.dumps({"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}).encode("utf-8")
        r = self._t().request(
            "POST", "/mcp", body=body,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "Authorization": "Bearer " + token,
            },
            timeout=timeout,
        )
        if r.status == 401:
            raise _Unauthorized(r.headers.get("www-authenticate", ""))
        if r.status == 202:
            return None
        if r.status != 200:
            raise ProtocolError("the box answered HTTP %d to %s: %s" % (r.status, method, r.body.decode("utf-8", "replace").strip()[:500]))
        data = r.body
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            data = _last_sse_data(data)
        try:
            doc = json.loads(data)
        except ValueError as e:
            raise ProtocolError("answer to %s is not JSON-RPC: %s" % (method, e)) from e
        if not isinstance(doc, dict):
            raise ProtocolError("answer to %s is not a JSON-RPC object" % method)
        err = doc.get("error")
        if isinstance(err, dict):
            raise ProtocolError(str(err.get("message", "")), _int(err.get("code")))
        return doc.get("result")

    def rpc(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Send any MCP request with the bearer: refreshed first when expired,
        and once more after a 401."""
        if params is None:
            params = {}
        tok = self._access_token(False)
        try:
            return self._rpc(tok, method, params, timeout)
        except _Unauthorized as u:
            if "another entry" in u.challenge:
                raise WrongEntry(u.challenge) from None
        tok = self._access_token(True)
        try:
            return self._rpc(tok, method, params, timeout)
        except _Unauthorized as u:
            raise GrantRevoked(u.challenge) from None

    def list_tools(self) -> List[Dict[str, Any]]:
        """tools/list: every tool this client may call, with its JSON Schema."""
        res = self.rpc("tools/list", {})
        tools = res.get("tools") if isinstance(res, dict) else None
        if not isinstance(tools, list):
            raise ProtocolError("tools/list answer has no tools")
        return [t for t in tools if isinstance(t, dict)]

    def call_tool(self, name: str, args: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None) -> Result:
        """One tools/call as it is (no operation_id handling): a Result, or
        the Refused subclass of the answer's code."""
        params: Dict[str, Any] = {"name": name, "arguments": dict(args or {})}
        if self._meta:
            params["_meta"] = {META_KEY: dict(self._meta)}
        raw = self.rpc("tools/call", params, timeout)
        return decode_tool_result(name, raw)

    def mutate(self, name: str, args: Optional[Mapping[str, Any]] = None) -> Result:
        """Call a mutating tool with an operation_id (a fresh UUID unless args
        has one). After a dropped connection it retries once with the same id
        (the box answers from its journal without running the input again);
        if that drops too, it asks openlolo_operation_status instead of
        replaying and returns, or raises, what the box recorded. A box that
        cannot be reached at all (the connection refused, the name not
        found) gets no retry: the TransportError says the call did not
        run."""
        a = dict(args or {})
        op = a.get("operation_id")
        if not isinstance(op, str) or not op:
            op = str(uuid.uuid4())
            a["operation_id"] = op
        try:
            return self.call_tool(name, a)
        except TransportError as first:
            if _not_sent(first):
                raise TransportError(
                    "%s (operation %s): the box did not answer, so the call did not run: "
                    "check that the box is on and reachable, then call again: %s" % (name, op, first.message)
                ) from first
        try:
            return self.call_tool(name, a)
        except TransportError as second:
            try:
                st = self.operation_status(op)
            except OpenloloError as e:
                raise TransportError(
                    "%s (operation %s): the connection dropped twice and its status is unknown: %s; %s"
                    % (name, op, second.message, e)
                ) from e
            return _outcome(name, st)

    def call(self, name: str, **args: Any) -> Dict[str, Any]:
        """Call a tool by name (``openlolo_`` may be left out) and return its
        structured result; mutating tools get an operation_id and the
        dropped-connection retry."""
        if not name.startswith("openlolo_"):
            name = "openlolo_" + name
        if name in MUTATING_TOOLS:
            return self.mutate(name, args).structured
        return self.call_tool(name, args).structured

    @contextlib.contextmanager
    def run(self, title: str, run_id: Optional[str] = None) -> Iterator[str]:
        """Group the calls made inside the block as one run (``_meta`` run
        id and title) for the box's history; boxes that do not know runs
        ignore it. Yields the run id."""
        rid = run_id or str(uuid.uuid4())
        prev = self._meta
        self._meta = dict(prev or {})
        self._meta["run"] = {"id": rid, "title": title}
        try:
            yield rid
        finally:
            self._meta = prev

    # ----------------------------------------------------------------- tools

    def _typed(self, cls: Type[T], tool: str, args: Optional[Mapping[str, Any]] = None) -> T:
        res = self.call_tool(tool, args)
        names = api.outcome_members(tool)
        return api.decode(cls, {k: v for k, v in res.structured.items() if k not in names}, path=tool)

    def status(self) -> api.StatusResult:
        """openlolo_status: the box, the phone, control, and this client."""
        return self._typed(api.StatusResult, "openlolo_status")

    def capabilities(self) -> api.CapabilitiesResult:
        """openlolo_capabilities: keys, buttons, gestures this phone supports."""
        return self._typed(api.CapabilitiesResult, "openlolo_capabilities")

    def device_info(self) -> api.DeviceInfoResult:
        """openlolo_device_info."""
        return self._typed(api.DeviceInfoResult, "openlolo_device_info")

    def apps(self, query: str = "") -> List[api.App]:
        """openlolo_apps: the apps the box can launch (bundle_id, name)."""
        args = {"query": query} if query else {}
        return list(self._typed(api.AppsResult, "openlolo_apps", args).apps)

    def app_profiles(self, query: str = "") -> List[api.AppProfileSummary]:
        """openlolo_app_profiles: the app profiles of the phone's platform."""
        args = {"query": query} if query else {}
        return list(self._typed(api.AppProfilesResult, "openlolo_app_profiles", args).profiles)

    def app_profile(self, bundle_id: str) -> api.AppProfile:
        """openlolo_app_profile: one app's profile (deep links, quirks)."""
        return self._typed(api.AppProfileResult, "openlolo_app_profile", {"bundle_id": bundle_id}).profile

    def operation_status(self, operation_id: str) -> Result:
        """openlolo_operation_status: the box's record of one of our operations."""
        return self.call_tool("openlolo_operation_status", {"operation_id": operation_id})

    def screenshot(self, format: Optional[str] = None, max_size: Optional[int] = None) -> Screenshot:
        """openlolo_screenshot: image bytes plus the frame touch tools need."""
        args: Dict[str, Any] = {}
        if format:
            args["format"] = format
        if max_size:
            args["max_size"] = max_size
        res = self.call_tool("openlolo_screenshot", args)
        if not res.images:
            raise ProtocolError("openlolo_screenshot answered without an image")
        if res.structured.get("frame_id") is None:
            raise ProtocolError("openlolo_screenshot answered without frame_id")
        return _screenshot(res.structured, res.images[0], res)

    @staticmethod
    def _input(args: Dict[str, Any], observe: Optional[bool], settle: Optional[float], operation_id: Optional[str]) -> Dict[str, Any]:
        if observe is not None:
            args["observe"] = observe
        if settle is not None:
            args["settle"] = settle
        if operation_id:
            args["operation_id"] = operation_id
        return args

    def tap(self, frame: Frame, x: float, y: float, *, observe: Optional[bool] = None,
            settle: Optional[float] = None, operation_id: Optional[str] = None) -> Result:
        """Tap at (x, y), fractions of frame's image."""
        args = {"frame_id": frame.id, "geometry_epoch": frame.epoch, "x": x, "y": y}
        return self.mutate("openlolo_tap", self._input(args, observe, settle, operation_id))

    def tap_element(self, frame: ElementFrame, element: str, *, observe: Optional[bool] = None,
                    settle: Optional[float] = None, operation_id: Optional[str] = None) -> Result:
        """Tap the centre of element, an id of frame's openlolo_elements list."""
        args = _element_args(frame, element)
        return self.mutate("openlolo_tap", self._input(args, observe, settle, operation_id))

    def long_press_element(self, frame: ElementFrame, element: str, seconds: Optional[float] = None, *,
                           observe: Optional[bool] = None, settle: Optional[float] = None,
                           operation_id: Optional[str] = None) -> Result:
        """Press and hold the centre of element for seconds (0.03..2)."""
        args = _element_args(frame, element)
        if seconds is not None:
            args["seconds"] = seconds
        return self.mutate("openlolo_long_press", self._input(args, observe, settle, operation_id))

    def long_press(self, frame: Frame, x: float, y: float, seconds: Optional[float] = None, *,
                   observe: Optional[bool] = None, settle: Optional[float] = None,
                   operation_id: Optional[str] = None) -> Result:
        """Press and hold at (x, y) for seconds (0.03..2)."""
        args: Dict[str, Any] = {"frame_id": frame.id, "geometry_epoch": frame.epoch, "x": x, "y": y}
        if seconds is not None:
            args["seconds"] = seconds
        return self.mutate("openlolo_long_press", self._input(args, observe, settle, operation_id))

    def swipe(self, frame: Frame, x: float, y: float, x2: float, y2: float, seconds: Optional[float] = None,
              hold: Optional[float] = None, *, observe: Optional[bool] = None, settle: Optional[float] = None,
              operation_id: Optional[str] = None) -> Result:
        """Drag from (x, y) to (x2, y2)."""
        args: Dict[str, Any] = {"frame_id": frame.id, "geometry_epoch": frame.epoch, "x": x, "y": y, "x2": x2, "y2": y2}
        if seconds is not None:
            args["seconds"] = seconds
        if hold is not None:
            args["hold"] = hold
        return self.mutate("openlolo_swipe", self._input(args, observe, settle, operation_id))

    def type_text(self, text: str, *, frame: Optional[ElementFrame] = None, element: Optional[str] = None,
                  observe: Optional[bool] = None, settle: Optional[float] = None,
                  operation_id: Optional[str] = None) -> Result:
        """Type printable US ASCII text into the focused field; with frame and
        element (a text field of frame's openlolo_elements list), the box taps
        the field to focus it first."""
        args: Dict[str, Any] = {"text": text}
        if (frame is None) != (element is None):
            raise ValueError("type_text: give frame and element together, or neither")
        if frame is not None and element is not None:
            args.update(_element_args(frame, element))
        return self.mutate("openlolo_type_text", self._input(args, observe, settle, operation_id))

    def elements(self, query: str = "", *, clickable_only: bool = False, limit: Optional[int] = None,
                 cursor: str = "") -> api.ElementsResult:
        """openlolo_elements: the screen's elements and the frame their ids
        belong to (now the caller's latest). Pass the answer itself as the
        frame of tap_element, long_press_element and type_text."""
        args: Dict[str, Any] = {}
        if query:
            args["query"] = query
        if clickable_only:
            args["clickable_only"] = True
        if limit is not None:
            args["limit"] = limit
        if cursor:
            args["cursor"] = cursor
        return self._typed(api.ElementsResult, "openlolo_elements", args)

    def key(self, key: str, modifiers: Sequence[str] = (), *, observe: Optional[bool] = None,
            settle: Optional[float] = None, operation_id: Optional[str] = None) -> Result:
        """Press a named key with modifiers (ctrl, shift, alt, cmd)."""
        args: Dict[str, Any] = {"key": key}
        if modifiers:
            args["modifiers"] = list(modifiers)
        return self.mutate("openlolo_key", self._input(args, observe, settle, operation_id))

    def button(self, button: str, *, observe: Optional[bool] = None, settle: Optional[float] = None,
               operation_id: Optional[str] = None) -> Result:
        """Press home, lock, volume_up, volume_down or mute."""
        return self.mutate("openlolo_button", self._input({"button": button}, observe, settle, operation_id))

    def launch_app(self, app: str, *, observe: Optional[bool] = None, settle: Optional[float] = None,
                   operation_id: Optional[str] = None) -> Result:
        """Open an app by bundle id or name."""
        return self.mutate("openlolo_launch_app", self._input({"bundle_id": app}, observe, settle, operation_id))

    def open_url(self, url: str, *, observe: Optional[bool] = None, settle: Optional[float] = None,
                 operation_id: Optional[str] = None) -> Result:
        """Open an http(s) URL on the phone."""
        return self.mutate("openlolo_open_url", self._input({"url": url}, observe, settle, operation_id))

    def open_link(self, bundle_id: str, link: str, params: Optional[Mapping[str, Any]] = None, *,
                  observe: Optional[bool] = None, settle: Optional[float] = None,
                  operation_id: Optional[str] = None) -> Result:
        """openlolo_open_link: a deep link of an app's profile by name; the
        box checks params by their types and percent-encodes them."""
        args: Dict[str, Any] = {"bundle_id": bundle_id, "link": link}
        if params:
            args["params"] = dict(params)
        return self.mutate("openlolo_open_link", self._input(args, observe, settle, operation_id))

    def control(self, command: str) -> Result:
        """openlolo_control: acquire, renew, release or resume."""
        return self.mutate("openlolo_control", {"command": command})

    def pause(self) -> Result:
        """Stop all input on the box at once (any client may)."""
        return self.mutate("openlolo_pause", {})

    def cancel(self, target: str) -> Result:
        """Stop one of our queued or running operations."""
        return self.mutate("openlolo_cancel", {"target": target})

    def watch(self, cursor: Optional[str] = None, wait_ms: Optional[int] = None,
              kinds: Optional[Sequence[str]] = None) -> "Watch":
        """Iterate over the box's events (long poll). Each event is yielded
        once; the iterator's ``cursor`` is where to resume later. It ends
        when the box says the watch ended (grant revoked)."""
        return Watch(self, cursor, wait_ms, kinds)


class Watch:
    """An iterator over openlolo_watch events that carries the cursor.

    On CURSOR_EXPIRED (the box restarted or trimmed its log) it continues
    from now and yields ``{"kind": "reset", "reason": "cursor_expired"}`` so
    the caller knows events may have been missed.
    """

    def __init__(self, box: Box, cursor: Optional[str], wait_ms: Optional[int], kinds: Optional[Sequence[str]]) -> None:
        self.box = box
        self.cursor = cursor
        self.wait_ms = wait_ms
        self.kinds = list(kinds) if kinds else None
        self.ended = ""
        self._pending: List[Dict[str, Any]] = []

    def __iter__(self) -> "Watch":
        return self

    def poll(self) -> List[Dict[str, Any]]:
        """One long poll: the events after the cursor (possibly none)."""
        args: Dict[str, Any] = {}
        if self.cursor:
            args["cursor"] = self.cursor
        if self.wait_ms is not None:
            args["wait_ms"] = self.wait_ms
        if self.kinds:
            args["kinds"] = self.kinds
        wait = (self.wait_ms if self.wait_ms is not None else 25000) / 1000.0
        try:
            res = self.box.call_tool("openlolo_watch", args, timeout=max(self.box.timeout, wait + 15.0))
        except CursorExpired:
            self.cursor = None
            return [{"kind": "reset", "reason": "cursor_expired"}]
        sc = res.structured
        if isinstance(sc.get("cursor"), str):
            self.cursor = sc["cursor"]
        if isinstance(sc.get("ended"), str):
            self.ended = sc["ended"]
        evs = sc.get("events")
        return [e for e in evs if isinstance(e, dict)] if isinstance(evs, list) else []

    def __next__(self) -> Dict[str, Any]:
        while not self._pending:
            if self.ended:
                raise StopIteration
            self._pending = self.poll()
        return self._pending.pop(0)


def _outcome(tool: str, st: Result) -> Result:
    """An operation record as the call's result, or the error it ended with."""
    op = st.structured.get("operation")
    rec: Mapping[str, Any] = op if isinstance(op, dict) else st.structured
    state = rec.get("state") if isinstance(rec.get("state"), str) else ""
    answer = rec.get("answer")
    if state in ("failed", "cancelled", "outcome_unknown"):
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
            raise refused_from(tool, answer, st)
        code = rec.get("code") if isinstance(rec.get("code"), str) and rec.get("code") else "INTERNAL"
        if state == "outcome_unknown":
            code = "OUTCOME_UNKNOWN"
        msg = {
            "outcome_unknown": "the input may or may not have reached the phone; take a screenshot to see",
            "cancelled": "the operation was cancelled",
        }.get(state, "the operation failed")
        raise refused_from(tool, {"dispatched": state != "cancelled", "error": {"code": code, "message": msg}}, st)
    if isinstance(answer, dict):
        return Result(structured=answer, raw=st.raw, tool=tool)
    return st


class _Unauthorized(Exception):
    def __init__(self, challenge: str) -> None:
        super().__init__(challenge)
        self.challenge = challenge


def _not_sent(e: TransportError) -> bool:
    """Whether a transport error happened before any request left: the
    connection was refused or the box's name did not resolve."""
    return isinstance(e.__cause__, (ConnectionRefusedError, socket.gaierror))

