"""openlolo: the Python client of the openlolo phone box (standard library only).

    from openlolo import Box
    box = Box("openlolo-1a2b.local")
    box.pair()                      # once; the owner approves on the box page
    shot = box.screenshot()
    box.tap(shot.frame, 0.5, 0.5)
    box.type_text("hello")
"""

from . import api
from .api import DecodeError
from .client import DEFAULT_SCOPES, MUTATING_TOOLS, Box, Frame, Image, Result, Screenshot, Watch, default_client_name
from .errors import (
    AccessDenied,
    AppNotFound,
    AskDenied,
    AskExpired,
    AskPending,
    AuthorizationPending,
    CaptureFailed,
    Cancelled,
    ConnectionProblem,
    ControlBusy,
    ControlRequired,
    CursorExpired,
    ExpiredToken,
    FrameExpired,
    GrantRevoked,
    GrantRevokedRefusal,
    InputFailed,
    Internal,
    InvalidArguments,
    LinkNotFound,
    LinkParams,
    NotPaired,
    OpenloloError,
    OperationConflict,
    OperationNotFound,
    OutcomeUnknown,
    PairingError,
    Paused,
    PhoneNotGranted,
    PhoneRequired,
    PhoneUnavailable,
    PinMismatch,
    ProfileNotFound,
    ProtocolError,
    QueueFull,
    RateLimited,
    Refused,
    ScopeRequired,
    SlowDown,
    StoreError,
    TransportError,
    Unsupported,
    UnsupportedButton,
    UnsupportedKey,
    UnsupportedText,
    WrongEntry,
)
from .fleet import BoxPause, BoxState, Fleet, FleetPhone, FleetPhones, Phone
from .pin import Pin, fingerprint_colon, fingerprint_hex, parse_pin, spki_pin
from .store import BoxEntry, TokenStore, default_store_path
from .transport import normalize_url

__version__ = "0.1.0"

__all__ = [
    "AccessDenied", "AppNotFound", "AskDenied", "AskExpired", "AskPending", "AuthorizationPending", "Box", "BoxEntry", "BoxPause", "BoxState", "Cancelled", "CaptureFailed",
    "ConnectionProblem", "ControlBusy", "ControlRequired", "CursorExpired", "DecodeError", "DEFAULT_SCOPES", "ExpiredToken",
    "Fleet", "FleetPhone", "FleetPhones", "Frame", "FrameExpired", "GrantRevoked", "GrantRevokedRefusal", "Image", "InputFailed", "Internal",
    "InvalidArguments", "LinkNotFound", "LinkParams", "MUTATING_TOOLS", "NotPaired", "OpenloloError", "OperationConflict", "OperationNotFound",
    "OutcomeUnknown", "PairingError", "Paused", "Phone", "PhoneNotGranted", "PhoneRequired", "PhoneUnavailable", "Pin", "PinMismatch", "ProfileNotFound", "ProtocolError",
    "QueueFull", "RateLimited", "Refused", "Result", "ScopeRequired", "Screenshot", "SlowDown", "StoreError",
    "TokenStore", "TransportError", "Unsupported", "UnsupportedButton", "UnsupportedKey", "UnsupportedText",
    "Watch", "WrongEntry", "default_client_name", "default_store_path", "fingerprint_colon", "fingerprint_hex",
    "api", "normalize_url", "parse_pin", "spki_pin",
]
