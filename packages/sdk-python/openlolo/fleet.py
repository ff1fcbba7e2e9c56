"""Every paired box at once: the Python side of the Go SDK's Fleet.

    from openlolo import Fleet
    with Fleet() as fleet:
        for p in fleet.phones().phones:
            print(p.id, p.entry.state)          # "openlolo-1a2b/sim-1 ready"
        phone = fleet.phone("openlolo-1a2b/sim-2")
        phone.call("screenshot", max_size=512)

Phones are named box/phone, the box's name (its URL's host where two
stored boxes share a name) and the phone's id on it. A box that does not
answer is listed with its error and makes calls to its phones raise
PhoneUnavailable; the other boxes are not held up. ``fleet.pause()`` is
the emergency stop of every box at once.
"""

from __future__ import annotations

import concurrent.futures
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from . import api
from .client import MUTATING_TOOLS, Box, Result
from .errors import ConnectionProblem, OpenloloError, PhoneRequired, PhoneUnavailable, TransportError
from .store import TokenStore

# How long a listing waits for one box (seconds), and how long a listing
# resolves a phone left out before the boxes are asked again: 30 s, or 5 s
# when a box did not answer it (a box back on takes calls within seconds).
LIST_TIMEOUT = 5.0
LIST_TTL = 30.0
LIST_SILENT_TTL = 5.0


@dataclass(frozen=True)
class FleetPhone:
    """One phone of the fleet: ``id`` is box/phone, ``box`` the box's
    fleet id, ``entry`` the box's own openlolo_phones entry (its id is the
    box's)."""

    id: str
    box: str
    entry: api.PhoneEntry


@dataclass(frozen=True)
class BoxState:
    """Whether one box answered the last listing (``error`` says why not)."""

    id: str
    url: str
    reachable: bool
    error: Optional[OpenloloError] = None


@dataclass(frozen=True)
class FleetPhones:
    """A listing: the phones of every box that answered, and each box's state."""

    phones: List[FleetPhone]
    boxes: List[BoxState]


class Fleet:
    """Every box the token store holds a grant for (``store``: the per-user
    default when None). Opening asks no box anything; ``phones()`` asks all
    of them at once."""

    def __init__(self, *, store: Optional[TokenStore] = None, timeout: float = 30.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store if store is not None else TokenStore()
        self._clock = clock
        entries = [e for e in self.store.list() if e.refresh_token or e.access_token]
        if not entries:
            raise ConnectionProblem("openlolo: %s holds no grant for any box; pair with one first: openlolo pair openlolo-1a2b.local" % self.store.path)
        names = [e.name for e in entries]
        boxes: Dict[str, Box] = {}
        for e in entries:
            bid = e.name
            if not bid or names.count(bid) > 1 or "/" in bid:
                bid = urllib.parse.urlsplit(e.url).netloc
            boxes[bid] = Box(e.url, store=self.store, timeout=timeout, clock=clock)
        self.boxes: Dict[str, Box] = dict(sorted(boxes.items()))
        self._listed: Optional[FleetPhones] = None
        self._at = 0.0

    def close(self) -> None:
        """Close every box's idle connections."""
        for b in self.boxes.values():
            b.close()

    def __enter__(self) -> "Fleet":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def phones(self) -> FleetPhones:
        """openlolo_phones on every box at once, under fleet ids; a box that
        does not answer within a few seconds is listed unreachable."""
        def one(bid: str, box: Box) -> FleetPhones:
            try:
                res = box.call_tool("openlolo_phones", {}, timeout=LIST_TIMEOUT)
                names = api.outcome_members("openlolo_phones")
                listed = api.decode(api.PhonesResult, {k: v for k, v in res.structured.items() if k not in names}, path="openlolo_phones")
            except OpenloloError as e:
                return FleetPhones([], [BoxState(bid, box.url, False, _unavailable(bid, box, e))])
            return FleetPhones([FleetPhone(bid + "/" + p.id, bid, p) for p in listed.phones], [BoxState(bid, box.url, True)])

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(self.boxes))) as pool:
            parts = list(pool.map(lambda kv: one(*kv), self.boxes.items()))
        out = FleetPhones([p for part in parts for p in part.phones], [b for part in parts for b in part.boxes])
        self._listed, self._at = out, self._clock()
        return out

    def pause(self) -> List["BoxPause"]:
        """The fleet's emergency stop: openlolo_pause naming no phone on
        every box at once, which pauses every phone each box's grant
        reaches. Each box's answer, in box order: a box that does not
        answer or refuses is listed with its error and holds up none of
        the others, which are paused all the same."""
        def one(bid: str, box: Box) -> BoxPause:
            try:
                paused = bool(box.mutate("openlolo_pause", {}).structured.get("paused"))
            except OpenloloError as e:
                return BoxPause(bid, False, _unavailable(bid, box, e, "openlolo_pause"))
            if not paused:
                return BoxPause(bid, False, OpenloloError("openlolo: box %s answered openlolo_pause without saying it paused" % bid))
            return BoxPause(bid, True)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(self.boxes))) as pool:
            return list(pool.map(lambda kv: one(*kv), self.boxes.items()))

    def phone(self, phone_id: str = "") -> "Phone":
        """The handle of phone box/phone ("" for the fleet's only phone,
        when every box answered the listing: a box that did not may hold
        another); PhoneRequired naming the phones otherwise."""
        box_id, sep, local = phone_id.partition("/")
        if sep and local and box_id in self.boxes:
            return Phone(self, box_id, local)
        listed = self._listed
        ttl = LIST_TTL
        if listed is not None and any(not b.reachable for b in listed.boxes):
            ttl = LIST_SILENT_TTL
        if listed is None or self._clock() - self._at >= ttl:
            listed = self.phones()
        silent = [b.id for b in listed.boxes if not b.reachable]
        if not phone_id and len(listed.phones) == 1 and not silent:
            p = listed.phones[0]
            return Phone(self, p.box, p.entry.id)
        ids = [p.id for p in listed.phones]
        if phone_id:
            msg = "the fleet has no phone %r; phone ids are box/phone, as Fleet.phones() lists them" % phone_id
        elif silent:
            msg = "box %s did not answer the listing, so a call naming no phone cannot tell which phone it means; name one" % ", ".join(silent)
        else:
            msg = "the fleet has %d phones on %d boxes; name one" % (len(ids), len(listed.boxes))
        steps = ["call again with phone set to one of: " + ", ".join(ids)] if ids else []
        raise PhoneRequired("PHONE_REQUIRED", msg, next_steps=steps, tool="openlolo_phones")


