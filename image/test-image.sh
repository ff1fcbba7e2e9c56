#!/bin/sh
# openlolo: the SD-card image test (make test-image), after make image.
#  1. reproducibility: build the card a second time in other folders and
#     compare the bytes with out/openlolo-VERSION-rpi.img;
#  2. the QEMU boot test (image/boottest) on that card.
# Prints "N passed, N failed" at the end of each part; exits 1 on a failure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
img=out/openlolo-$VERSION-rpi.img
[ -f "$img" ] || { echo "test-image: $img is missing; run make image first" >&2; exit 1; }

info=$img.buildinfo
[ -f "$info" ] || { echo "test-image: $info is missing; run make image again" >&2; exit 1; }
SOURCE_DATE_EPOCH=$(sed -n 's/^SOURCE_DATE_EPOCH=//p' "$info")
export SOURCE_DATE_EPOCH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== reproducibility: a second build of $img from the same inputs ($info)"
if VERSION=$VERSION OUT=$tmp/out WORK=$tmp/work sh image/mkimage.sh > "$tmp/build.log" 2>&1 &&
   cmp "$img" "$tmp/out/openlolo-$VERSION-rpi.img"; then
  echo "PASS two builds give the same bytes ($(cut -d' ' -f1 "$img.sha256"))"
  echo "1 passed, 0 failed"
else
  cat "$tmp/build.log"
  diff "$info" "$tmp/out/openlolo-$VERSION-rpi.img.buildinfo" || true
  echo "FAIL the second build differs from $img ($(cmp "$img" "$tmp/out/openlolo-$VERSION-rpi.img" 2>&1 | head -n 1))"
  echo "0 passed, 1 failed"
  exit 1
fi
rm -rf "$tmp/work"

echo "== boot test"
GOTOOLCHAIN=local go run ./image/boottest -image "$img" -work "$tmp/boot" ${BOOTTEST_FLAGS:-}
