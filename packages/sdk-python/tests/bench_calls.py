"""Calls per second against the real box, for the closing notes (not a
test: `python3 tests/bench_calls.py [OLD_PACKAGE_DIR]`).

It starts `openlolo serve` on the simulated phone (as the end-to-end tests
do), claims it, pairs this SDK, then times JSON-RPC pings (bearer checked,
not rate-limited) and openlolo_status calls, first over kept-alive
connections, then with a new connection per call (the transport closed
after each call, which is what every call cost before keep-alive). With
OLD_PACKAGE_DIR (a copy of an older openlolo package, e.g. from `git
archive main packages/sdk-python`), the same loop runs with that package
in the same run, as the baseline.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
sys.path.insert(0, PKG)
sys.path.insert(0, HERE)

import boxproc  # noqa: E402
from openlolo import Box, TokenStore  # noqa: E402

# The loop each package runs: argv = url, store path, mode (keep|new), n.
LOOP = r"""
import sys, time
from openlolo import Box, TokenStore
url, path, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
box = Box(url, store=TokenStore(path))
box.rpc("ping")
t = box._t()
def once(call):
    call()
    if mode == "new" and hasattr(t, "close"):
        t.close()
for name, call, k in (("ping", lambda: box.rpc("ping"), n), ("status", box.status, 25)):
    start = time.perf_counter()
    for _ in range(k):
        once(call)
    dt = time.perf_counter() - start
    shakes = t.handshakes() if hasattr(t, "handshakes") else -1
    print("%s %d calls %.3f s %.1f calls/s handshakes=%d" % (name, k, dt, k / dt, shakes))
"""


def main() -> None:
    old = sys.argv[1] if len(sys.argv) > 1 else ""
    tmp = tempfile.mkdtemp(prefix="openlolo-bench-")
    state = os.path.join(tmp, "state")
    box = boxproc.BoxProcess(state)
    try:
        owner = boxproc.Owner(box)
        owner.claim(box.setup_code, "correct horse battery staple")
        store = os.path.join(tmp, "boxes.json")
        codes: "queue.Queue[str]" = queue.Queue()
        b = Box(box.url, store=TokenStore(store))
        t = threading.Thread(target=lambda: b.pair(pin=box.spki, client_name="bench",
                                                   prompt=lambda m, code, link: codes.put(code)), daemon=True)
        t.start()
        owner.approve(codes.get(timeout=60))
        t.join(60)
        runs = [("this package, kept alive", PKG, "keep"), ("this package, new connection per call", PKG, "new")]
        if old:
            runs.append(("old package (%s)" % old, old, "keep"))
        for title, pkg, mode in runs:
            print("==", title)
            env = dict(os.environ, PYTHONPATH=pkg)
            out = subprocess.run([sys.executable, "-c", LOOP, box.url, store, mode, "300"], env=env,
                                 capture_output=True, text=True, timeout=600)
            sys.stdout.write(out.stdout + out.stderr)
    finally:
        box.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
