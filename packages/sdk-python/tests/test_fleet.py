"""Fleet against two real boxes: `openlolo serve --sims 2` twice, each
claimed by its owner, one token store paired with both; then one box is
stopped while the other keeps answering.

The binary is $OPENLOLO_BIN, default bin/openlolo (`make build`); without
it these tests are skipped, saying so.
"""

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import boxproc  # noqa: E402
from openlolo import Fleet, PhoneRequired, PhoneUnavailable, TokenStore  # noqa: E402

PASSPHRASE = "correct horse battery staple"


def setUpModule() -> None:
    if not os.path.exists(boxproc.binary()):
        raise unittest.SkipTest("fleet tests need the box binary %s: run `make build` first, or set OPENLOLO_BIN" % boxproc.binary())


class FleetTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="openlolo-fleet-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.store = TokenStore(os.path.join(self.tmp, "boxes.json"))
        self.boxes = {}
        for name in ("openlolo-pa01", "openlolo-pb02"):
            box = boxproc.BoxProcess(os.path.join(self.tmp, name), name=name, sims=2)
            self.addCleanup(box.stop)
            owner = boxproc.Owner(box)
            owner.claim(box.setup_code, PASSPHRASE)
            boxproc.pair_with(box, owner, self.store, "fleet.py on ci")
            self.boxes[name] = box

    def test_phones_routes_and_a_stopped_box(self) -> None:
        with Fleet(store=self.store) as fleet:
            listed = fleet.phones()
            ids = [p.id for p in listed.phones]
            self.assertEqual(ids, ["openlolo-pa01/sim-1", "openlolo-pa01/sim-2", "openlolo-pb02/sim-1", "openlolo-pb02/sim-2"])
            with self.assertRaises(PhoneRequired) as cm:
                fleet.phone()
            self.assertIn(", ".join(ids), cm.exception.next_steps[0])
            with self.assertRaises(PhoneRequired):
                fleet.phone("sim-1")

            a, b = fleet.phone("openlolo-pa01/sim-2"), fleet.phone("openlolo-pb02/sim-1")
            self.assertIn("frame_id", a.call("screenshot", max_size=256))
            self.assertIn("frame_id", b.call("screenshot", max_size=256))

            self.boxes["openlolo-pb02"].stop()
            with self.assertRaises(PhoneUnavailable) as cm2:
                b.call("key", key="home")
            self.assertFalse(cm2.exception.dispatched)
            self.assertIn("openlolo-pb02", cm2.exception.message)
            self.assertTrue(cm2.exception.next_steps)
            self.assertEqual(a.call("status")["status"], "ok")
            after = fleet.phones()
            self.assertEqual([p.id for p in after.phones], ["openlolo-pa01/sim-1", "openlolo-pa01/sim-2"])
            gone = [s for s in after.boxes if not s.reachable]
            self.assertEqual([s.id for s in gone], ["openlolo-pb02"])
            self.assertIsInstance(gone[0].error, PhoneUnavailable)

    def test_empty_store_says_how_to_pair(self) -> None:
        with self.assertRaisesRegex(Exception, "openlolo pair"):
            Fleet(store=TokenStore(os.path.join(self.tmp, "none.json")))


if __name__ == "__main__":
    unittest.main()
