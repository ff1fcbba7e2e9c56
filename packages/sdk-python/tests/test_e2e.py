"""End to end against the real box: `openlolo serve` (the Go binary, on the
simulated iPhone), claimed and approved by an owner on its own box page.

The binary is $OPENLOLO_BIN, default bin/openlolo at the repository root
(`make build`). Without it these tests are skipped, saying so.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Any, Dict, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
sys.path.insert(0, PKG)

import boxproc  # noqa: E402
import openlolo  # noqa: E402
from openlolo import Box, TokenStore, api  # noqa: E402

PASSPHRASE = "correct horse battery staple"
# The simulated iPhone's home screen (hw/sim/layout.go, in points on a
# 393-point-wide screen): Notes is the first icon of the third row.
NOTES_X_PT, NOTES_Y_PT, SCREEN_PT = 393.0 / 8, 78.0 + 2 * 104.0 + 31.0, 393.0
NOTE_TOP_PT, NOTE_MARGIN_PT = 150.0, 20.0


def setUpModule() -> None:
    if not os.path.exists(boxproc.binary()):
        raise unittest.SkipTest("end-to-end tests need the box binary %s: run `make build` first, or set OPENLOLO_BIN" % boxproc.binary())


def dark_pixels(png: bytes, top_pt: float, bottom_pt: float) -> int:
    """How many near-black pixels (text) the screenshot has between two
    heights, inside the note margins."""
    w, h, rows = boxproc.decode_png(png)
    s = w / SCREEN_PT
    n = 0
    for y in range(int(top_pt * s), min(h, int(bottom_pt * s))):
        row = rows[y]
        for x in range(int(NOTE_MARGIN_PT * s), w - int(NOTE_MARGIN_PT * s)):
            r, g, b = row[3 * x], row[3 * x + 1], row[3 * x + 2]
            if r < 110 and g < 110 and b < 110:
                n += 1
    return n


def white_share(png: bytes) -> float:
    w, h, rows = boxproc.decode_png(png)
    total = white = 0
    for y in range(int(h * 0.55), int(h * 0.9), 3):
        row = rows[y]
        for x in range(0, w, 3):
            total += 1
            if row[3 * x] > 245 and row[3 * x + 1] > 245 and row[3 * x + 2] > 245:
                white += 1
    return white / total


class E2ETest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="openlolo-e2e-")
        self.state = os.path.join(self.tmp, "state")
        self.box = boxproc.BoxProcess(self.state)
        self.addCleanup(self._stop)
        self.owner = boxproc.Owner(self.box)
        self.owner.claim(self.box.setup_code, PASSPHRASE)
        self.store_path = os.path.join(self.tmp, "config", "openlolo", "boxes.json")
        self.store = TokenStore(self.store_path)

    def _stop(self) -> None:
        self.box.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def pair(self, name: str, pin: Optional[str] = None) -> Box:
        """Pair with the Python SDK while the owner approves on the Access page."""
        box: Box = boxproc.pair_with(self.box, self.owner, self.store, name, pin)
        return box

    def env(self, **extra: str) -> dict:
        env = dict(os.environ, OPENLOLO_STORE=self.store_path, XDG_CONFIG_HOME=os.path.join(self.tmp, "config"),
                   PYTHONPATH=PKG + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.update(extra)
        return env

    def go(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([boxproc.binary()] + list(args), env=self.env(), capture_output=True, text=True, timeout=timeout)

    def py_cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "openlolo"] + list(args), env=self.env(), capture_output=True, text=True, timeout=timeout)

    # ------------------------------------------------------------------

    def test_pair_screenshot_tap_notes_type_read_back(self) -> None:
        box = self.pair("e2e.py on ci")
        st = box.status()
        self.assertEqual(st.you.client_name, "e2e.py on ci")
        self.assertEqual(sorted(st.you.scopes), ["phone:control", "phone:read"])
        box.button("home", observe=False)
        home = box.screenshot(format="png", max_size=852)
        self.assertEqual(home.mime_type, "image/png")
        self.assertIsInstance(home.frame.epoch, str)
        self.assertLess(white_share(home.image), 0.2)  # the dark wallpaper
        w, h = home.frame.width, home.frame.height
        watch = box.watch(wait_ms=500, kinds=["frame"])
        watch.poll()  # from now on
        start = watch.cursor
        self.assertTrue(start)
        res = box.tap(home.frame, NOTES_X_PT / SCREEN_PT, NOTES_Y_PT / SCREEN_PT * w / h, settle=0.3)
        self.assertEqual(res.status, "ok")
        self.assertTrue(res.structured["dispatched"])
        notes = box.screenshot(format="png", max_size=852)
        self.assertGreater(white_share(notes.image), 0.95, "the Notes icon tap did not open Notes")
        events = []
        for _ in range(10):
            events += watch.poll()
            if events:
                break
        self.assertTrue(events, "no frame event after Notes opened")
        self.assertEqual({e.get("kind") for e in events}, {"frame"})
        self.assertNotEqual(watch.cursor, start)
        before = dark_pixels(notes.image, NOTE_TOP_PT, 600)
        box.type_text("hello from python", observe=False)
        after = box.screenshot(format="png", max_size=852)
        first = dark_pixels(after.image, NOTE_TOP_PT, NOTE_TOP_PT + 26)
        self.assertGreater(first, before + 50, "no typed text on the note's first line")
        box.type_text(" and a few more words to read back", observe=False)
        more = box.screenshot(format="png", max_size=852)
        self.assertGreater(dark_pixels(more.image, NOTE_TOP_PT, 600), first + 100)
        self.assertEqual(box.control("release").status, "ok")

    def test_readme_example_runs_as_written(self) -> None:
        with open(os.path.join(PKG, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
        self.assertLessEqual(len(code.strip().splitlines()), 10)
        work = os.path.join(self.tmp, "work")
        os.mkdir(work)
        with open(os.path.join(work, "example.py"), "w", encoding="utf-8") as f:
            f.write(code)
        p = subprocess.Popen([sys.executable, "example.py"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=self.env(OPENLOLO_BOX=self.box.url, OPENLOLO_PIN=self.box.fingerprint))
        try:
            err = boxproc.Lines(p.stderr)
            m = err.wait_for(r"Approve 'example\.py on .*' on the box page \(Access\)\. Code ([A-Z0-9]{4}-[A-Z0-9]{4})\.", 60)
            self.owner.approve(m.group(1))
            self.assertEqual(p.wait(90), 0, err.seen)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
            p.stderr.close()
        with open(os.path.join(work, "screen.jpg"), "rb") as f:
            self.assertEqual(f.read(3), b"\xff\xd8\xff")
        # What the example typed is on the note.
        box = Box(self.box.url, store=self.store)
        shot = box.screenshot(format="png", max_size=852)
        self.assertGreater(white_share(shot.image), 0.95)
        self.assertGreater(dark_pixels(shot.image, NOTE_TOP_PT, NOTE_TOP_PT + 26), 50)
        # The example gave control back (issue 22): the next client is not refused.
        self.assertFalse(box.status().control.held)

    def test_interop_with_go_cli_and_concurrent_refreshes(self) -> None:
        # Paired by the Go CLI ...
        p = subprocess.Popen([boxproc.binary(), "pair", "--yes", "--name", "go-cli on ci", self.box.url],
                             env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            err = boxproc.Lines(p.stderr)
            m = err.wait_for(r"Code ([A-Z0-9]{4}-[A-Z0-9]{4})\.", 60)
            self.owner.approve(m.group(1))
            self.assertEqual(p.wait(60), 0, err.seen)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
            p.stderr.close()
        go_entry = self.store.get(self.box.url)
        self.assertEqual(go_entry.fingerprint, self.box.fingerprint)
        # ... used and refreshed by the Python SDK ...
        py = Box(self.box.url, store=self.store)
        self.assertEqual(py.status().you.client_name, "go-cli on ci")
        refreshed = py.refresh()
        self.assertNotEqual(refreshed.refresh_token, go_entry.refresh_token)
        self.assertEqual(self.store.get(self.box.url).refresh_token, refreshed.refresh_token)
        # ... and by the Go CLI again (its token expired in the store).
        expire = os.path.join(self.tmp, "expire.py")
        with open(expire, "w") as f:
            f.write(
                "import sys\nfrom openlolo.store import TokenStore\n"
                "def f(e):\n    e.expires_at = 1.0\n    return e\n"
                "TokenStore(sys.argv[1]).update(sys.argv[2], f)\n"
            )
        subprocess.run([sys.executable, expire, self.store_path, self.box.url], env=self.env(), check=True)
        r = self.go("call", self.box.url, "openlolo_status")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"], "ok")
        after_go = self.store.get(self.box.url)
        self.assertNotEqual(after_go.refresh_token, refreshed.refresh_token)
        # Two processes of each, refreshing the one grant concurrently.
        py_loop = (
            "import sys\nfrom openlolo import Box, TokenStore\nfrom openlolo.store import TokenStore as T\n"
            "url, path = sys.argv[1], sys.argv[2]\n"
            "def f(e):\n    e.expires_at = 1.0\n    return e\n"
            "for i in range(4):\n"
            "    T(path).update(url, f)\n"
            "    assert Box(url, store=TokenStore(path)).call('openlolo_status')['status'] == 'ok'\n"
        )
        go_loop = 'for i in 1 2 3 4; do "$PY" "$EXPIRE" "$STORE" "$URL" && "$BIN" call "$URL" openlolo_status >/dev/null || exit 1; done'
        procs = [subprocess.Popen([sys.executable, "-c", py_loop, self.box.url, self.store_path], env=self.env(),
                                  stderr=subprocess.PIPE) for _ in range(2)]
        procs += [subprocess.Popen(["sh", "-c", go_loop], stderr=subprocess.PIPE,
                                   env=self.env(PY=sys.executable, EXPIRE=expire, STORE=self.store_path, URL=self.box.url, BIN=boxproc.binary()))
                  for _ in range(2)]
        for proc in procs:
            _, perr = proc.communicate(timeout=180)
            self.assertEqual(proc.returncode, 0, perr.decode(errors="replace"))
        # The grant survived, the store is valid, and both clients still work.
        with open(self.store_path, encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(list(doc["boxes"]), [self.box.url])
        self.assertEqual(py.call("openlolo_status")["status"], "ok")
        r = self.go("call", self.box.url, "openlolo_status")
        self.assertEqual(r.returncode, 0, r.stderr)
        img = os.path.join(self.tmp, "cli.jpg")
        r = self.py_cli("call", self.box.url, "openlolo_screenshot", "--out", img)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["image_file"], img)
        self.assertIn("go-cli on ci", self.owner.access_page())

    def test_python_cli_pairs_and_go_cli_uses_the_grant(self) -> None:
        p = subprocess.Popen([sys.executable, "-m", "openlolo", "pair", self.box.url, "--pin", self.box.spki, "--name", "sdk-cli on ci"],
                             env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            err = boxproc.Lines(p.stderr)
            m = err.wait_for(r"^Approve 'sdk-cli on ci' on the box page \(Access\)\. Code ([A-Z0-9]{4}-[A-Z0-9]{4})\.$", 60)
            self.owner.approve(m.group(1))
            out, _ = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 0, err.seen)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
            p.stderr.close()
        self.assertIn('Paired with %s as "sdk-cli on ci".' % self.box.url, out.decode())
        r = self.go("call", self.box.url, "openlolo_screenshot", "--out", os.path.join(self.tmp, "go.jpg"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["status"], "ok")
        r = self.go("call", self.box.url, "openlolo_key", "key=space", "modifiers=cmd")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.py_cli("call", self.box.url, "openlolo_button", "button=nope")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("refused: UNSUPPORTED_BUTTON", r.stderr)
        r2 = self.go("call", self.box.url, "openlolo_button", "button=nope")
        self.assertEqual(r2.returncode, 1, r2.stderr)
        self.assertEqual(r.stderr, r2.stderr)
        # Same output and the same usage errors as the Go command.
        for args in (["openlolo_apps", "query=note"], ["openlolo_tap", "bogus=1"], ["openlolo_tap", "x=left"], ["openlolo_nope"]):
            with self.subTest(args=args):
                go, py = self.go("call", self.box.url, *args), self.py_cli("call", self.box.url, *args)
                self.assertEqual(py.returncode, go.returncode, go.stderr + py.stderr)
                self.assertEqual(py.stdout, go.stdout)
                self.assertEqual(py.stderr.replace("openlolo-sdk call:", "openlolo call:"), go.stderr)

    def test_fingerprint_prints_what_the_go_command_prints(self) -> None:
        for args in (["--state", self.state], [self.box.url]):
            with self.subTest(args=args):
                go, py = self.go("fingerprint", *args), self.py_cli("fingerprint", *args)
                self.assertEqual((go.returncode, py.returncode), (0, 0), go.stderr + py.stderr)
                self.assertEqual(py.stdout, go.stdout)
                self.assertEqual(py.stderr, go.stderr)
                self.assertIn("Fingerprint:  " + self.box.fingerprint, py.stdout)
                self.assertIn("SPKI pin:     " + self.box.spki, py.stdout)

    def test_pin_mismatch_after_rotate_cert(self) -> None:
        box = self.pair("rotate.py on ci")
        self.assertEqual(box.call("openlolo_status")["status"], "ok")
        old = self.box.fingerprint
        port = self.box.port
        self.box.stop()
        self.box = boxproc.BoxProcess(self.state, port=port, rotate=True)
        self.assertEqual(self.box.port, port)
        self.assertNotEqual(self.box.fingerprint, old)
        with self.assertRaises(openlolo.PinMismatch) as cm:
            Box(self.box.url, store=self.store).status()
        self.assertEqual((cm.exception.want, cm.exception.got), (old, self.box.fingerprint))
        r = self.py_cli("call", self.box.url, "openlolo_status")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("pin mismatch", r.stderr)
        r = self.go("call", self.box.url, "openlolo_status")
        self.assertEqual(r.returncode, 3, r.stderr)

    def test_calls_share_one_tls_connection_and_reconnect_after_a_restart(self) -> None:
        box = self.pair("keepalive.py on ci")
        t = box._t()
        before = t.handshakes()
        for _ in range(10):
            self.assertEqual(box.call("openlolo_status")["status"], "ok")
        shot = box.screenshot(format="png", max_size=852)
        self.assertEqual(box.tap(shot.frame, 0.5, 0.95, observe=False).status, "ok")
        box.rpc("ping")
        self.assertEqual(t.handshakes(), before, "calls on a paired box opened new TLS connections")
        # The box restarts, closing the idle connection: the next call goes
        # on one new connection, and a tap after it runs once.
        port = self.box.port
        self.box.stop()
        self.box = boxproc.BoxProcess(self.state, port=port)
        self.assertEqual(box.call("openlolo_status")["status"], "ok")
        self.assertEqual(t.handshakes(), before + 1)
        shot = box.screenshot(format="png", max_size=852)
        res = box.tap(shot.frame, 0.5, 0.95, observe=False)
        self.assertEqual((res.status, res.structured.get("replayed")), ("ok", None))
        self.assertEqual(t.handshakes(), before + 1)
        box.close()

    def test_every_tool_answers_in_its_type_exactly(self) -> None:
        # Until the golden answers land, the real box's answers, read
        # strictly: no member missing or extra, each of its JSON type.
        box = self.pair("types.py on ci")
        seen: Dict[str, set] = {"ok": set(), "failed": set()}

        def check(res: openlolo.Result) -> Any:
            outcome, typed = api.parse_answer(res.tool, res.structured, strict=True)
            seen[outcome.status].add(res.tool)
            if outcome.status == "failed":
                self.assertIsNone(typed)
                self.assertIsNotNone(outcome.error)
            else:
                self.assertIsInstance(typed, api.RESULTS[res.tool])
            return typed

        def refused(fn: Any, *args: Any) -> openlolo.Refused:
            with self.assertRaises(openlolo.Refused) as cm:
                fn(*args)
            check(cm.exception.result)
            return cm.exception

        quick = {"observe": False, "settle": 0}
        check(box.call_tool("openlolo_status"))
        check(box.call_tool("openlolo_capabilities"))
        check(box.call_tool("openlolo_device_info"))
        phones = check(box.call_tool("openlolo_phones"))
        self.assertEqual(len(phones.phones), 1, "one sim, one phone")
        apps = check(box.call_tool("openlolo_apps", {"query": "notes"}))
        self.assertTrue(apps.apps)
        check(box.button("home", **quick))
        shot = box.screenshot(format="png", max_size=852)
        check(shot.result)
        tap = box.tap(shot.frame, 0.5, 0.95, observe=True, settle=0)
        self.assertIsNotNone(check(tap).observation)
        self.assertIsNotNone(tap.observation)
        frame = tap.observation.frame
        check(box.long_press(frame, 0.5, 0.95, **quick))
        check(box.swipe(frame, 0.5, 0.7, 0.5, 0.4, **quick))
        check(box.type_text("hi", **quick))
        check(box.key("escape", **quick))
        check(box.call_tool("openlolo_shortcut", {"shortcut": "home", **quick}))
        listed = check(box.call_tool("openlolo_elements", {"query": "notes"}))
        self.assertEqual([e.text for e in listed.elements], ["Notes"])
        found = check(box.call_tool("openlolo_find_text", {"query": "notes"}))
        self.assertTrue(found.matches, "find_text found no Notes label on the home screen")
        sent = check(box.call_tool("openlolo_send_text", {"text": "h\u00e9llo \u2713 \u65e5\u672c", **quick}))
        self.assertTrue(sent.clipboard_replaced)
        self.assertEqual(check(box.call_tool("openlolo_clipboard")).text, "h\u00e9llo \u2713 \u65e5\u672c")
        page = check(box.call_tool("openlolo_full_page", {"max_pages": 2, "max_size": 256, "settle": 0}))
        self.assertIsNotNone(page.current)
        check(box.launch_app(apps.apps[0].bundle_id, **quick))
        check(box.open_url("https://example.com", **quick))
        profiles = check(box.call_tool("openlolo_app_profiles", {"query": "maps"}))
        self.assertTrue(profiles.profiles, "no Maps profile")
        check(box.call_tool("openlolo_app_profile", {"bundle_id": profiles.profiles[0].bundle_id}))
        link = check(box.open_link("com.apple.Maps", "search", {"query": "tea & cake"}, **quick))
        self.assertEqual(link.url, "https://maps.apple.com/?q=tea%20%26%20cake")
        self.assertIn("search", [l.name for l in box.app_profile("com.apple.Maps").links])
        self.assertIn("com.apple.Maps", [p.bundle_id for p in box.app_profiles("maps")])
        check(box.control("acquire"))
        op = check(box.operation_status(tap.operation_id))
        self.assertEqual(op.operation.id, tap.operation_id)
        check(box.call_tool("openlolo_watch", {"wait_ms": 100}))
        check(box.cancel(tap.operation_id))
        check(box.pause())
        check(box.control("resume"))
        old = box.screenshot(format="png", max_size=852)
        box.button("home", **quick)
        box.screenshot(format="png", max_size=852)
        self.assertEqual(refused(box.tap, old.frame, 0.5, 0.5).code, "FRAME_EXPIRED")
        self.assertEqual(refused(box.button, "nope").code, "UNSUPPORTED_BUTTON")
        with self.assertRaises(openlolo.errors.LinkParams):
            box.call_tool("openlolo_open_link", {"bundle_id": "com.apple.Maps", "link": "search", "params": {}})
        self.assertEqual(sorted(seen["ok"]), sorted(api.RESULTS), "tools this test did not call")
        self.assertEqual(sorted(seen["failed"]), ["openlolo_button", "openlolo_tap"])
        box.control("release")

    def test_elements_walk(self) -> None:
        # Issue 25 from Python: find Notes by query, tap it by element,
        # type into the note's field by element, read the text back from
        # the field's element; a stale id is FRAME_EXPIRED.
        box = self.pair("elements.py on ci")
        box.button("home", observe=False)
        home = box.elements("Notes")
        self.assertEqual((home.source, [e.text for e in home.elements]), ("sim", ["Notes"]))
        box.tap_element(home, home.elements[0].id, settle=0)
        with self.assertRaises(openlolo.Refused) as cm:
            box.tap_element(home, home.elements[0].id)
        self.assertEqual(cm.exception.code, "FRAME_EXPIRED")
        fields = box.elements("note", clickable_only=True)
        self.assertEqual([e.role for e in fields.elements], ["text_field"])
        box.type_text("Buy milk", frame=fields, element=fields.elements[0].id, observe=False)
        typed = box.elements("milk")
        self.assertEqual([(e.role, e.text) for e in typed.elements], [("text_field", "Buy milk")])
        with self.assertRaises(ValueError):
            box.type_text("x", element="e1")

    def test_revoked_grant(self) -> None:
        box = self.pair("revoked.py on ci")
        self.assertEqual(box.call("openlolo_status")["status"], "ok")
        self.owner.revoke(box.entry.client_id)
        with self.assertRaises(openlolo.GrantRevoked):
            box.status()
        r = self.py_cli("call", self.box.url, "openlolo_status")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("pair again", r.stderr)

    def test_rate_limited_and_frame_expired(self) -> None:
        box = self.pair("limits.py on ci")
        box.button("home", observe=False)
        old = box.screenshot()
        w, h = old.frame.width, old.frame.height
        box.tap(old.frame, NOTES_X_PT / SCREEN_PT, NOTES_Y_PT / SCREEN_PT * w / h, settle=0.3, observe=False)
        new = box.screenshot()  # Notes is open: a new frame
        self.assertNotEqual(new.frame.id, old.frame.id)
        with self.assertRaises(openlolo.FrameExpired) as cm:
            box.tap(old.frame, 0.5, 0.5)
        self.assertEqual(cm.exception.code, "FRAME_EXPIRED")
        self.assertFalse(cm.exception.dispatched)
        self.assertTrue(cm.exception.next_steps)
        self.assertEqual(box.tap(new.frame, 0.5, 0.5, observe=False).status, "ok")
        limited = None
        for _ in range(130):
            try:
                box.call("openlolo_device_info")
            except openlolo.RateLimited as e:
                limited = e
                break
        self.assertIsNotNone(limited, "130 calls in a row were never rate-limited")
        self.assertEqual(limited.code, "RATE_LIMITED")
        self.assertGreater(limited.retry_after, 0)
        self.assertLessEqual(limited.retry_after, 60)
        self.assertTrue(limited.retryable)


if __name__ == "__main__":
    unittest.main()
