"""openlolo-sdk pair|call|fingerprint: output and exit statuses."""

import io
import json
import os
import shutil
import sys
import unittest
from typing import List, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fakebox  # noqa: E402
from openlolo import cli  # noqa: E402
from openlolo.pin import fingerprint_colon, fingerprint_hex, spki_pin  # noqa: E402


STORE = {"OPENLOLO_STORE": ""}


def run(argv: List[str], stdin: io.StringIO = None) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, out, err, stdin or io.StringIO(), dict(STORE))
    return code, out.getvalue(), err.getvalue()


class CLITest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = fakebox.new_tempdir()
        cls.cert, cls.key = fakebox.make_cert(cls.dir, "openlolo-ab12")
        cls.der = fakebox.cert_der(cls.cert)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self) -> None:
        self.srv = fakebox.Running(self.cert, self.key)
        self.fb = self.srv.fb
        self.fb.pending_polls = 0
        self.tmp = fakebox.new_tempdir()
        self.store = os.path.join(self.tmp, "boxes.json")
        STORE["OPENLOLO_STORE"] = self.store

    def tearDown(self) -> None:
        self.srv.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def pair(self) -> None:
        import openlolo.client as client

        orig = client.time.sleep
        client.time.sleep = lambda s: None  # the fake box approves at once
        try:
            code, out, err = run(["pair", self.srv.url, "--yes", "--name", "ci"])
        finally:
            client.time.sleep = orig
        self.assertEqual(code, 0, err)
        self.assertIn("Approve 'ci' on the box page (Access). Code BCDF-GHJK.\nBox page: http://box/access?r=h1\n", err)
        self.assertIn("  Fingerprint: " + fingerprint_colon(self.der), err)
        self.assertIn("Trusting it (--yes).", err)
        self.assertTrue(out.startswith('Paired with %s as "ci".\n' % self.srv.url), out)
        self.assertIn("  fingerprint: " + fingerprint_hex(self.der), out)
        self.assertIn("  stored in:   " + self.store, out)

    def test_pair_asks_and_stops_on_no(self) -> None:
        for answer in ["n\n", "", "yes please\n"]:
            with self.subTest(answer=answer):
                code, out, err = run(["pair", self.srv.url], io.StringIO(answer))
                self.assertEqual(code, 3)
                self.assertIn("Trust this box? [y/N] ", err)
                self.assertIn("not confirmed", err)
        self.assertEqual(self.fb.requests, [])

    def test_pair_pin_mismatch_exit_3(self) -> None:
        code, out, err = run(["pair", "--pin", "ab" * 32, self.srv.url])
        self.assertEqual(code, 3)
        self.assertIn("certificate pin mismatch", err)
        self.assertEqual(self.fb.requests, [])

    def test_usage_errors(self) -> None:
        cases = [
            [],
            ["frobnicate"],
            ["pair"],
            ["pair", "--bogus", self.srv.url],
            ["pair", "--name"],
            ["pair", "a.local", "b.local"],
            ["pair", "http://plain.local"],
            ["call", "box.local"],
            ["fingerprint"],
            ["fingerprint", "--state", self.tmp, self.srv.url],
            ["fingerprint", "ftp://x"],
        ]
        for argv in cases:
            with self.subTest(argv=argv):
                code, _, err = run(argv)
                self.assertEqual(code, 2, err)
                self.assertTrue(err.strip())

    def test_call_types_arguments_by_schema(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a", "modifiers=cmd, shift"])
        self.assertEqual(code, 0, err)
        sent = self.fb.mcp_calls[-1]["params"]
        self.assertEqual(sent["name"], "openlolo_key")
        self.assertEqual(sent["arguments"]["modifiers"], ["cmd", "shift"])
        self.assertEqual(json.loads(out)["status"], "ok")

    def test_call_screenshot_then_tap(self) -> None:
        self.pair()
        img = os.path.join(self.tmp, "shot.png")
        code, out, err = run(["call", self.srv.url, "openlolo_screenshot", "--out", img, "max_size=256"])
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["image_file"], img)
        with open(img, "rb") as f:
            self.assertEqual(f.read(), fakebox.PNG_1x1)
        self.assertEqual(self.fb.mcp_calls[-1]["params"]["arguments"], {"max_size": 256})
        code, out, err = run(["call", self.srv.url, "openlolo_tap",
                              "frame_id=" + doc["frame_id"], "geometry_epoch=" + doc["geometry_epoch"], "x=0.5", "y=0.25", "observe=false"])
        self.assertEqual(code, 0, err)
        args = self.fb.mcp_calls[-1]["params"]["arguments"]
        self.assertEqual((args["geometry_epoch"], args["x"], args["y"], args["observe"]), ("7", 0.5, 0.25, False))

    def test_call_text(self) -> None:
        self.pair()
        code, out, err = run(["call", "--text", self.srv.url, "openlolo_status"])
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out), {"echo": {}, "status": "ok"})  # the fake's text block is its JSON
        self.assertEqual(self.fb.mcp_calls[-1]["params"]["name"], "openlolo_status")

    def test_call_default_image_file(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_screenshot"])
        self.assertEqual(code, 0, err)
        path = json.loads(out)["image_file"]
        self.addCleanup(os.remove, path)
        self.assertIn(path, err)
        self.assertTrue(os.path.basename(path).startswith("openlolo-screenshot-"))
        self.assertIn("image written to " + path, err)

    def test_call_unwritable_image_exit_3(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_screenshot", "--out", os.path.join(self.tmp, "no", "dir.png")])
        self.assertEqual(code, 3)
        self.assertIn("write screenshot", err)
        self.assertEqual(out, "")

    def test_call_refused_exit_1(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_tap",
                              "frame_id=f-0", "geometry_epoch=7", "x=0.5", "y=0.5"])
        self.assertEqual(code, 1)
        self.assertEqual(err, "refused: FRAME_EXPIRED: That screenshot is no longer current.\n  next: do FRAME_EXPIRED\n")
        self.assertEqual(json.loads(out)["error"]["code"], "FRAME_EXPIRED")

    def test_call_bad_arguments_exit_2(self) -> None:
        self.pair()
        cases = [
            (["openlolo_tap", "x=left"], 'x="left": want a number'),
            (["openlolo_tap", "bogus=1"], 'has no argument "bogus"'),
            (["openlolo_tap", "x"], "not key=value"),
            (["openlolo_tap", "observe=maybe"], "want true or false"),
            (["openlolo_screenshot", "max_size=1.5"], "want a whole number"),
            (["openlolo_no_such_tool"], 'offers no tool "openlolo_no_such_tool"'),
        ]
        for extra, msg in cases:
            with self.subTest(extra=extra):
                code, _, err = run(["call", self.srv.url] + extra)
                self.assertEqual(code, 2, err)
                self.assertIn(msg, err)

    def test_call_unpaired_and_revoked_exit_3(self) -> None:
        code, _, err = run(["call", self.srv.url, "openlolo_status"])
        self.assertEqual(code, 3)
        self.assertIn("not paired", err)
        self.pair()
        self.fb.revoke_all()
        code, _, err = run(["call", self.srv.url, "openlolo_status"])
        self.assertEqual(code, 3)
        self.assertIn("pair again", err)

    def test_fingerprint_of_box_and_state(self) -> None:
        code, out, err = run(["fingerprint", self.srv.url])
        self.assertEqual(code, 0, err)
        self.assertEqual(out.splitlines()[:3], [
            "Fingerprint:  " + fingerprint_hex(self.der),
            "Colon form:   " + fingerprint_colon(self.der),
            "SPKI pin:     " + spki_pin(self.der),
        ])
        self.assertIn("Names:        openlolo-ab12.local openlolo-ab12 localhost 127.0.0.1 ::1", out)
        self.assertIn("Trust them only if they match", err)
        state = os.path.join(self.tmp, "state")
        os.mkdir(state)
        code, _, err = run(["fingerprint", "--state", state])
        self.assertEqual(code, 1)
        self.assertIn("start the box once", err)
        with open(os.path.join(state, "lan-cert.pem"), "w") as f:
            f.write("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        code, _, err = run(["fingerprint", "--state", state])
        self.assertEqual(code, 1)
        self.assertIn("lan-cert.pem", err)
        shutil.copy(self.cert, os.path.join(state, "lan-cert.pem"))
        code, out2, err = run(["fingerprint", "--state", state])
        self.assertEqual(code, 0, err)
        self.assertEqual(out2, out)

    def test_fingerprint_unreachable_exit_1(self) -> None:
        self.srv.close()
        code, _, err = run(["fingerprint", self.srv.url])
        self.assertEqual(code, 1)
        self.assertIn("reach", err)
        self.srv = fakebox.Running(self.cert, self.key)


if __name__ == "__main__":
    unittest.main()