@dataclass(frozen=True)
class BoxPause:
    """One box's part of Fleet.pause(): paused, or ``error`` says why not."""

    id: str
    paused: bool
    error: Optional[OpenloloError] = None


def _unavailable(box_id: str, box: Box, e: OpenloloError, tool: str = "openlolo_phones") -> OpenloloError:
    """PHONE_UNAVAILABLE for a box that gave no answer (a refusal stays as
    it is). ``dispatched`` is False only when the connection was refused:
    a connection dropped after sending may have run the call."""
    if not isinstance(e, ConnectionProblem):
        return e
    sent = isinstance(e, TransportError) and not _refused_connection(e)
    return PhoneUnavailable(
        "PHONE_UNAVAILABLE", "box %s (%s) does not answer: %s" % (box_id, box.url, e),
        next_steps=["check that box %s is on and reachable at %s, then retry" % (box_id, box.url),
                    "the other boxes' phones answer as before: Fleet.phones() lists them"],
        dispatched=sent, retryable=True, tool=tool)


def _refused_connection(e: BaseException) -> bool:
    """Whether e was caused, at any depth, by a refused connection."""
    cause: Optional[BaseException] = e
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return True
        cause = cause.__cause__
    return False


class Phone:
    """One phone of a fleet: every call names it and goes to its box."""

    def __init__(self, fleet: Fleet, box_id: str, local: str) -> None:
        self.box_id = box_id
        self.local = local
        self.id = box_id + "/" + local
        self.box = fleet.boxes[box_id]

    def _args(self, args: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
        a = dict(args or {})
        a["phone"] = self.local
        return a

    def _routed(self, tool: str, fn: Callable[[], Result]) -> Result:
        try:
            return fn()
        except ConnectionProblem as e:
            raise _unavailable(self.box_id, self.box, e, tool) from e

    def call_tool(self, name: str, args: Optional[Mapping[str, Any]] = None) -> Result:
        """Box.call_tool on this phone."""
        return self._routed(name, lambda: self.box.call_tool(name, self._args(args)))

    def mutate(self, name: str, args: Optional[Mapping[str, Any]] = None) -> Result:
        """Box.mutate on this phone (an operation_id; one retry with it)."""
        return self._routed(name, lambda: self.box.mutate(name, self._args(args)))

    def call(self, name: str, **args: Any) -> Dict[str, Any]:
        """Box.call on this phone: by name (``openlolo_`` may be left out),
        returning the structured result."""
        if not name.startswith("openlolo_"):
            name = "openlolo_" + name
        if name in MUTATING_TOOLS:
            return self.mutate(name, args).structured
        return self.call_tool(name, args).structured
