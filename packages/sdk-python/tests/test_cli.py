"""openlolo-sdk pair|call|fingerprint: output and exit statuses."""

import base64
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from typing import Any, Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fakebox  # noqa: E402
from openlolo import cli  # noqa: E402
from openlolo.pin import fingerprint_colon, fingerprint_hex, spki_pin  # noqa: E402


STORE = {"OPENLOLO_STORE": ""}


def run(argv: List[str], stdin: io.StringIO = None) -> Tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, out, err, stdin or io.StringIO(), dict(STORE))
    return code, out.getvalue(), err.getvalue()


class CLIBase(unittest.TestCase):
    """A fake box per test, and a token store in a temp folder."""

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

    def last_call(self, name: str) -> Dict[str, Any]:
        """The params of the last tools/call of name the fake box saw."""
        calls = [c["params"] for c in self.fb.mcp_calls if c.get("method") == "tools/call" and c["params"].get("name") == name]
        self.assertTrue(calls, "no %s call" % name)
        return calls[-1]

    def tool_names(self) -> List[str]:
        """The tools/call names the fake box saw, in order."""
        return [c["params"]["name"] for c in self.fb.mcp_calls if c.get("method") == "tools/call"]

    def pair(self) -> None:
        import openlolo.client as client

        orig = client.time.sleep
        client.time.sleep = lambda s: None  # the fake box approves at once
        try:
            code, out, err = run(["pair", self.srv.url, "--yes", "--name", "ci"])
        finally:
            client.time.sleep = orig
        self.assertEqual(code, 0, err)
        # The box's http:// link is shown on the pinned HTTPS entry (issue 22).
        self.assertIn("Approve 'ci' on the box page (Access). Code BCDF-GHJK.\nBox page: %s/access?r=h1\n" % self.srv.url, err)
        self.assertIn("  Fingerprint: " + fingerprint_colon(self.der), err)
        self.assertIn("Trusting it (--yes).", err)
        self.assertTrue(out.startswith('Paired with %s as "ci".\n' % self.srv.url), out)
        self.assertIn("  fingerprint: " + fingerprint_hex(self.der), out)
        self.assertIn("  stored in:   " + self.store, out)


class CLITest(CLIBase):
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
        sent = self.last_call("openlolo_key")  # a control release follows it
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
        args = self.last_call("openlolo_tap")["arguments"]
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


def _answer(sc: Dict[str, Any], images: int = 0, is_error: bool = False) -> Dict[str, Any]:
    content: List[Dict[str, Any]] = [{"type": "text", "text": json.dumps(sc)}]
    for _ in range(images):
        content.append({"type": "image", "data": base64.b64encode(fakebox.PNG_1x1).decode(), "mimeType": "image/png"})
    out: Dict[str, Any] = {"content": content, "structuredContent": sc}
    if is_error:
        out["isError"] = True
    return out


def _pending(args: Dict[str, Any]) -> Dict[str, Any]:
    return _answer({"status": "pending", "operation_id": args.get("operation_id"), "dispatched": False, "tool": "openlolo_key",
                    "ask": {"id": "a1", "url": "https://box/asks/a1", "what": "press a key", "state": "pending", "expires_ms": 1}})


