"""boxes.json: the Go client's format byte for byte, atomic writes, and the
flock protocol across processes."""

import json
import multiprocessing
import os
import shutil
import stat
import sys
import unittest
from typing import Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fakebox  # noqa: E402
from openlolo import store as storemod  # noqa: E402
from openlolo.errors import NotPaired, StoreError  # noqa: E402

GO_SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "go-boxes.json")


def _bump(path: str, n: int) -> None:
    st = storemod.TokenStore(path)
    for _ in range(n):
        def inc(cur: Optional[storemod.BoxEntry]) -> storemod.BoxEntry:
            e = cur or storemod.BoxEntry(url="https://b")
            e.access_token = str(int(e.access_token or "0") + 1)
            return e
        st.update("https://b", inc)


class StoreTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = fakebox.new_tempdir()
        self.path = os.path.join(self.dir, "cfg", "openlolo", "boxes.json")

    def tearDown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def _read(self) -> bytes:
        with open(self.path, "rb") as f:
            return f.read()

    def test_go_file_rewritten_byte_for_byte(self) -> None:
        os.makedirs(os.path.dirname(self.path))
        shutil.copy(GO_SAMPLE, self.path)
        st = storemod.TokenStore(self.path)
        e = st.get("https://openlolo-1a2b.local")
        self.assertEqual(e.client_name, "nightly.py on <mac> & \u2028 é")
        self.assertEqual(storemod.format_time(e.expires_at), "2026-11-29T20:49:42.602725Z")
        st.put(e)  # a no-op change must leave the Go bytes as they were
        with open(GO_SAMPLE, "rb") as a, open(self.path, "rb") as b:
            self.assertEqual(a.read(), b.read())
        self.assertEqual([b.url for b in st.list()], ["https://openlolo-1a2b.local", "https://pi.tail1.ts.net"])
        self.assertEqual(st.get("https://pi.tail1.ts.net").expires_at, 0.0)

    def test_times(self) -> None:
        cases = [
            ("2026-11-29T20:49:42Z", 1795985382.0),
            ("2026-11-29T20:49:42.5Z", 1795985382.5),
            ("2026-11-29T21:49:42.123456789+01:00", 1795985382.123456789),
            ("2026-11-29T19:49:42-01:00", 1795985382.0),
            ("0001-01-01T00:00:00Z", 0.0),
            ("", 0.0),
        ]
        for s, want in cases:
            with self.subTest(s=s):
                self.assertAlmostEqual(storemod.parse_time(s), want, places=5)
        for bad in ["2026-11-29 20:49:42Z", "yesterday", "2026-11-29T20:49:42"]:
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError):
                    storemod.parse_time(bad)
        self.assertEqual(storemod.format_time(1795985382.25), "2026-11-29T20:49:42.25Z")

    def test_modes_and_missing_entry(self) -> None:
        st = storemod.TokenStore(self.path)
        with self.assertRaises(NotPaired) as cm:
            st.get("https://x")
        self.assertIn("openlolo-sdk pair https://x", str(cm.exception))
        st.put(storemod.BoxEntry(url="https://x", access_token="a"))
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(self.path)).st_mode), 0o700)
        self.assertEqual(st.get("https://x").access_token, "a")
        st.delete("https://x")
        st.delete("https://x")  # missing is fine
        self.assertEqual(st.list(), [])
        leftovers = [n for n in os.listdir(os.path.dirname(self.path)) if n.startswith(".boxes-")]
        self.assertEqual(leftovers, [])

    def test_bad_files(self) -> None:
        os.makedirs(os.path.dirname(self.path))
        cases = {
            "not json": b"{nope",
            "not an object": b"[1]",
            "boxes not an object": b'{"version":1,"boxes":[]}',
            "entry not an object": b'{"version":1,"boxes":{"https://x":3}}',
            "bad time": b'{"version":1,"boxes":{"https://x":{"expires_at":"soon"}}}',
            "string field not a string": b'{"version":1,"boxes":{"https://x":{"client_id":5}}}',
        }
        for name, data in cases.items():
            with self.subTest(name=name):
                with open(self.path, "wb") as f:
                    f.write(data)
                with self.assertRaises(StoreError) as cm:
                    storemod.TokenStore(self.path).list()
                self.assertIn("move it aside and pair again", str(cm.exception))
        with open(self.path, "wb") as f:
            f.write(b'{"version":2,"boxes":{}}')
        with self.assertRaises(StoreError) as cm:
            storemod.TokenStore(self.path).list()
        self.assertIn("update openlolo", str(cm.exception))

    def test_unwritable_store(self) -> None:
        os.makedirs(os.path.dirname(self.path))
        with open(os.path.join(self.dir, "cfg", "file"), "w") as f:
            f.write("x")
        cases = {
            "directory is a file": os.path.join(self.dir, "cfg", "file", "boxes.json"),
            "store is a directory": os.path.dirname(self.path),
        }
        for name, path in cases.items():
            with self.subTest(name=name):
                with self.assertRaises(StoreError) as cm:
                    storemod.TokenStore(path).put(storemod.BoxEntry(url="https://x"))
                self.assertIn("token store", str(cm.exception))

    def test_failed_update_writes_nothing(self) -> None:
        st = storemod.TokenStore(self.path)
        st.put(storemod.BoxEntry(url="https://x", access_token="a"))
        before = self._read()

        def boom(cur: Optional[storemod.BoxEntry]) -> storemod.BoxEntry:
            raise RuntimeError("refresh failed")
        with self.assertRaises(RuntimeError):
            st.update("https://x", boom)
        self.assertEqual(self._read(), before)

    def test_unknown_members_survive(self) -> None:
        os.makedirs(os.path.dirname(self.path))
        with open(self.path, "w") as f:
            json.dump({"version": 1, "boxes": {"https://x": {"url": "https://x", "future": {"a": 1}}}}, f)
        st = storemod.TokenStore(self.path)
        st.update("https://x", lambda cur: cur)
        doc = json.loads(self._read())
        self.assertEqual(doc["boxes"]["https://x"]["future"], {"a": 1})

    def test_expired_margin(self) -> None:
        e = storemod.BoxEntry(url="https://x", access_token="a", expires_at=1000.0)
        self.assertFalse(e.expired(969.0))
        self.assertTrue(e.expired(970.0))
        self.assertTrue(storemod.BoxEntry(url="https://x", expires_at=5000.0).expired(0.0))

    def test_lock_serializes_processes(self) -> None:
        ctx = multiprocessing.get_context("fork")
        procs = [ctx.Process(target=_bump, args=(self.path, 40)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
            self.assertEqual(p.exitcode, 0)
        self.assertEqual(storemod.TokenStore(self.path).get("https://b").access_token, "160")


if __name__ == "__main__":
    unittest.main()
