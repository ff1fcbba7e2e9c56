"""Errors of the openlolo SDK, mapped from the box's answers (docs/wire.md, Codes).

Three families:

* ``Refused`` and its per-code subclasses: the box understood a tool call and
  refused or failed it (``structuredContent.status == "failed"``).
* ``ProtocolError``: a JSON-RPC error, or an answer the SDK could not read.
* ``ConnectionProblem`` and its subclasses: below MCP (the box could not be
  reached, the certificate pin did not match, the grant is gone, the token
  belongs to another entry, the box was never paired).

The RFC 8628 states while pairing are ``PairingError`` subclasses.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Type


class OpenloloError(Exception):
    """Base class of every error the SDK raises on purpose."""


class Refused(OpenloloError):
    """A tool answered ``status: failed``: the box refused or failed the call.

    ``code`` is one of the box's stable codes (``FRAME_EXPIRED``, ...),
    ``dispatched`` tells whether input may have reached the phone,
    ``retry_after`` is in seconds (from ``retry_after_ms``; 0.0 when absent).
    """

    code_name: str = ""

    def __init__(
        self,
        code: str,
        message: str,
        next_steps: Optional[List[str]] = None,
        dispatched: bool = False,
        retryable: bool = False,
        retry_after: float = 0.0,
        tool: str = "",
        result: Optional[Any] = None,
    ) -> None:
        self.code = code
        self.message = message
        self.next_steps: List[str] = list(next_steps or [])
        self.dispatched = dispatched
        self.retryable = retryable
        self.retry_after = retry_after
        self.tool = tool
        self.result = result
        super().__init__(self._text())

    def _text(self) -> str:
        s = "%s refused: %s: %s" % (self.tool or "tool", self.code, self.message)
        if self.next_steps:
            s += " (next: " + "; ".join(self.next_steps) + ")"
        return s


class InvalidArguments(Refused):
    """INVALID_ARGUMENTS: fix the arguments (tools/list gives the schema)."""

    code_name = "INVALID_ARGUMENTS"


class ScopeRequired(Refused):
    """SCOPE_REQUIRED: the grant lacks the scope the tool needs."""

    code_name = "SCOPE_REQUIRED"


class RateLimited(Refused):
    """RATE_LIMITED: the call did not run; wait ``retry_after`` seconds."""

    code_name = "RATE_LIMITED"


class FrameExpired(Refused):
    """FRAME_EXPIRED: take a new screenshot and use its frame."""

    code_name = "FRAME_EXPIRED"


class ControlBusy(Refused):
    """CONTROL_BUSY: another client holds control of the phone."""

    code_name = "CONTROL_BUSY"


class ControlRequired(Refused):
    """CONTROL_REQUIRED: acquire control first."""

    code_name = "CONTROL_REQUIRED"


class Paused(Refused):
    """PAUSED: someone paused all input on the box."""

    code_name = "PAUSED"


class OperationConflict(Refused):
    """OPERATION_CONFLICT: the operation_id was used for a different call."""

    code_name = "OPERATION_CONFLICT"


class OperationNotFound(Refused):
    """OPERATION_NOT_FOUND: no such operation of this client."""

    code_name = "OPERATION_NOT_FOUND"


class OutcomeUnknown(Refused):
    """OUTCOME_UNKNOWN: the input may or may not have reached the phone."""

    code_name = "OUTCOME_UNKNOWN"


class QueueFull(Refused):
    """QUEUE_FULL: too many inputs waiting."""

    code_name = "QUEUE_FULL"


class PhoneUnavailable(Refused):
    """PHONE_UNAVAILABLE: the phone is not ready (openlolo_status says why)."""

    code_name = "PHONE_UNAVAILABLE"


class PhoneRequired(Refused):
    """PHONE_REQUIRED: the box has several phones and the call named none
    of them (openlolo_phones lists them; pass one's id as phone)."""

    code_name = "PHONE_REQUIRED"


class PhoneNotGranted(Refused):
    """PHONE_NOT_GRANTED: the phone named is not one this client's grant
    reaches (openlolo_phones lists those it does; the owner may approve the
    client again for another)."""

    code_name = "PHONE_NOT_GRANTED"


class CaptureFailed(Refused):
    """CAPTURE_FAILED: the screenshot could not be taken."""

    code_name = "CAPTURE_FAILED"


class InputFailed(Refused):
    """INPUT_FAILED: the input could not be sent to the phone."""

    code_name = "INPUT_FAILED"


class Unsupported(Refused):
    """UNSUPPORTED: this phone cannot do that."""

    code_name = "UNSUPPORTED"


class UnsupportedText(Unsupported):
    """UNSUPPORTED_TEXT: type_text takes printable US ASCII only."""

    code_name = "UNSUPPORTED_TEXT"


class UnsupportedKey(Unsupported):
    """UNSUPPORTED_KEY: not a key this phone knows."""

    code_name = "UNSUPPORTED_KEY"


class UnsupportedButton(Unsupported):
    """UNSUPPORTED_BUTTON: not a button this phone has."""

    code_name = "UNSUPPORTED_BUTTON"


class AppNotFound(Refused):
    """APP_NOT_FOUND: the app is not in the box's catalog."""

    code_name = "APP_NOT_FOUND"


class ProfileNotFound(Refused):
    """PROFILE_NOT_FOUND: the box has no profile for that bundle id."""

    code_name = "PROFILE_NOT_FOUND"


class LinkNotFound(Refused):
    """LINK_NOT_FOUND: the app's profile has no deep link of that name."""

    code_name = "LINK_NOT_FOUND"


class LinkParams(Refused):
    """LINK_PARAMS: a deep link's parameter is missing, unknown or of the
    wrong type; openlolo_app_profile gives each one's type."""

    code_name = "LINK_PARAMS"


class CursorExpired(Refused):
    """CURSOR_EXPIRED: the watch cursor is no longer known to the box."""

    code_name = "CURSOR_EXPIRED"


class Cancelled(Refused):
    """CANCELLED: stopped by openlolo_cancel before it reached the phone."""

    code_name = "CANCELLED"


class Internal(Refused):
    """INTERNAL: the box failed; retry once, then look at openlolo_status."""

    code_name = "INTERNAL"


class AskDenied(Refused):
    """ASK_DENIED: the owner said no to this call; nothing was sent."""

    code_name = "ASK_DENIED"


class AskExpired(Refused):
    """ASK_EXPIRED: nobody decided the ask in time (or the retry after an
    allow came too late); send the call again with a fresh operation_id to
    ask anew."""

    code_name = "ASK_EXPIRED"


class AskPending(OpenloloError):
    """A tool answered ``status: pending`` with an ``ask``: the owner marked
    this kind of call, and nothing reached the phone yet. The owner decides
    on the box page at ``url``; then call the same tool again with the same
    arguments and ``operation_id``: allowed, it runs once; denied, it raises
    ``AskDenied``; undecided for 10 minutes, ``AskExpired``; still waiting,
    ``AskPending`` again. ``ask`` is the answer's ask (``api.Ask``)."""

    def __init__(self, tool: str, operation_id: str, ask: Any, result: Optional[Any] = None) -> None:
        self.tool = tool
        self.operation_id = operation_id
        self.ask = ask
        self.ask_id: str = getattr(ask, "id", "")
        self.url: str = getattr(ask, "url", "")
        self.what: str = getattr(ask, "what", "")
        self.result = result
        super().__init__(
            "%s waits for the owner: they are asked to %s at %s; call it again with operation_id %s and the same arguments once they decide"
            % (tool, self.what, self.url, operation_id)
        )


class ProtocolError(OpenloloError):
    """A JSON-RPC error, or an answer the SDK could not read."""

    def __init__(self, message: str, code: int = 0) -> None:
        self.code = code
        self.message = message
        if code:
            super().__init__("openlolo: protocol error %d: %s" % (code, message))
        else:
            super().__init__("openlolo: protocol error: " + message)


class ConnectionProblem(OpenloloError):
    """Below MCP: the box, its certificate or the grant is not usable."""


class TransportError(ConnectionProblem):
    """The connection failed before an answer arrived; the request may or may
    not have reached the box."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__("openlolo: connection to the box failed: " + message)


class PinMismatch(ConnectionProblem):
    """The box presented a certificate other than the pinned one. Nothing was
    sent after the handshake."""

    def __init__(self, want: str, got: str) -> None:
        self.want = want
        self.got = got
        super().__init__(
            "openlolo: certificate pin mismatch: pinned %s, box presented %s; "
            "if the box's certificate was rotated on purpose, pair again" % (want, got)
        )


class GrantRevoked(ConnectionProblem):
    """The grant was revoked under Access, expired, or was revoked by the box
    because a used refresh token was presented. Pair again."""

    def __init__(self, detail: str = "") -> None:
        msg = "openlolo: the grant was revoked or has expired; pair again with `openlolo-sdk pair`"
        if detail:
            msg += " (" + detail + ")"
        super().__init__(msg)


class WrongEntry(ConnectionProblem):
    """The token belongs to another entry of the box (LAN versus tailnet)."""

    def __init__(self, detail: str = "") -> None:
        msg = "openlolo: this token belongs to another entry of the box (LAN vs tailnet); pair with the entry you use"
        if detail:
            msg += " (" + detail + ")"
        super().__init__(msg)


class NotPaired(ConnectionProblem):
    """The token store has no grant for this box."""

    def __init__(self, url: str) -> None:
        self.url = url
        super().__init__("openlolo: box is not paired: %s (run `openlolo-sdk pair %s`)" % (url, url))


class StoreError(OpenloloError):
    """The token store file cannot be read or written."""


class GrantRevokedRefusal(Refused, GrantRevoked):
    """A tool answered GRANT_REVOKED (e.g. inside a held watch)."""

    code_name = "GRANT_REVOKED"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Refused.__init__(self, *args, **kwargs)


class PairingError(OpenloloError):
    """Base of the RFC 8628 states while pairing."""


class AuthorizationPending(PairingError):
    """The owner has not approved the request yet."""

    def __init__(self) -> None:
        super().__init__("openlolo: authorization pending: the owner has not approved the request yet")


class SlowDown(PairingError):
    """Polling too fast, or too many pairing requests at once (HTTP 429)."""

    def __init__(self, detail: str = "") -> None:
        msg = "openlolo: slow down: polling too fast, or too many pairing requests at once"
        if detail:
            msg += ": " + detail
        super().__init__(msg)


class AccessDenied(PairingError):
    """The owner denied the request on the box page."""

    def __init__(self) -> None:
        super().__init__("openlolo: access denied: the owner denied the request on the box page")


class ExpiredToken(PairingError):
    """The pairing request expired before the owner decided."""

    def __init__(self) -> None:
        super().__init__("openlolo: the pairing request expired before it was approved; pair again")


def _refused_classes() -> Dict[str, Type[Refused]]:
    out: Dict[str, Type[Refused]] = {}
    stack: List[Type[Refused]] = [Refused]
    while stack:
        cls = stack.pop()
        if cls.code_name:
            out[cls.code_name] = cls
        stack.extend(cls.__subclasses__())
    return out


def refused_from(tool: str, structured: Optional[Mapping[str, Any]], result: Optional[Any] = None) -> Refused:
    """Build the Refused subclass for a failed answer's structuredContent."""
    sc: Mapping[str, Any] = structured or {}
    code, message = "INTERNAL", "the box reported a failure without an error"
    next_steps: List[str] = []
    retryable, retry_after = False, 0.0
    dispatched = bool(sc.get("dispatched", False)) if isinstance(sc.get("dispatched"), bool) else False
    err = sc.get("error")
    if isinstance(err, Mapping):
        if isinstance(err.get("code"), str):
            code = err["code"]
        if isinstance(err.get("message"), str):
            message = err["message"]
        if isinstance(err.get("retryable"), bool):
            retryable = err["retryable"]
        ms = err.get("retry_after_ms")
        if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms > 0:
            retry_after = float(ms) / 1000.0
        steps = err.get("next_steps")
        if isinstance(steps, list):
            next_steps = [s for s in steps if isinstance(s, str)]
    cls = _refused_classes().get(code, Refused)
    return cls(code, message, next_steps, dispatched, retryable, retry_after, tool, result)
