"""Box against the fake box over real HTTPS: pairing, pinning on every
connection, refresh under the shared lock, error mapping, retries with the
same operation_id, run grouping and watch."""

import multiprocessing
import os
import shutil
import sys
import unittest
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fakebox  # noqa: E402
import openlolo  # noqa: E402
from openlolo import Box, TokenStore  # noqa: E402
from openlolo.pin import fingerprint_hex, spki_pin  # noqa: E402


def _refresh_in_child(url: str, store_path: str, n: int, q: Any) -> None:
    try:
        box = Box(url, store=TokenStore(store_path))
        for _ in range(n):
            box._access_token(True)  # forced refresh, as after a 401
            box.status()
        q.put("ok")
    except Exception as e:  # reported to the parent
        q.put("%s: %s" % (type(e).__name__, e))


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = fakebox.new_tempdir()
        cls.cert, cls.key = fakebox.make_cert(cls.dir, "openlolo-ab12")
        cls.other_cert, _ = fakebox.make_cert(cls.dir, "openlolo-evil")
        cls.der = fakebox.cert_der(cls.cert)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self) -> None:
        self.srv = fakebox.Running(self.cert, self.key)
        self.fb = self.srv.fb
        self.store = TokenStore(os.path.join(fakebox.new_tempdir(), "boxes.json"))
        self.sleeps: List[float] = []
        self.prompts: List[tuple] = []

    def tearDown(self) -> None:
        self.srv.close()
        shutil.rmtree(os.path.dirname(self.store.path), ignore_errors=True)

    def paired_box(self, **kw: Any) -> Box:
        box = Box(self.srv.url, store=self.store)
        box.pair(sleep=self.sleeps.append, prompt=lambda *a: self.prompts.append(a), client_name="nightly.py on mac-mini", **kw)
        return box

    # --- pairing ---

    def test_pair_trust_on_first_use(self) -> None:
        seen: List[str] = []
        box = self.paired_box(confirm=lambda fp, spki, der: seen.append(fp) or True)
        self.assertEqual(seen, [fingerprint_hex(self.der)])
        self.assertEqual(self.prompts, [("Approve 'nightly.py on mac-mini' on the box page (Access). Code BCDF-GHJK.",
                                         "BCDF-GHJK", self.srv.url + "/access?r=h1")])  # on the pinned entry
        e = self.store.get(self.srv.url)
        self.assertEqual((e.fingerprint, e.pin, e.name, e.entry), (fingerprint_hex(self.der), spki_pin(self.der), "openlolo-ab12", "lan"))
        self.assertEqual(e.scope, "phone:read phone:control")
        self.assertEqual(self.sleeps, [2.0, 2.0])  # interval from the box; one pending answer
        self.assertEqual(box.call("openlolo_status")["status"], "ok")

    def test_pair_refused_certificate(self) -> None:
        box = Box(self.srv.url, store=self.store)
        with self.assertRaises(openlolo.OpenloloError) as cm:
            box.pair(confirm=lambda *a: False, sleep=self.sleeps.append)
        self.assertIn("not confirmed", str(cm.exception))
        self.assertEqual(self.fb.requests, [])
        self.assertFalse(box.paired)

    def test_pair_with_pins(self) -> None:
        for p in [fingerprint_hex(self.der), spki_pin(self.der)]:
            with self.subTest(pin=p):
                box = self.paired_box(pin=p)
                self.assertTrue(box.paired)

    def test_pair_pin_mismatch_sends_nothing(self) -> None:
        box = Box(self.srv.url, store=self.store)
        wrong = spki_pin(fakebox.cert_der(self.other_cert))
        with self.assertRaises(openlolo.PinMismatch) as cm:
            box.pair(pin=wrong, sleep=self.sleeps.append)
        self.assertEqual(cm.exception.want, wrong)
        self.assertEqual(cm.exception.got, fingerprint_hex(self.der))
        self.assertEqual(self.fb.requests, [])

    def test_pair_slow_down_grows_interval(self) -> None:
        self.fb.slow_down_polls = 2
        self.fb.pending_polls = 1
        self.paired_box()
        self.assertEqual(self.sleeps, [2.0, 7.0, 12.0, 12.0])

    def test_pair_denied_and_expired(self) -> None:
        for decision, exc in [("deny", openlolo.AccessDenied), ("expire", openlolo.ExpiredToken)]:
            with self.subTest(decision=decision):
                self.fb.device_decision = decision
                with self.assertRaises(exc):
                    self.paired_box()
                self.assertFalse(Box(self.srv.url, store=self.store).paired)

    def test_pair_too_many_requests(self) -> None:
        self.fb.device_status = 429
        with self.assertRaises(openlolo.SlowDown) as cm:
            self.paired_box()
        self.assertIn("approve or deny them on the box page", str(cm.exception))

    def test_pair_again_reuses_client_id(self) -> None:
        self.paired_box()
        first = self.store.get(self.srv.url).client_id
        self.paired_box()
        self.assertEqual(self.fb.device_requests[1].get("client_id"), first)
        self.assertEqual(self.store.get(self.srv.url).client_id, first)

    def test_pair_box_too_old_or_not_a_box(self) -> None:
        self.fb.metadata_grants = ["authorization_code"]
        with self.assertRaises(openlolo.ProtocolError) as cm:
            self.paired_box()
        self.assertIn("too old for scripts", str(cm.exception))
        self.fb.raw["/.well-known/oauth-authorization-server"] = (404, "text/plain", b"no")
        with self.assertRaises(openlolo.ProtocolError) as cm:
            self.paired_box()
        self.assertIn("is this an openlolo box?", str(cm.exception))
        self.fb.raw["/.well-known/oauth-authorization-server"] = (200, "application/json", b"<html>")
        with self.assertRaises(openlolo.ProtocolError) as cm:
            self.paired_box()
        self.assertIn("not JSON", str(cm.exception))

    def test_pair_odd_device_answers(self) -> None:
        from openlolo.oauth import OAuthError

        self.fb.raw["/oauth/device_authorization"] = (500, "text/plain", b"boom")
        with self.assertRaises(OAuthError) as cm:
            self.paired_box()
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.description), (500, "http_500", "boom"))
        self.fb.raw["/oauth/device_authorization"] = (400, "application/json", b'{"error":"invalid_scope","error_description":"owner:admin is not for scripts"}')
        with self.assertRaises(OAuthError) as cm:
            self.paired_box(scopes=["owner:admin"])
        self.assertIn("invalid_scope: owner:admin is not for scripts", str(cm.exception))

    def test_pair_default_prompt_goes_to_stderr(self) -> None:
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            Box(self.srv.url, store=self.store).pair(client_name="x", sleep=self.sleeps.append)
        self.assertEqual(err.getvalue(), "Approve 'x' on the box page (Access). Code BCDF-GHJK.\nBox page: %s/access?r=h1\n" % self.srv.url)

    # --- pinning on every connection ---

    def test_stored_pin_checked_on_every_connection(self) -> None:
        self.paired_box()
        e = self.store.get(self.srv.url)
        e.fingerprint = fingerprint_hex(fakebox.cert_der(self.other_cert))
        self.store.put(e)
        n = len(self.fb.requests)
        with self.assertRaises(openlolo.PinMismatch):
            Box(self.srv.url, store=self.store).status()
        self.assertEqual(len(self.fb.requests), n)  # nothing reached the box
        e.fingerprint, e.pin = "", spki_pin(self.der)  # an SPKI pin alone works too
        self.store.put(e)
        self.assertEqual(Box(self.srv.url, store=self.store).call("openlolo_status")["status"], "ok")

    def test_unpaired(self) -> None:
        with self.assertRaises(openlolo.NotPaired):
            Box(self.srv.url, store=self.store).status()

    # --- tokens ---

    def test_expired_token_refreshed_and_stored_before_use(self) -> None:
        box = self.paired_box()
        old = self.store.get(self.srv.url)
        clock = [old.expires_at]  # the token is past its margin
        box2 = Box(self.srv.url, store=self.store, clock=lambda: clock[0])
        box2.status()
        new = self.store.get(self.srv.url)
        self.assertNotEqual(new.access_token, old.access_token)
        self.assertNotEqual(new.refresh_token, old.refresh_token)
        self.assertEqual(self.fb.refreshes, 1)
        auth_used = self.fb.grants[new.client_id].access
        self.assertIn(new.access_token, auth_used)
        box.status()  # the first Box meets a 401 with its old token, then takes the stored one
        self.assertEqual(self.fb.refreshes, 1)

    def test_401_refreshes_once_then_grant_revoked(self) -> None:
        box = self.paired_box()
        g = self.fb.grants[self.store.get(self.srv.url).client_id]
        g.access = {}  # the box forgot the access token: one refresh fixes it
        self.assertEqual(box.call("openlolo_status")["status"], "ok")
        self.assertEqual(self.fb.refreshes, 1)
        self.fb.revoke_all()
        with self.assertRaises(openlolo.GrantRevoked):
            box.status()

    def test_refresh_errors(self) -> None:
        box = self.paired_box()
        e = self.store.get(self.srv.url)
        e.refresh_token = ""
        self.store.put(e)
        with self.assertRaises(openlolo.GrantRevoked):
            Box(self.srv.url, store=self.store).refresh()
        # An older Box takes the pair stored by the new pairing instead of refreshing.
        fresh = self.paired_box().entry
        self.assertEqual(box.refresh().access_token, fresh.access_token)
        self.fb.raw["/token"] = (401, "application/json", b'{"error":"invalid_client"}')
        with self.assertRaises(openlolo.GrantRevoked):
            Box(self.srv.url, store=self.store).refresh()
        self.fb.raw["/token"] = (200, "application/json", b"[]")
        with self.assertRaises(openlolo.ProtocolError):
            Box(self.srv.url, store=self.store).refresh()
        self.assertEqual(self.store.get(self.srv.url).refresh_token, fresh.refresh_token)  # nothing stored

    def test_wrong_entry(self) -> None:
        box = self.paired_box()
        self.fb.wrong_entry = True
        with self.assertRaises(openlolo.WrongEntry):
            box.status()
        clock = [1e12]
        with self.assertRaises(openlolo.WrongEntry) as cm:
            Box(self.srv.url, store=self.store, clock=lambda: clock[0]).status()  # refresh answers invalid_grant
        self.assertIn("another entry", str(cm.exception))

    def test_concurrent_refreshes_keep_the_grant(self) -> None:
        self.paired_box()
        self.fb.refresh_delay = 0.05
        ctx = multiprocessing.get_context("fork")
        q = ctx.Queue()
        procs = [ctx.Process(target=_refresh_in_child, args=(self.srv.url, self.store.path, 5, q)) for _ in range(4)]
        for p in procs:
            p.start()
        results = [q.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(10)
        self.assertEqual(results, ["ok"] * 4)
        g = self.fb.grants[self.store.get(self.srv.url).client_id]
        self.assertFalse(g.revoked)
        # A process that waited for the lock takes the tokens another one just
        # stored instead of refreshing again, so there are at most 20.
        self.assertGreaterEqual(self.fb.refreshes, 1)
        self.assertLessEqual(self.fb.refreshes, 20)
        self.assertEqual(Box(self.srv.url, store=self.store).call("openlolo_status")["status"], "ok")

    # --- tools ---

    def test_screenshot_and_tap_echo_frame(self) -> None:
        box = self.paired_box()
        shot = box.screenshot(format="png")
        self.assertEqual(shot.image, fakebox.PNG_1x1)
        self.assertEqual((shot.mime_type, shot.native_width, shot.native_height, shot.age_ms), ("image/png", 1179, 2556, 3))
        self.assertEqual(shot.frame.epoch, "7")  # a string, echoed unchanged
        res = box.tap(shot.frame, 0.25, 0.75)
        self.assertEqual(res.status, "ok")
        call = self.fb.mcp_calls[-1]["params"]["arguments"]
        self.assertEqual((call["frame_id"], call["geometry_epoch"], call["x"], call["y"]), (shot.frame.id, "7", 0.25, 0.75))
        self.assertEqual(len(call["operation_id"]), 36)

    def test_frame_expired(self) -> None:
        box = self.paired_box()
        old = box.screenshot()
        box.screenshot()
        with self.assertRaises(openlolo.FrameExpired) as cm:
            box.tap(old.frame, 0.5, 0.5)
        e = cm.exception
        self.assertEqual((e.code, e.dispatched, e.retryable, e.tool), ("FRAME_EXPIRED", False, True, "openlolo_tap"))
        self.assertEqual(e.next_steps, ["do FRAME_EXPIRED"])
        self.assertIsInstance(e, openlolo.Refused)

    def test_refused_codes_map_to_classes(self) -> None:
        box = self.paired_box()
        cases = {
            "RATE_LIMITED": openlolo.RateLimited, "CONTROL_BUSY": openlolo.ControlBusy,
            "CONTROL_REQUIRED": openlolo.ControlRequired, "PAUSED": openlolo.Paused,
            "OPERATION_CONFLICT": openlolo.OperationConflict, "UNSUPPORTED_KEY": openlolo.UnsupportedKey,
            "GRANT_REVOKED": openlolo.GrantRevoked, "SOMETHING_NEW": openlolo.Refused,
        }
        for code, cls in cases.items():
            with self.subTest(code=code):
                self.fb.tool_answers["openlolo_key"] = lambda a, code=code: {
                    "content": [{"type": "text", "text": "no"}], "isError": True,
                    "structuredContent": {"status": "failed", "dispatched": False, "operation_id": a["operation_id"],
                                          "error": {"code": code, "message": "m", "retryable": True,
                                                    "next_steps": [], "retry_after_ms": 1500}}}
                with self.assertRaises(cls) as cm:
                    box.key("a")
                self.assertEqual(cm.exception.code, code)
                self.assertEqual(cm.exception.retry_after, 1.5)
                self.assertEqual(cm.exception.result.operation_id, self.fb.mcp_calls[-1]["params"]["arguments"]["operation_id"])

    def test_protocol_errors(self) -> None:
        box = self.paired_box()
        self.fb.tool_answers["openlolo_status"] = lambda a: {"content": [{"type": "text", "text": "bad call"}], "isError": True}
        with self.assertRaises(openlolo.ProtocolError) as cm:
            box.status()
        self.assertIn("bad call", str(cm.exception))
        with self.assertRaises(openlolo.ProtocolError) as cm:
            box.rpc("no/such")
        self.assertEqual(cm.exception.code, -32601)
        self.fb.tool_answers["openlolo_screenshot"] = lambda a: {"content": [{"type": "image", "data": "!!", "mimeType": "image/png"}],
                                                                  "structuredContent": {"status": "ok", "frame_id": "f"}}
        with self.assertRaises(openlolo.ProtocolError):
            box.screenshot()
        self.fb.tool_answers["openlolo_screenshot"] = lambda a: {"content": [], "structuredContent": {"status": "ok", "frame_id": "f"}}
        with self.assertRaises(openlolo.ProtocolError) as cm:
            box.screenshot()
        self.assertIn("without an image", str(cm.exception))

    def test_http_answers_from_mcp(self) -> None:
        box = self.paired_box()
        self.fb.sse = True
        self.assertEqual(box.call("openlolo_status")["status"], "ok")  # the last data: line of a stream
        self.fb.sse = False
        self.fb.raw["/mcp"] = (413, "text/plain", b"Request bodies are limited to 64 KiB.")
        with self.assertRaises(openlolo.ProtocolError) as cm:
            box.status()
        self.assertIn("HTTP 413", str(cm.exception))
        self.fb.raw["/mcp"] = (200, "application/json", b"not json")
        with self.assertRaises(openlolo.ProtocolError):
            box.status()
        self.fb.raw["/mcp"] = (200, "application/json", b'{"jsonrpc":"2.0","id":1,"result":"text"}')
        with self.assertRaises(openlolo.ProtocolError):
            box.status()
        self.fb.raw["/mcp"] = (202, "application/json", b"")
        self.assertIsNone(box.rpc("notifications/initialized"))

    def test_failed_operation_record(self) -> None:
        box = self.paired_box()
        cases = [
            ({"state": "failed", "code": "INPUT_FAILED", "answer": {"status": "failed", "dispatched": True,
              "error": {"code": "INPUT_FAILED", "message": "the phone did not take it"}}}, openlolo.InputFailed, True),
            ({"state": "cancelled", "code": "CANCELLED"}, openlolo.Cancelled, False),
            ({"state": "failed", "code": ""}, openlolo.Internal, True),
        ]
        for rec, cls, dispatched in cases:
            with self.subTest(state=rec["state"], cls=cls.__name__):
                self.fb.drop["openlolo_key"] = 2
                self.fb.tool_answers["openlolo_operation_status"] = lambda a, rec=rec: {
                    "content": [], "structuredContent": {"status": "ok", "operation": dict(rec, id=a["operation_id"])}}
                with self.assertRaises(cls) as cm:
                    box.key("a")
                self.assertEqual(cm.exception.dispatched, dispatched)

    def test_dropped_connection_retried_with_same_id(self) -> None:
        box = self.paired_box()
        self.fb.drop["openlolo_type_text"] = 1
        res = box.type_text("hello")
        ids = [c["params"]["arguments"]["operation_id"] for c in self.fb.mcp_calls if c["params"].get("name") == "openlolo_type_text"]
        self.assertEqual(len(ids), 2)
        self.assertEqual(ids[0], ids[1])
        self.assertEqual(res.operation_id, ids[0])

    def test_dropped_twice_asks_operation_status(self) -> None:
        box = self.paired_box()
        self.fb.drop["openlolo_button"] = 2
        res = box.button("home")
        names = [c["params"].get("name") for c in self.fb.mcp_calls]
        self.assertEqual(names[-3:], ["openlolo_button", "openlolo_button", "openlolo_operation_status"])
        self.assertEqual(res.structured.get("replayed"), True)
        # An operation the box recorded as outcome_unknown is an error, not a replay.
        self.fb.drop["openlolo_button"] = 2
        real = self.fb.journal.copy()

        def status(a: Dict[str, Any]) -> Dict[str, Any]:
            return {"content": [], "structuredContent": {"status": "ok", "operation": {"id": a["operation_id"], "state": "outcome_unknown", "code": ""}}}
        self.fb.tool_answers["openlolo_operation_status"] = status
        with self.assertRaises(openlolo.OutcomeUnknown) as cm:
            box.button("home")
        self.assertTrue(cm.exception.dispatched)
        self.assertTrue(real)

    def test_dropped_and_status_unknown(self) -> None:
        box = self.paired_box()
        self.fb.drop["openlolo_key"] = 2
        self.fb.drop["openlolo_operation_status"] = 1
        with self.assertRaises(openlolo.TransportError) as cm:
            box.key("a")
        self.assertIn("dropped twice", str(cm.exception))

    def test_box_off_says_the_call_did_not_run(self) -> None:
        self.paired_box()
        self.srv.close()  # nothing listens at the box's address now
        before = len(self.fb.mcp_calls)
        box = Box(self.srv.url, store=self.store)  # no kept connection
        with self.assertRaises(openlolo.TransportError) as cm:
            box.key("a")
        self.assertIn("did not run", str(cm.exception))
        self.assertNotIn("dropped twice", str(cm.exception))
        self.assertEqual(len(self.fb.mcp_calls), before)

    # --- keep-alive ---

    def _taps(self) -> List[Dict[str, Any]]:
        return [c for c in self.fb.mcp_calls if c["params"].get("name") == "openlolo_tap"]

    def test_calls_reuse_one_connection(self) -> None:
        box = self.paired_box()
        opened, shakes = self.fb.accepted, box._t().handshakes()
        for _ in range(10):
            self.assertEqual(box.call("openlolo_status")["status"], "ok")
        shot = box.screenshot()
        box.tap(shot.frame, 0.5, 0.5)
        self.assertEqual(self.fb.accepted, opened, "calls after pairing opened new connections")
        self.assertEqual(box._t().handshakes(), shakes)
        box.close()
        self.assertEqual(box.call("openlolo_status")["status"], "ok")
        self.assertEqual(self.fb.accepted, opened + 1)

    def test_idle_connection_closed_by_the_box_is_replaced(self) -> None:
        from openlolo.transport import _usable

        box = self.paired_box()
        shot = box.screenshot()
        opened, taps = self.fb.accepted, len(self._taps())
        idle = box._t()._idle
        self.assertEqual(len(idle), 1)
        self.assertTrue(_usable(idle[0]))
        self.assertEqual(self.fb.close_connections(), 1)
        self.assertFalse(_usable(idle[0]), "a connection the box closed looks usable")
        res = box.call_tool("openlolo_tap", {"frame_id": shot.frame.id, "geometry_epoch": shot.frame.epoch,
                                             "x": 0.5, "y": 0.5, "operation_id": "op-idle"})
        self.assertEqual(res.status, "ok")
        self.assertEqual(self.fb.accepted, opened + 1)
        self.assertEqual(len(self._taps()), taps + 1, "the tap was sent more than once")

    def test_reset_connection_found_when_sending_is_replaced(self) -> None:
        # The box resets the connection just after the idle check passed:
        # sending fails, so the box saw nothing and the request goes on a
        # new connection, once.
        from unittest import mock

        import openlolo.transport as transport

        box = self.paired_box()
        shot = box.screenshot()
        opened, taps = self.fb.accepted, len(self._taps())
        self.fb.close_connections(reset=True)
        with mock.patch.object(transport, "_usable", lambda conn: conn.sock is not None):
            self.assertEqual(box.call_tool("openlolo_tap", {"frame_id": shot.frame.id, "geometry_epoch": shot.frame.epoch,
                                                            "x": 0.5, "y": 0.5, "operation_id": "op-reset"}).status, "ok")
        self.assertEqual(self.fb.accepted, opened + 1)
        self.assertEqual([c["params"]["arguments"]["operation_id"] for c in self._taps()[taps:]], ["op-reset"])

    def test_answer_lost_on_a_kept_alive_connection_is_not_resent(self) -> None:
        # The box read the tap and closed the connection without answering:
        # it may have run. The transport does not send it again by itself;
        # mutate sends it once more with the same operation_id, which the
        # box answers from its journal.
        box = self.paired_box()
        shot = box.screenshot()
        opened, taps = self.fb.accepted, len(self._taps())
        self.fb.drop["openlolo_tap"] = 1
        args = {"frame_id": shot.frame.id, "geometry_epoch": shot.frame.epoch, "x": 0.5, "y": 0.5, "operation_id": "op-lost"}
        with self.assertRaises(openlolo.TransportError):
            box.call_tool("openlolo_tap", args)
        self.assertEqual(self.fb.accepted, opened, "the tap did not go on the kept-alive connection")
        self.assertEqual(len(self._taps()), taps + 1, "the transport sent the tap again")
        self.fb.drop["openlolo_tap"] = 1
        box.tap(shot.frame, 0.5, 0.5, operation_id="op-lost-2")
        self.assertEqual([c["params"]["arguments"]["operation_id"] for c in self._taps()[taps + 1:]], ["op-lost-2", "op-lost-2"])

    def test_threads_get_their_own_connections(self) -> None:
        import threading

        box = self.paired_box()
        errors: List[BaseException] = []

        def work() -> None:
            try:
                for _ in range(5):
                    box.status()
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(errors, [])
        self.assertEqual(len([c for c in self.fb.mcp_calls if c["params"].get("name") == "openlolo_status"]), 20)
        self.assertLessEqual(len(box._t()._idle), box._t().max_idle)

    def test_call_by_name(self) -> None:
        box = self.paired_box()
        sc = box.call("launch_app", bundle_id="com.apple.mobilenotes")
        self.assertEqual(sc["echo"]["bundle_id"], "com.apple.mobilenotes")
        self.assertIn("operation_id", sc["echo"])  # mutating: an id was added
        sc = box.call("openlolo_apps", query="no")
        self.assertEqual(sc["echo"], {"query": "no"})

    def test_run_meta(self) -> None:
        box = self.paired_box()
        with box.run("Nightly Notes smoke test") as rid:
            box.status()
        box.status()
        meta = self.fb.mcp_calls[-2]["params"]["_meta"]
        self.assertEqual(meta, {"openlolo.mcp": {"run": {"id": rid, "title": "Nightly Notes smoke test"}}})
        self.assertNotIn("_meta", self.fb.mcp_calls[-1]["params"])

    def test_watch_iterates_with_cursor(self) -> None:
        box = self.paired_box()
        self.fb.watch_events = [{"kind": "frame", "n": i} for i in range(5)]
        w = box.watch(wait_ms=100, kinds=["frame"])
        got = [e["n"] for e in w]
        self.assertEqual(got, [0, 1, 2, 3, 4])
        self.assertEqual(w.cursor, "c5")
        self.assertEqual(w.ended, "grant_revoked")
        cursors = [c["params"]["arguments"].get("cursor") for c in self.fb.mcp_calls if c["params"].get("name") == "openlolo_watch"]
        self.assertEqual(cursors, [None, "c2", "c4"])

    def test_watch_cursor_expired_resets(self) -> None:
        box = self.paired_box()
        self.fb.watch_events = [{"kind": "frame", "n": 0}]
        self.fb.watch_expire_cursor = "c9"
        w = box.watch(cursor="c9")
        self.assertEqual(next(w), {"kind": "reset", "reason": "cursor_expired"})
        self.assertIsNone(w.cursor)
        self.assertEqual(next(w), {"kind": "frame", "n": 0})


class TailnetTest(unittest.TestCase):
    """Boxes without a pin (the tailnet entry) get normal CA verification."""

    def test_is_tailnet(self) -> None:
        from openlolo.transport import is_tailnet

        self.assertTrue(is_tailnet("https://pi.tail1234.ts.net"))
        self.assertTrue(is_tailnet("https://pi.tail1234.ts.net:8443"))
        self.assertFalse(is_tailnet("https://openlolo-1a2b.local"))
        self.assertFalse(is_tailnet("https://ts.net.example.com"))

    def test_tailnet_box_is_ca_verified_not_pinned(self) -> None:
        from unittest import mock

        import openlolo.client as client

        d = fakebox.new_tempdir()
        self.addCleanup(shutil.rmtree, d, True)
        cert, key = fakebox.make_cert(d, "openlolo-ts")
        other, _ = fakebox.make_cert(d, "openlolo-other")
        srv = fakebox.Running(cert, key)
        self.addCleanup(srv.close)
        store = TokenStore(os.path.join(d, "boxes.json"))
        # The test's certificate stands in for the public CA; 127.0.0.1 is in its names.
        with mock.patch.object(client, "is_tailnet", lambda url: True), mock.patch.dict(os.environ, {"SSL_CERT_FILE": cert}):
            box = Box(srv.url, store=store)
            asked: List[str] = []
            box.pair(confirm=lambda *a: asked.append("asked") or True, prompt=lambda *a: None, sleep=lambda s: None)
            self.assertEqual(asked, [])  # nothing to confirm: the CA vouches for the name
            e = store.get(srv.url)
            self.assertEqual((e.entry, e.pin, e.fingerprint), ("tailnet", "", ""))
            self.assertEqual(Box(srv.url, store=store).call("openlolo_status")["status"], "ok")
        with mock.patch.dict(os.environ, {"SSL_CERT_FILE": other}):
            n = len(srv.fb.requests)
            with self.assertRaises(openlolo.TransportError) as cm:
                Box(srv.url, store=store).status()
            self.assertIn("certificate not trusted", str(cm.exception))
            self.assertEqual(len(srv.fb.requests), n)

    def test_unpinned_transport_verifies_chain_and_name(self) -> None:
        from openlolo.transport import Transport

        d = fakebox.new_tempdir()
        self.addCleanup(shutil.rmtree, d, True)
        cert, key = fakebox.make_cert(d, "openlolo-ca")
        srv = fakebox.Running(cert, key)
        self.addCleanup(srv.close)
        with self.assertRaises(openlolo.TransportError) as cm:
            Transport(srv.url, None).request("GET", "/.well-known/oauth-authorization-server")
        self.assertIn("certificate not trusted", str(cm.exception))
        self.assertEqual(srv.fb.requests, [])
        # The same self-signed box is reachable when pinned.
        r = Transport(srv.url, fingerprint_hex(fakebox.cert_der(cert))).request("GET", "/.well-known/oauth-authorization-server")
        self.assertEqual(r.status, 200)


class PackageTest(unittest.TestCase):
    """The in-tree build backend (_build/openlolo_build.py, standard library
    only) builds what pip installs."""

    def setUp(self) -> None:
        self.pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        sys.path.insert(0, os.path.join(self.pkg, "_build"))
        self.addCleanup(sys.path.remove, os.path.join(self.pkg, "_build"))
        import openlolo_build

        self.backend = openlolo_build

    def test_metadata_has_the_console_script_and_no_dependencies(self) -> None:
        import tempfile
        import zipfile

        with tempfile.TemporaryDirectory() as d:
            name = self.backend.build_wheel(d)
            self.assertEqual(name, "openlolo_sdk-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(d, name)) as z:
                files = z.namelist()
                self.assertIn("openlolo/py.typed", files)
                self.assertIn("openlolo/cli.py", files)
                self.assertIn("openlolo-sdk = openlolo.cli:run", z.read("openlolo_sdk-0.1.0.dist-info/entry_points.txt").decode())
                meta = z.read("openlolo_sdk-0.1.0.dist-info/METADATA").decode()
                self.assertIn("Name: openlolo-sdk\n", meta)
                self.assertIn("Requires-Python: >=3.9\n", meta)
                self.assertNotIn("Requires-Dist", meta)
                record = z.read("openlolo_sdk-0.1.0.dist-info/RECORD").decode().split()
                self.assertEqual(sorted(r.split(",")[0] for r in record), sorted(files))
            self.assertEqual(self.backend.get_requires_for_build_wheel(), [])
            # two builds, the same bytes
            with tempfile.TemporaryDirectory() as d2:
                self.backend.build_wheel(d2)
                with open(os.path.join(d, name), "rb") as a, open(os.path.join(d2, name), "rb") as b:
                    self.assertEqual(a.read(), b.read())

    def test_sdist_carries_the_backend(self) -> None:
        import tarfile
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            name = self.backend.build_sdist(d)
            self.assertEqual(name, "openlolo_sdk-0.1.0.tar.gz")
            with tarfile.open(os.path.join(d, name)) as t:
                names = t.getnames()
        for want in ["PKG-INFO", "pyproject.toml", "README.md", "_build/openlolo_build.py", "openlolo/py.typed"]:
            self.assertIn("openlolo_sdk-0.1.0/" + want, names)

    def test_toml_subset_reads_pyproject_as_tomllib_does(self) -> None:
        try:
            import tomllib  # type: ignore[import-not-found]
        except ImportError:
            self.skipTest("tomllib is Python 3.11+")
        with open(os.path.join(self.pkg, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(self.backend.parse_toml(text), tomllib.loads(text))
        self.assertEqual(self.backend.parse_toml('a = "x # y" # z\n[t.u]\nb = ["1",\n "2", ] \nc = true\nd = "q\\"r"\n'),
                         {"a": "x # y", "t": {"u": {"b": ["1", "2"], "c": True, "d": 'q"r'}}})

    def test_toml_subset_refuses_what_it_does_not_read(self) -> None:
        for text, where in [("a = 1\n", "line 1"), ("\n[[x]]\n", "line 2"), ("a = {b = \"c\"}\n", "line 1"),
                            ("a = [\"x\"\n", "line 1")]:
            with self.assertRaises(self.backend.TOMLError) as cm:
                self.backend.parse_toml(text)
            self.assertIn(where, str(cm.exception))


class URLTest(unittest.TestCase):
    def test_normalize(self) -> None:
        cases = {
            "openlolo-1a2b.local": "https://openlolo-1a2b.local",
            "https://OpenLolo-1A2B.local/": "https://openlolo-1a2b.local",
            "https://10.0.0.5:443": "https://10.0.0.5",
            "10.0.0.5:8443": "https://10.0.0.5:8443",
            "https://[::1]:8443": "https://[::1]:8443",
            "https://[::1]:443/": "https://[::1]",
        }
        for s, want in cases.items():
            with self.subTest(s=s):
                self.assertEqual(openlolo.normalize_url(s), want)
        for bad in ["", "http://box.local", "https://box.local/mcp", "https://box.local?x=1", "https://u@box.local", "https://box:port"]:
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError):
                    openlolo.normalize_url(bad)


if __name__ == "__main__":
    unittest.main()
