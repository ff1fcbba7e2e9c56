#!/bin/sh
# The Python SDK installs with pip as its README says, as the distribution
# openlolo-sdk, and brings the openlolo-sdk command. Offline (--no-index,
# nothing downloaded), over Debian's python3 with its setuptools and wheel:
#   1. a venv that sees Debian's packages, --no-build-isolation, with pip
#      checking that the declared build requirements are all there;
#   2. a plain venv (setuptools 66 from ensurepip, no wheel) with
#      --no-build-isolation: pip refuses, naming wheel (the declaration);
#      after installing Debian's wheel from /usr/share/python-wheels it works;
#   3. a plain venv with build isolation: pip takes setuptools and wheel
#      from Debian's /usr/share/python-wheels.
set -eu
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
WHEELS=/usr/share/python-wheels
if ! $PY -c 'import venv, setuptools, wheel' 2>/dev/null || ! ls "$WHEELS"/wheel-*.whl "$WHEELS"/setuptools-*.whl >/dev/null 2>&1; then
	echo "test-python-install: SKIP: Debian's python3-venv, python3-setuptools, python3-wheel and python3-wheel-whl are needed (scripts/deps.sh installs them)"
	exit 0
fi
# As on a fresh machine: no pip configuration from this one.
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
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
	(cd "$dir" && "$v/bin/python" -c 'import openlolo, openlolo.cli, sys; assert hasattr(openlolo, "Box"), "no openlolo.Box"') ||
		fail "$2: import openlolo"
	echo "test-python-install: ok: $2"
}

# 1. Debian's setuptools and wheel through the system site packages
$PY -m venv --system-site-packages "$dir/sys"
"$dir/sys/bin/pip" install -q --no-index --no-build-isolation --check-build-dependencies "$sdk" ||
	fail "pip install --no-build-isolation into a venv with Debian's setuptools and wheel"
check "$dir/sys" "venv over Debian's site packages, --no-build-isolation"

# 2. a plain venv: ensurepip's setuptools and no wheel
$PY -m venv "$dir/plain"
if out=$("$dir/plain/bin/pip" install --no-index --no-build-isolation --check-build-dependencies "$sdk" 2>&1); then
	fail "a plain venv without wheel installed the SDK with --no-build-isolation; is wheel still declared?"
fi
printf '%s\n' "$out" | grep -q "build dependencies .* missing: 'wheel'" ||
	fail "a plain venv without wheel: pip does not say wheel is missing:
$out"
"$dir/plain/bin/pip" install -q --no-index --find-links "$WHEELS" wheel
"$dir/plain/bin/pip" install -q --no-index --no-build-isolation --check-build-dependencies "$sdk" ||
	fail "pip install --no-build-isolation into a plain venv with Debian's wheel"
check "$dir/plain" "plain venv, --no-build-isolation, after pip install --find-links $WHEELS wheel"

# 3. a plain venv, build isolation, Debian's wheels as the only index
$PY -m venv "$dir/iso"
"$dir/iso/bin/pip" install -q --no-index --find-links "$WHEELS" "$sdk" ||
	fail "pip install --find-links $WHEELS (build isolation) into a plain venv"
check "$dir/iso" "plain venv, build isolation, --find-links $WHEELS"
