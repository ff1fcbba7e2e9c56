#!/bin/sh
# openlolo: Buildroot post-image script (BR2_ROOTFS_POST_IMAGE_SCRIPT).
# Buildroot calls it with BINARIES_DIR and the board name (from
# BR2_ROOTFS_POST_SCRIPT_ARGS). It stages the boot partition (firmware,
# kernel, DTBs, overlays, the stage-1 initramfs made from the target's
# busybox) and hands over to mkcard.sh, the same card assembly the offline
# Debian build uses.
set -eu
bin=$1 board=${2:?post-image.sh: board name missing (BR2_ROOTFS_POST_SCRIPT_ARGS)}
here=$(cd "$(dirname "$0")" && pwd)
: "${TARGET_DIR:?post-image.sh runs under Buildroot (TARGET_DIR unset)}"
export PATH="$HOST_DIR/bin:$HOST_DIR/sbin:$PATH"
version=${OPENLOLO_IMAGE_VERSION:-$(git -C "$here/../../.." describe --tags --always --dirty 2>/dev/null || echo dev)}
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$here/../../.." log -1 --format=%ct 2>/dev/null || echo 0)}"

boot=$bin/boot
rm -rf "$boot"; mkdir -p "$boot"
cp -R "$bin"/rpi-firmware/. "$boot/"
rm -f "$boot/config.txt" "$boot/cmdline.txt"
cp "$bin/Image" "$boot/Image"
cp "$bin"/*.dtb "$boot/"

# stage 1: the shared init with the target's busybox and the libraries it needs
I=$bin/initramfs; rm -rf "$I"; mkdir -p "$I/bin" "$I/lib" "$I/proc" "$I/sys" "$I/dev" "$I/run" "$I/newroot"
cp "$TARGET_DIR/bin/busybox" "$I/bin/busybox"
cp "$here/initramfs/init" "$I/init"; chmod 755 "$I/init"
queue=$I/bin/busybox
while [ -n "$queue" ]; do
  next=
  for f in $queue; do
    interp=$(readelf -l "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
    for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') ${interp:+$(basename "$interp")}; do
      [ -e "$I/lib/$so" ] && continue
      cp -L "$TARGET_DIR/lib/$so" "$I/lib/$so" || { echo "post-image.sh: $so (needed by busybox) not in $TARGET_DIR/lib" >&2; exit 1; }
      next="$next $I/lib/$so"
    done
  done
  queue=$next
done
find "$I" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$I" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --reproducible --quiet | gzip -9 -n) > "$boot/initrd.img"

case "$board" in
rpi4) fw="start_file=start4.elf
fixup_file=fixup4.dat" ;;
rpi5) fw= ;;
# the Zero 2 W's capture is a TC358743 HDMI-to-CSI bridge on the camera
# connector (2 lanes; its EDID is set at boot by hdmi-edid)
rpizero2w) fw="start_file=start.elf
fixup_file=fixup.dat
dtoverlay=tc358743" ;;
*) fw="start_file=start.elf
fixup_file=fixup.dat" ;;
esac
# The Raspberry Pi kernel's DTBs have __symbols__, so the firmware's dwc2
# overlay applies (the Debian build patches dr_mode in the DTBs instead).
export CONFIG_EXTRA="$fw
kernel=Image
initramfs initrd.img followkernel
dtoverlay=dwc2,dr_mode=peripheral"
export GADGET_DTBS=
# the Raspberry Pi kernel names the console UART serial0 (the debug UART ttyAMA10 on a Pi 5)
case "$board" in
rpi5) export CONSOLE="console=ttyAMA10,115200" ;;
*) export CONSOLE="console=serial0,115200" ;;
esac
"$here/mkcard.sh" "$bin" "$version"
echo "card: $bin/openlolo-$version-rpi.img"
