#!/bin/sh
# openlolo: production image with Buildroot (make buildroot-image). Needs the
# internet (Buildroot, its toolchain, the Raspberry Pi kernel and firmware,
# Go, the Go modules) and Buildroot's host tools (rsync, perl, g++, ...).
#
#   buildroot/build.sh BOARD        BOARD: rpizero2w | rpi3 | rpi4 | rpi5
#
# Environment: CACHE (default .cache/buildroot: the Buildroot clone, downloads
# and output per board), VERSION (default git describe).
# Output: $CACHE/output-BOARD/images/openlolo-VERSION-rpi.img (+ .sha256).
set -eu
ext=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$ext/.." && pwd)
. "$ext/buildroot.lock"
board=${1:-}
[ -f "$ext/configs/openlolo_${board}_defconfig" ] ||
  { echo "usage: buildroot/build.sh rpizero2w|rpi3|rpi4|rpi5" >&2; exit 2; }
CACHE=${CACHE:-$top/.cache/buildroot}
VERSION=${VERSION:-$(git -C "$top" describe --tags --always --dirty 2>/dev/null || echo dev)}
br=$CACHE/buildroot-$BUILDROOT_TAG
out=$CACHE/output-$board
mkdir -p "$CACHE" "$CACHE/dl"

# 1. Buildroot at the pinned commit
if [ ! -d "$br/.git" ]; then
  git clone --depth 1 --branch "$BUILDROOT_TAG" "$BUILDROOT_GIT" "$br"
fi
got=$(git -C "$br" rev-parse HEAD)
[ "$got" = "$BUILDROOT_COMMIT" ] ||
  { echo "build.sh: $br is at $got, not $BUILDROOT_TAG ($BUILDROOT_COMMIT); remove it and run again" >&2; exit 1; }

# 2. The Go tarball hashes for the GO_VERSION override, as published by go.dev
mkdir -p "$out/openlolo-patches/go-bin"
hashes=$out/openlolo-patches/go-bin/go-bin.hash
if [ ! -s "$hashes" ]; then
  json=$(wget -q -O - 'https://go.dev/dl/?mode=json&include=all') || { echo "build.sh: cannot read go.dev/dl" >&2; exit 1; }
  for f in "go$GO_VERSION.src.tar.gz" "go$GO_VERSION.linux-amd64.tar.gz" "go$GO_VERSION.linux-arm64.tar.gz"; do
    h=$(printf '%s' "$json" | tr -d ' \n' | grep -o "\"filename\":\"$f\",[^}]*\"sha256\":\"[0-9a-f]*\"" | sed 's/.*"sha256":"\([0-9a-f]*\)"/\1/')
    [ -n "$h" ] || { echo "build.sh: go.dev lists no sha256 for $f" >&2; exit 1; }
    echo "sha256  $h  $f" >> "$hashes"
  done
fi

# 3. A source snapshot with vendor/ (Buildroot does not vendor a local package)
src=$CACHE/openlolo-src
rm -rf "$src"; mkdir -p "$src"
git -C "$top" archive --format=tar HEAD | tar -x -C "$src"
(cd "$src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod vendor)

# 4. Build (the version reaches openlolo.mk and the post scripts through the environment)
export OPENLOLO_IMAGE_VERSION="$VERSION"
make -C "$br" O="$out" BR2_EXTERNAL="$ext" BR2_DL_DIR="$CACHE/dl" "openlolo_${board}_defconfig"
make -C "$br" O="$out" BR2_DL_DIR="$CACHE/dl" \
  OPENLOLO_OVERRIDE_SRCDIR="$src"
ls -l "$out/images/openlolo-$VERSION-rpi.img"
