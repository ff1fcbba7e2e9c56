# Sourced by the shell tests (not run on its own): start a box on a
# temporary state dir and read its start-up lines.
#
#   start_box TRIES CMD...   runs "CMD... serve" on the simulated phone at
#                            127.0.0.1:0 and waits up to TRIES × 0.1 s for
#                            the setup code line; sets tmp, pid, url, pin, fp.
# The EXIT trap kills the box and removes $tmp.

tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

start_box() {
	tries=$1
	shift
	: >"$tmp/out"
	"$@" serve --state "$tmp/state" --lan 127.0.0.1:0 --phone sim --sim-size 300x600 >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	i=0
	until grep -q '^Setup code:' "$tmp/out"; do
		i=$((i + 1))
		if [ $i -gt "$tries" ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "FAIL: $* serve did not print its start-up lines" >&2
			cat "$tmp/out" "$tmp/err" >&2
			exit 1
		fi
		sleep 0.1
	done
	url=$(sed -n 's/^LAN URL: *//p' "$tmp/out")
	pin=$(sed -n 's/^SPKI pin: *//p' "$tmp/out")
	fp=$(sed -n 's/^Fingerprint: *//p' "$tmp/out")
}
