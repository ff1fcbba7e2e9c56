"""Calls per second against the real box, for the closing notes (not a
test: `python3 tests/bench_calls.py [OLD_PACKAGE_DIR]`).

It starts `openlolo serve` on the simulated phone (as the end-to-end tests
do), claims it, pairs this SDK, then times JSON-RPC pings (bearer checked,
not rate-limited) and over kept-alive connections and with a new
connection per call (the transport closed after each call, which is what
every call cost before keep-alive). With OLD_PACKAGE_DIR (a copy of an
older openlolo package, e.g. from `git archive <commit>
packages/sdk-python`), the same loop runs with that package too, as the
baseline; the runs are interleaved over several rounds and the medians
compared.
"""

from __future__ import annotations

import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
sys.path.insert(0, PKG)
sys.path.insert(0, HERE)

import boxproc  # noqa: E402
from openlolo import Box, TokenStore  # noqa: E402

# The loop each package runs: argv = url, store path, mode (keep|new), n.
# It prints pings/s and the TLS handshakes its transport made.
LOOP = r"""
import sys, time
from openlolo import Box, TokenStore
url, path, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
box = Box(url, store=TokenStore(path))
box.rpc("ping")
t = box._t()
start = time.perf_counter()
for _ in range(n):
    box.rpc("ping")
    if mode == "new":
        t.close()
dt = time.perf_counter() - start
print("%.1f %d" % (n / dt, t.handshakes() if hasattr(t, "handshakes") else -1))
"""
ROUNDS = 7


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
        runs = [("kept alive (this package)", PKG, "keep"), ("new connection per call (this package)", PKG, "new")]
        if old:
            runs.append(("before keep-alive (%s)" % old, old, "keep"))
        rates: Dict[str, List[float]] = {title: [] for title, _, _ in runs}
        for _ in range(ROUNDS):  # interleaved, so noise hits every run alike
            for title, pkg, mode in runs:
                env = dict(os.environ, PYTHONPATH=pkg)
                out = subprocess.run([sys.executable, "-c", LOOP, box.url, store, mode, "200"], env=env,
                                     capture_output=True, text=True, timeout=600)
                if out.returncode != 0:
                    raise SystemExit(out.stderr)
                rate, shakes = out.stdout.split()
                rates[title].append(float(rate))
                if int(shakes) >= 0:
                    rates.setdefault(title + " handshakes", []).append(float(shakes))
        base = statistics.median(rates[runs[-1][0]])
        for title, vs in rates.items():
            if title.endswith("handshakes"):
                print("%-60s %d per 200 calls" % (title, statistics.median(vs)))
                continue
            m = statistics.median(vs)
            print("%-60s median %7.1f pings/s (min %.1f, max %.1f), %.2fx the last" % (title, m, min(vs), max(vs), m / base))
    finally:
        box.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
