#!/bin/sh
# The Python SDK installs with pip as its README says, and brings the
# openlolo-sdk command. Offline: a venv over Debian's python3 with its
# setuptools and wheel, --no-build-isolation --no-index (nothing downloaded).
set -eu
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
if ! $PY -c 'import venv, setuptools, wheel' 2>/dev/null; then
	echo "test-python-install: SKIP: Debian's python3-venv, python3-setuptools and python3-wheel are needed (scripts/deps.sh installs them)"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$PY -m venv --system-site-packages "$dir/venv"
"$dir/venv/bin/pip" install -q --no-build-isolation --no-index ./packages/sdk-python
"$dir/venv/bin/openlolo-sdk" --help | grep -q 'pair' || { echo "test-python-install: FAIL: openlolo-sdk --help does not list pair"; exit 1; }
"$dir/venv/bin/python" -c 'import openlolo, sys; assert hasattr(openlolo, "Box"), "no openlolo.Box"; print("openlolo", getattr(openlolo, "__version__", "?"), "installed from", openlolo.__file__)'
cd "$dir" && "$dir/venv/bin/python" -c 'import openlolo; import openlolo.cli'
echo "test-python-install: ok: pip install ./packages/sdk-python gives the package and the openlolo-sdk command"
