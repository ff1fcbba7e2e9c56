#!/bin/sh
# Debian's usbmuxd answers our usbmux client (hw/coredevice/usbmux) on the
# no-device path: ListDevices is empty, ReadPairRecord and Connect fail the
# documented way, Listen stays quiet. usbmuxd 1.1.1 listens only on
# /var/run/usbmuxd, so it runs in a private mount namespace with its own
# /run (needs root; CI is root). About 2 s.
set -eu
skip() {
	if [ "${CI:-}" = true ]; then echo "FAIL: $*" >&2; exit 1; fi
	echo "SKIP: $*"; exit 0
}
command -v usbmuxd >/dev/null || skip "usbmuxd is missing (scripts/deps.sh installs it)"
command -v unshare >/dev/null || skip "unshare is missing"
[ "$(id -u)" = 0 ] || skip "needs root for a private /run"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/usbmux.test" ./hw/coredevice/usbmux/
unshare -m sh -c '
	set -eu
	mount -t tmpfs tmpfs /run
	usbmuxd -f -U root >"$1/usbmuxd.log" 2>&1 &
	daemon=$!
	i=0
	while [ ! -S /run/usbmuxd ]; do
		i=$((i + 1))
		[ $i -lt 50 ] || { echo "FAIL: usbmuxd did not start:" >&2; cat "$1/usbmuxd.log" >&2; exit 1; }
		sleep 0.1
	done
	rc=0
	OPENLOLO_USBMUXD=/run/usbmuxd "$1/usbmux.test" -test.run "^TestRealUsbmuxd$" -test.v || rc=$?
	kill "$daemon"
	wait "$daemon" 2>/dev/null || true
	exit $rc
' sh "$tmp"
echo "ok: usbmuxd lists no devices and refuses the rest as documented"
