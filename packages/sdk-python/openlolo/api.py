"""The box's answers as typed values: one frozen dataclass per tool result,
with the same fields (the JSON names) as the Go contract package ``api``
(api/results.go, api/answer.go, api/event.go), and a reader that checks
each member's JSON type.

Every answer's structuredContent is an :class:`Outcome` (status, error, and
for mutating tools the operation) with the tool's result members beside it;
:func:`parse_answer` splits the two. Reading is lenient by default, as a
client of a newer box must be: unknown members are ignored and absent ones
take their defaults. ``strict=True`` refuses both, which is how the tests
hold these types to the wire (the golden answers in api/testdata).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import (
    Any,
    Dict,
    Mapping,
    Optional,
    Tuple,
    Type,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)

from .errors import ProtocolError


def _omitempty() -> Any:
    """A member the box leaves out when it is empty (Go's omitempty)."""
    return _empty(None)


def _empty(default: Any) -> Any:
    """A member the box leaves out when it is the zero value ``default``."""
    return field(default=default, metadata={"omitempty": True})


# ---------------------------------------------------------------- outcome


@dataclass(frozen=True)
class Error:
    """The error of a failed answer (api.Error)."""

    code: str
    message: str
    retryable: bool
    next_steps: Tuple[str, ...]
    retry_after_ms: int = field(default=0, metadata={"omitempty": True})


@dataclass(frozen=True)
class Ask:
    """What the owner is asked before a marked call runs (api.Ask): its id,
    the box page where the owner decides (url), the question in words
    (what), its state (pending, allowed, denied, expired) and when it
    expires (Unix ms)."""

    id: str
    url: str
    what: str
    state: str
    expires_ms: int


@dataclass(frozen=True)
class Outcome:
    """What every answer carries beside the tool's result (api.Outcome):
    status ok, failed (error says why) or pending; for mutating tools the
    operation, whether anything reached the phone (dispatched), its journal
    state, and whether this is a stored answer (replayed)."""

    status: str
    operation_id: str = field(default="", metadata={"omitempty": True})
    dispatched: Optional[bool] = _omitempty()
    state: str = field(default="", metadata={"omitempty": True})
    replayed: bool = field(default=False, metadata={"omitempty": True})
    tool: str = field(default="", metadata={"omitempty": True})
    error: Optional[Error] = _omitempty()
    ask: Optional[Ask] = _omitempty()


# ------------------------------------------------------------------ status


@dataclass(frozen=True)
class BoxInfo:
    """The box's name and version."""

    name: str
    version: str


@dataclass(frozen=True)
class PhoneStatus:
    """The phone as openlolo_status reports it; state is ready, no_udc,
    not_configured, no_video, detached or closed, reason says why it is
    not ready."""

    backend: str
    model: str
    platform: str
    ready: bool
    state: str
    reason: str
    width: int
    height: int
    geometry_epoch: str


@dataclass(frozen=True)
class Lease:
    """Who holds control; expires_ms is when it lapses (Unix ms, 0 when free)."""

    held: bool
    you_hold: bool
    holder: str
    expires_ms: int


@dataclass(frozen=True)
class You:
    """The calling client as the box knows it; grant_expires_ms is when the
    grant ends (Unix ms; 0: until removed)."""

    client_id: str
    client_name: str
    scopes: Tuple[str, ...]
    entry: str
    grant_expires_ms: int


@dataclass(frozen=True)
class RemoteEntry:
    """The box's remote (tailnet) entry."""

    state: str
    reason: str
    url: str


@dataclass(frozen=True)
class StatusResult:
    """openlolo_status: the box, the phone, control, and this client;
    calls_left is the tool calls left this minute (-1: no limit)."""

    box: BoxInfo
    phone: PhoneStatus
    control: Lease
    paused: bool
    you: You
    calls_left: int
    remote: RemoteEntry


# ------------------------------------------------------------ capabilities


@dataclass(frozen=True)
class TextCapability:
    """What openlolo_type_text takes."""

    max_chars: int
    charset: str


@dataclass(frozen=True)
class GestureCapability:
    """Gesture ranges in seconds, each (min, max)."""

    tap: bool
    long_press_seconds: Tuple[float, ...]
    swipe_seconds: Tuple[float, ...]
    swipe_hold: Tuple[float, ...]
    multitouch: bool


@dataclass(frozen=True)
class ImageCapability:
    """Screenshot formats and sizes (max_size is (min, max))."""

    formats: Tuple[str, ...]
    max_size: Tuple[int, ...]
    default_max_size: int


@dataclass(frozen=True)
class NativeCapability:
    """What the phone's backend does itself (api.NativeCapability); the
    rest the box does with keyboard recipes."""

    launch_app: bool
    open_url: bool
    clipboard: bool


@dataclass(frozen=True)
class ClipboardCapability:
    """Whether openlolo_send_text and openlolo_clipboard are offered on this
    phone (api.ClipboardCapability): max_chars is send_text's limit, paste
    the keys that paste, reason why not when not available."""

    available: bool
    max_chars: int
    paste: str
    reason: str


@dataclass(frozen=True)
class CapabilitiesResult:
    """openlolo_capabilities: what this phone supports; open_url lists the
    URL schemes openlolo_open_url opens ("*" for any)."""

    platform: str
    backend: str
    keyboard: bool
    touch: bool
    screenshot: bool
    buttons: Tuple[str, ...]
    keys: Tuple[str, ...]
    modifiers: Tuple[str, ...]
    type_text: TextCapability
    gestures: GestureCapability
    screenshots: ImageCapability
    launch_app: bool
    open_url: Tuple[str, ...]
    native: NativeCapability
    shortcuts: Tuple[str, ...]
    clipboard: ClipboardCapability


# ------------------------------------------------------------------ frames


@dataclass(frozen=True)
class Frame:
    """A screenshot as sent (api.Frame; openlolo_screenshot's result): the
    frame touch tools must name, the image's size, the phone's own size and
    the picture's age."""

    frame_id: str
    geometry_epoch: str
    width: int
    height: int
    native_width: int
    native_height: int
    age_ms: int
    format: str


ScreenshotResult = Frame


@dataclass(frozen=True)
class App:
    """An app the box can launch."""

    bundle_id: str
    name: str


@dataclass(frozen=True)
class TextBox:
    """A piece of text OCR found, as fractions of the answer's frame."""

    text: str
    confidence: float
    x: float
    y: float
    width: float
    height: float
    center_x: float
    center_y: float


@dataclass(frozen=True)
class FindTextResult:
    """openlolo_find_text: the matches of query, or every line without one;
    frame_id is the caller's latest frame, to tap center_x, center_y on."""

    frame_id: str
    geometry_epoch: str
    query: str
    matches: Tuple[TextBox, ...]
    lines: Tuple[TextBox, ...]
    engine: str


@dataclass(frozen=True)
class ElementBounds:
    """An element's box as fractions of the answer's frame."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Element:
    """One thing on the screen (openlolo_elements): ``id`` is valid for the
    answer's frame; pass it as element to tap, long_press or type_text."""

    id: str
    role: str
    bounds: ElementBounds
    center_x: float
    center_y: float
    enabled: bool
    text: str = _empty("")
    label: str = _empty("")
    identifier: str = _empty("")
    clickable: bool = _empty(False)
    checkable: bool = _empty(False)
    checked: bool = _empty(False)
    selected: bool = _empty(False)
    focused: bool = _empty(False)
    scrollable: bool = _empty(False)
    password: bool = _empty(False)


@dataclass(frozen=True)
class ElementsResult:
    """openlolo_elements: the elements that pass the filters, the frame
    their ids belong to (the caller's latest), where they came from
    (accessibility, sim or ocr), and the cursor of the next page."""

    frame_id: str
    geometry_epoch: str
    source: str
    elements: Tuple[Element, ...]
    total: int
    next_cursor: str = _empty("")
    note: str = _empty("")


@dataclass(frozen=True)
class AppsResult:
    """openlolo_apps: the apps matching query."""

    apps: Tuple[App, ...]
    query: str
    matched: int


@dataclass(frozen=True)
class DeviceInfoResult:
    """openlolo_device_info."""

    model: str
    platform: str
    backend: str
    native_width: int
    native_height: int
    ready: bool
    state: str
    reason: str


# -------------------------------------------------------------- operations


@dataclass(frozen=True)
class Operation:
    """The journal's record of one operation; state is queued, dispatched,
    succeeded, failed, cancelled or outcome_unknown. answer is the stored
    answer in the shape of that tool's answer (free-form here:
    :func:`parse_answer` reads it for its tool)."""

    id: str
    tool: str
    state: str
    code: str
    created_ms: int
    updated_ms: int
    answer: Optional[Dict[str, Any]] = _omitempty()


@dataclass(frozen=True)
class OperationStatusResult:
    """openlolo_operation_status."""

    operation: Operation


# ------------------------------------------------------------------ events


@dataclass(frozen=True)
class FrameEvent:
    """The screen changed."""

    seq: int
    frame_time_ms: int


@dataclass(frozen=True)
class PhoneEvent:
    """The phone was attached or detached, or its geometry changed."""

    event: str
    state: str
    width: int
    height: int
    geometry_epoch: str


@dataclass(frozen=True)
class ControlEvent:
    """Control was acquired, renewed, released or lapsed, or input was
    paused or resumed."""

    event: str
    client: str


@dataclass(frozen=True)
class OperationEvent:
    """One of the caller's operations changed state."""

    operation_id: str
    tool: str
    state: str


@dataclass(frozen=True)
class AccessEvent:
    """The caller's grant was revoked or is expiring."""

    event: str
    expires_ms: int = field(default=0, metadata={"omitempty": True})


@dataclass(frozen=True)
class AskEvent:
    """One of the caller's asks was created, allowed, denied or expired."""

    event: str
    ask_id: str
    operation_id: str
    tool: str
    state: str
    url: str = field(default="", metadata={"omitempty": True})


EventBody = Union[FrameEvent, PhoneEvent, ControlEvent, OperationEvent, AccessEvent, AskEvent]

# The kind-specific members of each event kind.
EVENT_BODIES: Dict[str, Type[Any]] = {
    "frame": FrameEvent,
    "phone": PhoneEvent,
    "control": ControlEvent,
    "operation": OperationEvent,
    "access": AccessEvent,
    "ask": AskEvent,
}


@dataclass(frozen=True)
class Event:
    """One openlolo_watch event: kind, time and cursor, and the members of
    its kind in body (None for a kind this SDK does not know)."""

    kind: str
    time_ms: int
    cursor: str = ""
    body: Optional[EventBody] = None
    phone: str = ""  # the phone it is about, on a box of several


@dataclass(frozen=True)
class WatchResult:
    """openlolo_watch: the events after the cursor; ended is
    "grant_revoked" when the watch ended because the grant was revoked."""

    events: Tuple[Event, ...]
    cursor: str
    ended: str = field(default="", metadata={"omitempty": True})


# ----------------------------------------------------------- mutating tools


@dataclass(frozen=True)
class PauseResult:
    """openlolo_pause."""

    paused: bool


@dataclass(frozen=True)
class ControlResult:
    """openlolo_control."""

    control: Lease
    paused: bool


@dataclass(frozen=True)
class CancelResult:
    """openlolo_cancel: was is the target's state when the cancel arrived;
    stopped is true when it was queued or running and was stopped."""

    target: str
    was: str
    stopped: bool


@dataclass(frozen=True)
class Cadence:
    """A gesture's pacing on the box's monotonic clock."""

    median_interval_ms: float
    max_gap_ms: float
    skipped: int


@dataclass(frozen=True)
class InputResult:
    """An input tool's result: the HID reports written, how long it took,
    a gesture's cadence, the input path that ran where the phone has two
    (via: aoa or adb-input), and the screenshot taken after it
    (observation; its image is the answer's image block) or why there is
    none."""

    reports: int
    took_ms: int
    observation: Optional[Frame] = _omitempty()
    observation_error: Optional[Error] = _omitempty()
    cadence: Optional[Cadence] = _omitempty()
    via: str = _empty("")


TapResult = LongPressResult = SwipeResult = TypeTextResult = KeyResult = ButtonResult = OpenURLResult = ShortcutResult = InputResult


@dataclass(frozen=True)
class LaunchAppResult:
    """openlolo_launch_app: the input result and the app that was opened."""

    reports: int
    took_ms: int
    observation: Optional[Frame] = _omitempty()
    observation_error: Optional[Error] = _omitempty()
    cadence: Optional[Cadence] = _omitempty()
    via: str = _empty("")
    app: Optional[App] = _omitempty()


# ------------------------------------------------------------ app profiles


@dataclass(frozen=True)
class LinkParam:
    """A deep link's parameter: its type (string, integer, number or
    boolean), whether it is required, and for strings a pattern (a
    whole-value RE2 expression) or the values allowed (enum)."""

    name: str
    type: str
    required: bool
    description: str = field(default="", metadata={"omitempty": True})
    pattern: str = field(default="", metadata={"omitempty": True})
    enum: Optional[Tuple[str, ...]] = _omitempty()


@dataclass(frozen=True)
class DeepLink:
    """A link into an app: url is a template with {name} for each
    parameter's (percent-encoded) value."""

    name: str
    description: str
    url: str
    params: Tuple[LinkParam, ...]


@dataclass(frozen=True)
class AppProfile:
    """What the box knows about one app (no coordinates); source is
    shipped or owner."""

    bundle_id: str
    name: str
    platform: str
    url_schemes: Tuple[str, ...]
    links: Tuple[DeepLink, ...]
    quirks: Tuple[str, ...]
    source: str


@dataclass(frozen=True)
class AppProfileSummary:
    """A profile as openlolo_app_profiles lists it: links are the names."""

    bundle_id: str
    name: str
    platform: str
    url_schemes: Tuple[str, ...]
    links: Tuple[str, ...]
    in_catalog: bool
    source: str


@dataclass(frozen=True)
class AppProfilesResult:
    """openlolo_app_profiles: the profiles of the phone's platform."""

    platform: str
    profiles: Tuple[AppProfileSummary, ...]
    query: str
    matched: int


@dataclass(frozen=True)
class AppProfileResult:
    """openlolo_app_profile."""

    profile: AppProfile
    in_catalog: bool


@dataclass(frozen=True)
class OpenLinkResult:
    """openlolo_open_link: the input result, the URL the box built and
    opened, and the app it belongs to."""

    reports: int
    took_ms: int
    url: str
    app: App
    observation: Optional[Frame] = _omitempty()
    observation_error: Optional[Error] = _omitempty()
    cadence: Optional[Cadence] = _omitempty()
    via: str = _empty("")


# --------------------------------------------------- full page, clipboard


@dataclass(frozen=True)
class SendTextResult:
    """openlolo_send_text: the input result; clipboard_replaced says the
    phone's clipboard now holds the text; characters counts code points."""

    reports: int
    took_ms: int
    clipboard_replaced: bool
    characters: int
    observation: Optional[Frame] = _omitempty()
    observation_error: Optional[Error] = _omitempty()
    cadence: Optional[Cadence] = _omitempty()
    via: str = _empty("")


@dataclass(frozen=True)
class ClipboardResult:
    """openlolo_clipboard: what the phone's clipboard holds."""

    text: str
    characters: int


@dataclass(frozen=True)
class PhoneEntry:
    """One phone of the box (openlolo_phones): its id (the phone argument
    of every phone tool), name, platform, backend, state, problems, who
    holds its control and whether its input is paused."""

    id: str
    name: str
    platform: str
    backend: str
    state: str
    problems: Tuple[str, ...]
    control: Lease
    paused: bool


@dataclass(frozen=True)
class PhonesResult:
    """openlolo_phones: every phone of the box."""

    phones: Tuple[PhoneEntry, ...]


@dataclass(frozen=True)
class Page:
    """One page of openlolo_full_page: its frame as sent, how far the
    content moved up since the page before (native pixels), whether that
    overlap was found in the pixels, and its image block's index (-1 when
    output is stitched)."""

    frame_id: str
    geometry_epoch: str
    width: int
    height: int
    native_width: int
    native_height: int
    age_ms: int
    format: str
    shift: int
    matched: bool
    image: int


@dataclass(frozen=True)
class StitchedImage:
    """The whole page as one image: its size, format and image block."""

    width: int
    height: int
    format: str
    image: int


@dataclass(frozen=True)
class FullPageResult:
    """openlolo_full_page: the pages, why it stopped (end or pages), the
    fixed header and footer rows, the drags made, the stitched image when
    asked, and current, the frame on the screen now (for the next tap)."""

    pages: Tuple[Page, ...]
    page_count: int
    stopped: str
    header: int
    footer: int
    swipes: int
    current: Optional[Frame]
    took_ms: int
    stitched: Optional[StitchedImage] = _omitempty()


# Each tool's result type.
RESULTS: Dict[str, Type[Any]] = {
    "openlolo_status": StatusResult,
    "openlolo_capabilities": CapabilitiesResult,
    "openlolo_screenshot": ScreenshotResult,
    "openlolo_apps": AppsResult,
    "openlolo_find_text": FindTextResult,
    "openlolo_device_info": DeviceInfoResult,
    "openlolo_operation_status": OperationStatusResult,
    "openlolo_watch": WatchResult,
    "openlolo_pause": PauseResult,
    "openlolo_tap": TapResult,
    "openlolo_long_press": LongPressResult,
    "openlolo_swipe": SwipeResult,
    "openlolo_type_text": TypeTextResult,
    "openlolo_key": KeyResult,
    "openlolo_button": ButtonResult,
    "openlolo_shortcut": ShortcutResult,
    "openlolo_launch_app": LaunchAppResult,
    "openlolo_open_url": OpenURLResult,
    "openlolo_control": ControlResult,
    "openlolo_cancel": CancelResult,
    "openlolo_app_profiles": AppProfilesResult,
    "openlolo_app_profile": AppProfileResult,
    "openlolo_open_link": OpenLinkResult,
    "openlolo_full_page": FullPageResult,
    "openlolo_send_text": SendTextResult,
    "openlolo_clipboard": ClipboardResult,
    "openlolo_elements": ElementsResult,
    "openlolo_phones": PhonesResult,
}


# ---------------------------------------------------------------- reading


class DecodeError(ProtocolError):
    """A JSON value does not have the shape of the type it was read as.
    ``path`` names the member ("structuredContent.you.scopes[1]")."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__("%s: %s" % (path, problem))


T = TypeVar("T")


def decode(cls: Type[T], value: Any, *, strict: bool = False, path: str = "structuredContent") -> T:
    """Read a JSON object (as json.loads gives it) as the dataclass cls.

    Lenient (the default): members cls does not have are ignored, absent
    ones take their defaults (or the type's zero value). strict: an unknown
    member, or an absent one the box always sends (not omitempty in Go),
    is a DecodeError. A member of the wrong JSON type is always one."""
    return cast(T, _value(cls, value, strict, path))


def _value(tp: Any, v: Any, strict: bool, path: str) -> Any:
    if tp is Any:
        return v
    origin = get_origin(tp)
    if origin is Union:
        args = [a for a in get_args(tp) if a is not type(None)]
        if v is None:
            return None
        return _value(args[0] if len(args) == 1 else Any, v, strict, path)
    if origin is tuple:
        if v is None:  # Go's nil slice
            return ()
        if not isinstance(v, list):
            raise DecodeError(path, "want an array, got %s" % _kind(v))
        item = get_args(tp)[0]
        return tuple(_value(item, x, strict, "%s[%d]" % (path, i)) for i, x in enumerate(v))
    if origin is dict:
        if not isinstance(v, dict):
            raise DecodeError(path, "want an object, got %s" % _kind(v))
        return dict(v)
    if tp is Event:
        return _event(v, strict, path)
    if dataclasses.is_dataclass(tp):
        return _object(tp, v, strict, path)
    if tp is bool:
        if not isinstance(v, bool):
            raise DecodeError(path, "want true or false, got %s" % _kind(v))
        return v
    if tp is int:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            raise DecodeError(path, "want an integer, got %s" % _kind(v))
        return int(v)
    if tp is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DecodeError(path, "want a number, got %s" % _kind(v))
        return float(v)
    if tp is str:
        if not isinstance(v, str):
            raise DecodeError(path, "want a string, got %s" % _kind(v))
        return v
    raise TypeError("openlolo: %s: cannot read a %r" % (path, tp))


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def _zero(tp: Any) -> Any:
    origin = get_origin(tp)
    if origin is Union:
        return None
    if origin is tuple:
        return ()
    if origin is dict:
        return {}
    if dataclasses.is_dataclass(tp):
        return _object(tp, {}, False, "")
    return {bool: False, int: 0, float: 0.0, str: ""}.get(tp)


def _object(cls: Any, v: Any, strict: bool, path: str) -> Any:
    if not isinstance(v, dict):
        raise DecodeError(path, "want an object, got %s" % _kind(v))
    hints = get_type_hints(cls)
    fields = dataclasses.fields(cls)
    if strict:
        known = {f.name for f in fields}
        extra = sorted(k for k in v if k not in known)
        if extra:
            raise DecodeError(path, "%s has no member %s" % (cls.__name__, ", ".join(extra)))
    kw: Dict[str, Any] = {}
    for f in fields:
        sub = path + "." + f.name if path else f.name
        if f.name in v:
            kw[f.name] = _value(hints[f.name], v[f.name], strict, sub)
            continue
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if strict and not f.metadata.get("omitempty"):
            raise DecodeError(sub, "missing (the box always sends it)")
        if not has_default:
            kw[f.name] = _zero(hints[f.name])
    return cls(**kw)


def _event(v: Any, strict: bool, path: str) -> Event:
    if not isinstance(v, dict):
        raise DecodeError(path, "want an object, got %s" % _kind(v))
    body_cls = EVENT_BODIES.get(v.get("kind", "")) if isinstance(v.get("kind"), str) else None
    head = {"kind", "time_ms", "cursor", "phone"}
    if strict:
        known = head | ({f.name for f in dataclasses.fields(body_cls)} if body_cls else set())
        extra = sorted(k for k in v if k not in known)
        if extra:
            raise DecodeError(path, "a %s event has no member %s" % (v.get("kind"), ", ".join(extra)))
        for k in ("kind", "time_ms"):
            if k not in v:
                raise DecodeError(path + "." + k, "missing (the box always sends it)")
    kind = _value(str, v.get("kind", ""), strict, path + ".kind")
    time_ms = _value(int, v.get("time_ms", 0), strict, path + ".time_ms")
    cursor = _value(str, v.get("cursor", ""), strict, path + ".cursor")
    phone = _value(str, v.get("phone", ""), strict, path + ".phone")
    body = None
    if body_cls is not None:
        body = _object(body_cls, {k: x for k, x in v.items() if k not in head}, strict, path)
    return Event(kind, time_ms, cursor, body, phone)


# Tools that change the phone or the box: they take an operation_id, and
# their answers carry the operation's members of the outcome.
MUTATING_TOOLS = frozenset(
    {
        "openlolo_full_page",
        "openlolo_send_text",
        "openlolo_tap",
        "openlolo_long_press",
        "openlolo_swipe",
        "openlolo_type_text",
        "openlolo_key",
        "openlolo_button",
        "openlolo_shortcut",
        "openlolo_launch_app",
        "openlolo_open_url",
        "openlolo_open_link",
        "openlolo_control",
        "openlolo_pause",
        "openlolo_cancel",
    }
)

# Outcome members only mutating tools carry (a read tool's result may have
# members of the same name: openlolo_device_info's state is the phone's).
MUTATING_MEMBERS = ("operation_id", "dispatched", "state", "replayed", "tool", "ask")


def outcome_members(tool: str) -> Tuple[str, ...]:
    """The members of tool's answers that are the Outcome's."""
    names = tuple(f.name for f in dataclasses.fields(Outcome))
    if tool in MUTATING_TOOLS:
        return names
    return tuple(n for n in names if n not in MUTATING_MEMBERS)


def parse_answer(tool: str, structured: Mapping[str, Any], *, strict: bool = False) -> Tuple[Outcome, Optional[Any]]:
    """A tool's structuredContent as its Outcome and typed result (the
    dataclass in RESULTS; None when the status is failed, or for a tool
    this SDK does not know). strict: the members must be exactly the
    outcome's and the result's."""
    names = outcome_members(tool)
    result_cls = RESULTS.get(tool)
    outcome = _object(Outcome, {k: x for k, x in structured.items() if k in names}, strict, "structuredContent")
    rest = {k: x for k, x in structured.items() if k not in names}
    if structured.get("status") == "failed" or result_cls is None:
        if strict and rest:
            raise DecodeError("structuredContent", "a %s answer has no member %s"
                              % ("failed" if result_cls else tool, ", ".join(sorted(rest))))
        return outcome, None
    return outcome, _object(result_cls, rest, strict, "structuredContent")
