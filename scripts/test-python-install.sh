#!/bin/sh
# The Python SDK installs with pip as its README says, as the distribution
# openlolo-sdk, and brings the openlolo-sdk command, offline, into a plain
# venv of any Python 3.9+: its build backend (packages/sdk-python/_build)
# is the standard library alone, so pip fetches nothing. Checked with
# Debian's /usr/bin/python3 and with the python3 first on PATH (pyenv's on
# a developer machine), when it is another interpreter; for each:
#   1. pip install --no-index DIR (build isolation: an empty build env);
#   2. pip install --no-index --no-build-isolation DIR;
#   3. pip install --no-index SDIST (the sdist the backend builds, which
#      carries the backend).
# A proxy that refuses every connection stands in for a machine offline.
set -eu
cd "$(dirname "$0")/.."
# As on a fresh machine: no pip configuration from this one, and no network.
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX PYTHONPATH
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sdk=$PWD/packages/sdk-python
fail() { echo "test-python-install: FAIL: $*"; exit 1; }

# check VENV CASE: the distribution, the command and the import work
check() {
	v=$1
	"$v/bin/pip" show openlolo-sdk >/dev/null 2>&1 || fail "$2: pip show openlolo-sdk finds no distribution of that name"
	# into a file: grep -q would close the pipe early (BrokenPipeError in the command)
	"$v/bin/openlolo-sdk" --help > "$dir/help.txt" || fail "$2: openlolo-sdk --help failed"
	grep -q 'pair' "$dir/help.txt" || fail "$2: openlolo-sdk --help does not list pair"
	(cd "$dir" && "$v/bin/python" -c 'import openlolo, openlolo.cli, os, sys
assert hasattr(openlolo, "Box"), "no openlolo.Box"
assert os.path.exists(os.path.join(os.path.dirname(openlolo.__file__), "py.typed")), "no py.typed"
assert sys.prefix == sys.argv[1], "imported from %s, not the venv" % openlolo.__file__' "$v") ||
		fail "$2: import openlolo"
	echo "test-python-install: ok: $2"
}

# The sdist, built by the backend itself with the standard library.
(cd "$sdk" && /usr/bin/env python3 -c 'import sys; sys.path.insert(0, "_build"); import openlolo_build as b; print(b.build_sdist(sys.argv[1]))' "$dir") > "$dir/sdist.txt" ||
	fail "the backend did not build an sdist"
sdist=$dir/$(cat "$dir/sdist.txt")

debian=/usr/bin/python3
onpath=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)
pythons=
[ -x "$debian" ] && pythons=$debian
if [ -n "$onpath" ] && [ "$(readlink -f "$onpath")" != "$(readlink -f "$debian")" ]; then
	pythons="$pythons $onpath"
fi
[ -n "$pythons" ] || fail "no python3 found"
n=0
for py in $pythons; do
	n=$((n + 1))
	ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	if ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then
		echo "test-python-install: SKIP $py ($ver): no venv/ensurepip (Debian: apt-get install python3-venv)"
		continue
	fi
	# one venv (making one is the slow part), the SDK installed three ways in turn
	v=$dir/venv-$n
	"$py" -m venv "$v" || fail "$py -m venv"
	for case in iso noiso sdist; do
		case $case in
		iso) "$v/bin/pip" install -q --no-index "$sdk" || fail "$py ($ver): pip install --no-index $sdk" ;;
		noiso) "$v/bin/pip" install -q --no-index --no-build-isolation "$sdk" || fail "$py ($ver): pip install --no-index --no-build-isolation $sdk" ;;
		sdist) "$v/bin/pip" install -q --no-index "$sdist" || fail "$py ($ver): pip install --no-index $(basename "$sdist")" ;;
		esac
		check "$v" "$py ($ver), plain venv, $case"
		"$v/bin/pip" uninstall -q -y openlolo-sdk || fail "$py ($ver): pip uninstall openlolo-sdk after $case"
		[ ! -e "$v/bin/openlolo-sdk" ] || fail "$py ($ver): pip uninstall left bin/openlolo-sdk (RECORD incomplete?)"
	done
done
