#!/bin/sh
# openlolo: the signed update bundle of the last make image (make
# update-bundle): out/openlolo-$VERSION-rpi.update from the root image and
# the boot files image/mkimage.sh staged in $WORK.
# Environment: VERSION, OUT (default out), CACHE/WORK as mkimage.sh,
# UPDATE_KEYS (default keys: update.key signs).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/out}
CACHE=${CACHE:-$top/.cache/image}
WORK=${WORK:-$CACHE/work}
KEYS=${UPDATE_KEYS:-$top/keys}
case "$KEYS" in /*) ;; *) KEYS=$top/$KEYS ;; esac
VERSION=${VERSION:-$(git -C "$top" describe --tags --always --dirty 2>/dev/null || echo dev)}
img=$OUT/openlolo-$VERSION-rpi.img
[ -f "$img.buildinfo" ] || { echo "mkbundle: $img.buildinfo is missing: run make image first" >&2; exit 1; }
built=$(sed -n 's/^SOURCE_DATE_EPOCH=//p' "$img.buildinfo")
{ [ -f "$WORK/rootfs.squashfs" ] && [ -d "$WORK/card/boot" ]; } || { echo "mkbundle: $WORK has no rootfs.squashfs or card/boot: run make image first" >&2; exit 1; }
grep -q "^VERSION=$VERSION\$" "$WORK/root/etc/openlolo-release" 2>/dev/null ||
  { echo "mkbundle: $WORK holds another version's build than $VERSION: run make image again" >&2; exit 1; }
cd "$top" && GOTOOLCHAIN=${GOTOOLCHAIN:-local} go run ./image/bundle build -key "$KEYS/update.key" -version "$VERSION" -board rpi \
  -built "$built" -root "$WORK/rootfs.squashfs" -boot "$WORK/card/boot" -o "$OUT/openlolo-$VERSION-rpi.update"
