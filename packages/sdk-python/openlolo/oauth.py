"""The box's OAuth side as a client sees it: metadata, the device grant
(RFC 8628) and refresh-token rotation, with errors mapped to the SDK's."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any, Dict, Mapping

from .errors import (
    AccessDenied,
    AuthorizationPending,
    ExpiredToken,
    GrantRevoked,
    OpenloloError,
    ProtocolError,
    SlowDown,
    WrongEntry,
)
from .transport import Transport

DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class OAuthError(OpenloloError):
    """An RFC 6749 error answer that has no more specific SDK error."""

    def __init__(self, status: int, code: str, description: str) -> None:
        self.status = status
        self.code = code
        self.description = description
        msg = "openlolo: " + code
        if description:
            msg += ": " + description
        super().__init__(msg)


def fetch_metadata(t: Transport) -> Dict[str, Any]:
    """/.well-known/oauth-authorization-server as a dict."""
    r = t.request("GET", "/.well-known/oauth-authorization-server", headers={"Accept": "application/json"})
    if r.status != 200:
        raise ProtocolError("%s has no OAuth metadata (HTTP %d); is this an openlolo box?" % (t.url, r.status))
    try:
        md = json.loads(r.body)
    except ValueError as e:
        raise ProtocolError("%s: OAuth metadata is not JSON: %s" % (t.url, e)) from e
    if not isinstance(md, dict):
        raise ProtocolError("%s: OAuth metadata is not a JSON object" % t.url)
    return md


def endpoint_path(t: Transport, endpoint: Any, default: str) -> str:
    """The path of a metadata endpoint on this box (the metadata may name the
    box by another host; requests always go to the box we pinned)."""
    if not isinstance(endpoint, str) or not endpoint:
        return default
    u = urllib.parse.urlsplit(endpoint)
    path = u.path or default
    if u.query:
        path += "?" + u.query
    return path


def post_form(t: Transport, path: str, form: Mapping[str, str]) -> Dict[str, Any]:
    """POST a form and return the JSON answer; OAuthError for an error answer."""
    body = urllib.parse.urlencode(form).encode("ascii")
    r = t.request(
        "POST",
        path,
        body=body,
        headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
    )
    try:
        doc = json.loads(r.body) if r.body else {}
    except ValueError:
        doc = None
    if r.status != 200:
        if isinstance(doc, dict) and isinstance(doc.get("error"), str) and doc["error"]:
            raise OAuthError(r.status, doc["error"], str(doc.get("error_description") or ""))
        raise OAuthError(r.status, "http_%d" % r.status, r.body.decode("utf-8", "replace").strip())
    if not isinstance(doc, dict):
        raise ProtocolError("%s%s answered non-JSON" % (t.url, path))
    return doc


def map_token_error(e: OAuthError) -> OpenloloError:
    """/token errors as the SDK's errors (the Go SDK's mapping)."""
    if e.code == "invalid_grant":
        if "another entry" in e.description:
            return WrongEntry(e.description)
        return GrantRevoked(str(e))
    if e.code == "invalid_client":
        return GrantRevoked(str(e))
    if e.code == "authorization_pending":
        return AuthorizationPending()
    if e.code == "slow_down":
        return SlowDown()
    if e.code == "access_denied":
        return AccessDenied()
    if e.code == "expired_token":
        return ExpiredToken()
    return e
