"""Fleet without boxes: each box's calls are stubbed, so the fleet's own
decisions (which phone a call naming none goes to, the emergency stop on
every box) are tested with one box answering and one silent."""

import os
import shutil
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from openlolo import BoxEntry, Fleet, PhoneRequired, PhoneUnavailable, Result, TokenStore, TransportError  # noqa: E402


class FleetUnitTest(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.mkdtemp(prefix="openlolo-fleet-unit-")
        self.addCleanup(shutil.rmtree, tmp, True)
        store = TokenStore(os.path.join(tmp, "boxes.json"))
        for name in ("aa", "bb"):
            store.put(BoxEntry(url="https://%s.local" % name, name=name, access_token="t", expires_at=time.time() + 3600))
        self.fleet = Fleet(store=store)
        self.addCleanup(self.fleet.close)
        self.calls = []

    def answer(self, box: str, phones: list) -> None:
        """Box box answers: openlolo_phones lists phones, a pause pauses."""
        def call(name, args=None, timeout=None):
            self.calls.append((box, name, dict(args or {})))
            if name == "openlolo_phones":
                return Result({"status": "ok", "phones": [{"id": p, "name": p, "platform": "ios", "backend": "sim", "state": "ready",
                                                          "problems": [], "control": {}, "paused": False} for p in phones]})
            return Result({"status": "ok", "paused": True})
        b = self.fleet.boxes[box]
        b.call_tool = call
        b.mutate = lambda name, args=None: call(name, args)

    def silent(self, box: str) -> None:
        def fail(*a, **kw):
            raise TransportError("connection refused")
        b = self.fleet.boxes[box]
        b.call_tool = b.mutate = fail

    def test_no_phone_needs_every_box(self) -> None:
        self.answer("aa", ["sim-1"])
        self.silent("bb")
        with self.assertRaises(PhoneRequired) as cm:
            self.fleet.phone()
        self.assertIn("box bb did not answer", cm.exception.message)
        self.assertIn("aa/sim-1", cm.exception.next_steps[0])

        self.answer("bb", [])
        self.fleet.phones()
        self.assertEqual(self.fleet.phone().id, "aa/sim-1")

    def test_silent_box_listed_again_soon(self) -> None:
        now = [1_800_000_000.0]
        self.fleet._clock = lambda: now[0]
        self.answer("aa", ["sim-1"])
        self.silent("bb")
        with self.assertRaises(PhoneRequired):
            self.fleet.phone()
        self.answer("bb", [])  # bb is back on
        now[0] += 1
        with self.assertRaises(PhoneRequired):
            self.fleet.phone()  # the listing is still fresh
        now[0] += 5
        self.assertEqual(self.fleet.phone().id, "aa/sim-1")  # 6 s on: asked again

    def test_pause_every_box(self) -> None:
        self.answer("aa", ["sim-1"])
        self.silent("bb")
        aa, bb = self.fleet.pause()
        self.assertEqual((aa.id, aa.paused, aa.error), ("aa", True, None))
        self.assertEqual((bb.id, bb.paused), ("bb", False))
        self.assertIsInstance(bb.error, PhoneUnavailable)
        self.assertEqual(self.calls, [("aa", "openlolo_pause", {})])


if __name__ == "__main__":
    unittest.main()
