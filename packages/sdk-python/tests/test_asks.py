"""The ask answers (api/testdata/asks.json, written by the box's tests on
the simulated phone): pending raises AskPending with the ask, denied and
expired raise AskDenied and AskExpired, allowed is a plain result."""

from __future__ import annotations

import json
import os
import unittest
from typing import Any, Dict

import openlolo
from openlolo import api
from openlolo.client import decode_tool_result

from test_api import TESTDATA


def load() -> Dict[str, Any]:
    with open(os.path.join(TESTDATA, "asks.json"), encoding="utf-8") as f:
        doc: Dict[str, Any] = json.load(f)
    return doc


def tool_result(sc: Dict[str, Any], is_error: bool) -> Dict[str, Any]:
    return {"structuredContent": sc, "isError": is_error, "content": [{"type": "text", "text": "t"}]}


class AskAnswers(unittest.TestCase):
    def test_pending_raises_ask_pending(self) -> None:
        sc = load()["pending"]
        with self.assertRaises(openlolo.AskPending) as cm:
            decode_tool_result("openlolo_launch_app", tool_result(sc, False))
        e = cm.exception
        self.assertEqual(e.operation_id, sc["operation_id"])
        self.assertIsInstance(e.ask, api.Ask)
        self.assertEqual((e.ask_id, e.url, e.ask.state), (sc["ask"]["id"], sc["ask"]["url"], "pending"))
        self.assertTrue(e.url.endswith("/asks/" + e.ask_id))
        self.assertIn(e.operation_id, str(e))
        self.assertIn("Settings", e.what)
        self.assertIsNotNone(e.result)
        # Not a refusal: nothing failed, the owner has not decided yet.
        self.assertNotIsInstance(e, openlolo.Refused)

    def test_denied_and_expired_are_refusals(self) -> None:
        doc = load()
        for name, cls, code in (("denied", openlolo.AskDenied, "ASK_DENIED"), ("expired", openlolo.AskExpired, "ASK_EXPIRED")):
            with self.subTest(name=name):
                with self.assertRaises(cls) as cm:
                    decode_tool_result("openlolo_launch_app", tool_result(doc[name], True))
                self.assertEqual(cm.exception.code, code)
                self.assertFalse(cm.exception.dispatched)
                self.assertTrue(cm.exception.next_steps)

    def test_allowed_is_a_result(self) -> None:
        doc = load()
        for name in ("allowed", "allowed_again"):
            res = decode_tool_result("openlolo_launch_app", tool_result(doc[name], False))
            self.assertEqual(res.status, "ok")
            outcome, typed = api.parse_answer("openlolo_launch_app", res.structured, strict=True)
            self.assertEqual(outcome.status, "ok")
            self.assertIsNotNone(typed)

    def test_strict_reading_takes_the_ask(self) -> None:
        doc = load()
        # A pending answer has no result members: read it leniently.
        for name, strict in (("pending", False), ("denied", True), ("expired", True)):
            outcome, _ = api.parse_answer("openlolo_launch_app", doc[name], strict=strict)
            self.assertIsNotNone(outcome.ask, name)
            assert outcome.ask is not None
            self.assertEqual(outcome.ask.id, doc[name]["ask"]["id"])

    def test_ask_events_read(self) -> None:
        ev = api.decode(api.Event, {"kind": "ask", "time_ms": 5, "cursor": "c2", "event": "allowed", "ask_id": "a1",
                                    "operation_id": "op", "tool": "openlolo_open_url", "state": "allowed", "url": "https://b/asks/a1"})
        self.assertEqual(ev.body, api.AskEvent("allowed", "a1", "op", "openlolo_open_url", "allowed", "https://b/asks/a1"))


if __name__ == "__main__":
    unittest.main()
