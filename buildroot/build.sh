#!/bin/sh
# openlolo: production image with Buildroot (make buildroot-image). Needs the
# internet (Buildroot, its toolchain, the Raspberry Pi kernel and firmware,
# Go, the Go modules) and Buildroot's host tools (rsync, perl, g++, ...;
# Buildroot lists what is missing when it starts). No Go is needed on the
# host: Buildroot downloads the Go that board/openlolo/go-version.mk names
# (checked against patches/go-bin/go-bin.hash) and build.sh vendors the
# modules with that same Go.
#
#   buildroot/build.sh BOARD        BOARD: rpizero2w | rpi3 | rpi4 | rpi5
#
# Environment: CACHE (default .cache/buildroot: the Buildroot clone, downloads
# and output per board), VERSION (default git describe of HEAD).
# Output: $CACHE/output-BOARD/images/openlolo-VERSION-rpi.img (+ .sha256).
# The image is built from the committed HEAD (git archive): uncommitted
# changes are left out, and build.sh says so.
set -eu
ext=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$ext/.." && pwd)
# shellcheck source=SCRIPTDIR/buildroot.lock
. "$ext/buildroot.lock"
board=${1:-}
[ -f "$ext/configs/openlolo_${board}_defconfig" ] ||
  { echo "usage: buildroot/build.sh rpizero2w|rpi3|rpi4|rpi5" >&2; exit 2; }
CACHE=${CACHE:-$top/.cache/buildroot}
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo "build.sh: note: the work tree has uncommitted changes; the image is built from HEAD without them"
fi
VERSION=${VERSION:-$(git -C "$top" describe --tags --always 2>/dev/null || echo dev)}
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

# 2. The configuration, and Buildroot's own Go (the version go-version.mk sets)
make -C "$br" O="$out" BR2_EXTERNAL="$ext" BR2_DL_DIR="$CACHE/dl" "openlolo_${board}_defconfig"
make -C "$br" O="$out" BR2_DL_DIR="$CACHE/dl" host-go
go=$out/host/bin/go
have=$("$go" env GOVERSION)
need=go$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$top/go.mod")
[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" = "$need" ] ||
  { echo "build.sh: Buildroot's Go is $have, go.mod needs $need or later: raise GO_VERSION in board/openlolo/go-version.mk (and its hashes in patches/go-bin/go-bin.hash)" >&2; exit 1; }

# 3. A source snapshot of HEAD with vendor/ (Buildroot does not vendor a local package)
src=$CACHE/openlolo-src
rm -rf "$src"; mkdir -p "$src"
git -C "$top" archive --format=tar HEAD | tar -x -C "$src"
(cd "$src" && GOTOOLCHAIN=local GOFLAGS=-mod=mod "$go" mod vendor)

# 4. Build (the version reaches openlolo.mk and the post scripts through the environment,
# with the update key the image accepts bundles of and the build time that orders them)
keys=${UPDATE_KEYS:-$top/keys}
[ -f "$keys/update.pub" ] || (cd "$top" && GOTOOLCHAIN=local "$go" run ./image/bundle key -dir "$keys")
export OPENLOLO_UPDATE_PUB="$keys/update.pub"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct)}"
export OPENLOLO_IMAGE_VERSION="$VERSION"
make -C "$br" O="$out" BR2_DL_DIR="$CACHE/dl" OPENLOLO_OVERRIDE_SRCDIR="$src"
ls -l "$out/images/openlolo-$VERSION-rpi.img"
