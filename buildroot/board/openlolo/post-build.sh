#!/bin/sh
# openlolo: post-build script, run on the finished root tree before it is
# packed into squashfs. Buildroot calls it (BR2_ROOTFS_POST_BUILD_SCRIPT)
# with TARGET_DIR; image/mkimage.sh calls it the same way.
#
#   post-build.sh ROOT_DIR [board]
#
# It records the image version and drops init scripts that our rcS never
# runs (Buildroot's S* scripts), so the root holds one way to start.
set -eu
root=${1:?usage: post-build.sh ROOT_DIR}
[ -d "$root/etc" ] || { echo "post-build.sh: $root has no etc/; is it a root tree?" >&2; exit 1; }
version=${OPENLOLO_IMAGE_VERSION:-${VERSION:-dev}}
# BOARD and BUILT (SOURCE_DATE_EPOCH) are what the updater checks a bundle against
printf 'NAME=openlolo\nVERSION=%s\nBOARD=%s\nBUILT=%s\n' "$version" "${OPENLOLO_BOARD:-${2:-rpi}}" "${SOURCE_DATE_EPOCH:-0}" > "$root/etc/openlolo-release"
# the update key: bundles signed with its private half are the only ones this root installs
if [ -n "${OPENLOLO_UPDATE_PUB:-}" ]; then
  [ -f "$OPENLOLO_UPDATE_PUB" ] || { echo "post-build.sh: OPENLOLO_UPDATE_PUB=$OPENLOLO_UPDATE_PUB does not exist" >&2; exit 1; }
  mkdir -p "$root/etc/openlolo"
  install -m 0644 "$OPENLOLO_UPDATE_PUB" "$root/etc/openlolo/update.pub"
fi
rm -f "$root"/etc/init.d/S[0-9]*
for f in /etc/inittab /etc/init.d/rcS /usr/libexec/openlolo/supervise; do
  [ -e "$root$f" ] || { echo "post-build.sh: $f is missing from the root; the rootfs overlay was not applied" >&2; exit 1; }
done