class CallIssue22Test(CLIBase):
    """What a new script writer tripped over (issue 22)."""

    def test_call_gives_control_back(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a"])
        self.assertEqual(code, 0, err)
        self.assertEqual(self.tool_names()[-2:], ["openlolo_key", "openlolo_control"])
        self.assertEqual(self.last_call("openlolo_control")["arguments"]["command"], "release")

    def test_call_keep_control(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a", "--keep-control"])
        self.assertEqual(code, 0, err)
        self.assertNotIn("openlolo_control", self.tool_names())

    def test_call_reads_keep_nothing_to_give_back(self) -> None:
        self.pair()
        code, out, err = run(["call", self.srv.url, "openlolo_status"])
        self.assertEqual(code, 0, err)
        self.assertNotIn("openlolo_control", self.tool_names())

    def test_call_pending_exit_4(self) -> None:
        self.pair()
        self.fb.tool_answers["openlolo_key"] = _pending
        code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a"])
        self.assertEqual(code, cli.EXIT_PENDING, err)
        self.assertEqual(code, 4)
        self.assertEqual(json.loads(out)["status"], "pending")
        self.assertIn("pending: openlolo_key waits for the owner: they are asked to press a key at https://box/asks/a1", err)
        self.assertIn("--wait", err)

    def test_call_wait_retries_with_the_same_operation_id(self) -> None:
        self.pair()
        answers = [_pending, _pending, lambda a: _answer({"status": "ok", "operation_id": a.get("operation_id"), "dispatched": True})]
        self.fb.tool_answers["openlolo_key"] = lambda a: answers.pop(0)(a)
        code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a", "--wait"])
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["status"], "ok")
        self.assertEqual(err.count("Waiting for the owner: they are asked to press a key at https://box/asks/a1"), 1, err)
        keys = [c["params"]["arguments"] for c in self.fb.mcp_calls if c.get("params", {}).get("name") == "openlolo_key"]
        self.assertEqual(len(keys), 3)
        self.assertTrue(keys[0]["operation_id"])
        self.assertEqual({k["operation_id"] for k in keys}, {keys[0]["operation_id"]})
        watches = [c["params"]["arguments"] for c in self.fb.mcp_calls if c.get("params", {}).get("name") == "openlolo_watch"]
        self.assertEqual(watches[0], {"wait_ms": 1, "kinds": ["ask"]})  # the cursor, taken before the first send
        self.assertEqual(watches[1]["kinds"], ["ask"])
        self.assertEqual(watches[1]["cursor"], "c0")
        self.assertEqual(self.tool_names()[-1], "openlolo_control")

    def test_call_every_page_to_out(self) -> None:
        self.pair()
        self.fb.tool_answers["openlolo_screenshot"] = lambda a: _answer({"status": "ok", "page_count": 3}, images=4)
        base = os.path.join(self.tmp, "page.png")
        code, out, err = run(["call", self.srv.url, "openlolo_screenshot", "--out", base])
        self.assertEqual(code, 0, err)
        want = [os.path.join(self.tmp, "page-%d.png" % i) for i in range(1, 5)]
        self.assertEqual(json.loads(out)["image_files"], want)
        for p in want:
            with open(p, "rb") as f:
                self.assertEqual(f.read(), fakebox.PNG_1x1)
            self.assertIn("image written to " + p, err)

    def test_call_observation_not_saved_without_out(self) -> None:
        self.pair()
        self.fb.tool_answers["openlolo_key"] = lambda a: _answer(
            {"status": "ok", "operation_id": a.get("operation_id"), "dispatched": True, "observation": {"frame_id": "f-9"}}, images=1)
        tmp = os.path.join(self.tmp, "tmp")
        os.mkdir(tmp)
        orig = tempfile.tempdir
        tempfile.tempdir = tmp
        try:
            code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a"])
        finally:
            tempfile.tempdir = orig
        self.assertEqual(code, 0, err)
        self.assertNotIn("image_file", json.loads(out))
        self.assertEqual(os.listdir(tmp), [])
        obs = os.path.join(self.tmp, "after.png")
        code, out, err = run(["call", self.srv.url, "openlolo_key", "key=a", "--out", obs])
        self.assertEqual((code, json.loads(out)["image_file"]), (0, obs), err)

    def test_image_path(self) -> None:
        for args, want in [
            (("shot.jpg", 0, 1, "image/jpeg"), "shot.jpg"),
            (("page.jpg", 5, 6, "image/jpeg"), "page-6.jpg"),
            (("out.d/page", 1, 3, "image/png"), "out.d/page-2.png"),
            (("", 0, 3, "image/png"), ""),
        ]:
            self.assertEqual(cli.image_path(*args), want, args)

    def test_on_entry(self) -> None:
        from openlolo.client import on_entry

        for box, link, want in [
            ("https://openlolo-1a2b.local", "http://openlolo-1a2b.local/access?r=AbC", "https://openlolo-1a2b.local/access?r=AbC"),
            ("https://127.0.0.1:8443", "http://127.0.0.1:8080/access?r=x%2By", "https://127.0.0.1:8443/access?r=x%2By"),
            ("https://b.tail.ts.net", "https://b.tail.ts.net/access?r=q", "https://b.tail.ts.net/access?r=q"),
            ("https://openlolo-1a2b.local", "", ""),
        ]:
            self.assertEqual(on_entry(box, link), want, link)
