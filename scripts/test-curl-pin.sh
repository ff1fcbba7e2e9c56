#!/bin/sh
# The printed SPKI pin works with curl --pinnedpubkey, and another pin is
# refused. Runs the built binary (make build) on a temporary state dir.
set -eu
BIN=${OPENLOLO_BIN:-bin/openlolo}
[ -x "$BIN" ] || { echo "FAIL: $BIN is missing; run make build" >&2; exit 1; }
command -v curl >/dev/null || { echo "FAIL: curl is missing (apt-get install curl)" >&2; exit 1; }

. "$(dirname "$0")/lib-box.sh"
start_box 300 "$BIN"
echo "box at $url, pin $pin"

body=$(curl -fsS --max-time 10 --pinnedpubkey "$pin" -k "${url}healthz")
case $body in
*'"status":"ok"'*) echo "ok: curl with the printed pin: $body" ;;
*) echo "FAIL: /healthz answered $body" >&2; exit 1 ;;
esac

# A well-formed pin of another key (32 zero bytes) must fail the handshake.
wrong='sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='
set +e
curl -fsS --max-time 10 --pinnedpubkey "$wrong" -k "${url}healthz" >"$tmp/wrong" 2>&1
rc=$?
set -e
if [ $rc -ne 90 ]; then
	echo "FAIL: curl with another pin exited $rc, want 90 (CURLE_SSL_PINNEDPUBKEYNOTMATCH):" >&2
	cat "$tmp/wrong" >&2
	exit 1
fi
echo "ok: curl with another pin refused (exit 90)"

# openlolo fingerprint fetches the same pins from the running box.
"$BIN" fingerprint "$url" >"$tmp/remote" 2>/dev/null
grep -qx "Fingerprint:  $fp" "$tmp/remote" && grep -qx "SPKI pin:     $pin" "$tmp/remote" || {
	echo "FAIL: openlolo fingerprint $url printed:" >&2
	cat "$tmp/remote" >&2
	exit 1
}
echo "ok: openlolo fingerprint $url shows the printed pins"

# SIGTERM: a clean shutdown, exit status 0.
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
pid=
if [ $rc -ne 0 ]; then
	echo "FAIL: serve exited $rc after SIGTERM" >&2
	cat "$tmp/err" >&2
	exit 1
fi
echo "ok: serve stopped cleanly on SIGTERM"
