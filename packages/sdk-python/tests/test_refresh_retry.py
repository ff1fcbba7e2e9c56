"""The refresh after a lost answer: Box retries once with the same refresh
token (the box's retry window answers it with the same pair), and does not
retry a refused refresh."""

import json
import os
import sys
import tempfile
import unittest
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from openlolo import Box, TokenStore  # noqa: E402
from openlolo.errors import GrantRevoked, TransportError  # noqa: E402
from openlolo.store import BoxEntry  # noqa: E402
from openlolo.transport import Response  # noqa: E402


class LossyTransport:
    """Stands in for Transport.request on /token: the first answer is lost
    after the rotation (TransportError), as after a Wi-Fi blip."""

    url = "https://openlolo-ab12.local"

    def __init__(self, answers: List[Any]) -> None:
        self.answers = answers
        self.forms: List[Dict[str, str]] = []

    def request(self, method: str, path: str, body: bytes = b"", headers: Any = None, **kw: Any) -> Response:
        from urllib.parse import parse_qsl

        self.forms.append(dict(parse_qsl(body.decode())))
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return Response(a[0], {"content-type": "application/json"}, json.dumps(a[1]).encode())


class RefreshRetryTest(unittest.TestCase):
    def box(self, t: LossyTransport) -> Box:
        b = Box("openlolo-ab12.local", store=TokenStore(os.path.join(tempfile.mkdtemp(), "boxes.json")))
        b._t = lambda: t  # type: ignore[method-assign]
        return b

    def entry(self) -> BoxEntry:
        return BoxEntry(url="https://openlolo-ab12.local", client_id="c", access_token="old", refresh_token="rt-0")

    def test_retries_once_after_a_lost_answer(self) -> None:
        t = LossyTransport([TransportError("connection reset"),
                            (200, {"access_token": "at-1", "refresh_token": "rt-1", "expires_in": 900})])
        got = self.box(t)._refresh(self.entry())
        self.assertEqual((got.access_token, got.refresh_token), ("at-1", "rt-1"))
        self.assertEqual([f["refresh_token"] for f in t.forms], ["rt-0", "rt-0"])

    def test_refused_refresh_is_not_retried(self) -> None:
        t = LossyTransport([(400, {"error": "invalid_grant", "error_description": "used refresh token"})])
        with self.assertRaises(GrantRevoked):
            self.box(t)._refresh(self.entry())
        self.assertEqual(len(t.forms), 1)

    def test_two_lost_answers_give_up(self) -> None:
        t = LossyTransport([TransportError("reset"), TransportError("reset again")])
        with self.assertRaises(TransportError):
            self.box(t)._refresh(self.entry())
        self.assertEqual(len(t.forms), 2)


if __name__ == "__main__":
    unittest.main()
