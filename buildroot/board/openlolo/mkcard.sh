#!/bin/sh
# openlolo: assemble the SD card from a build's outputs. Used by both builds:
# image/mkimage.sh (offline, Debian packages) and post-image.sh (Buildroot).
#
#   mkcard.sh DIR VERSION
#
# DIR holds rootfs.squashfs and boot/ (firmware, kernel, initramfs, DTBs).
# Environment: CONFIG_EXTRA (lines appended to config.txt), GADGET_DTBS (DTB
# file names whose OTG port is switched to peripheral mode), CONSOLE (the
# serial console argument, default console=ttyS1,115200: the mini UART in the
# upstream device trees), SOURCE_DATE_EPOCH.
# Writes DIR/openlolo-VERSION-rpi.img and its .sha256. Same inputs, same bytes.
set -eu
[ $# -eq 2 ] || { echo "usage: mkcard.sh DIR VERSION" >&2; exit 2; }
dir=$1 version=$2
here=$(cd "$(dirname "$0")" && pwd)
: "${SOURCE_DATE_EPOCH:?mkcard.sh: set SOURCE_DATE_EPOCH (seconds) so the card is reproducible}"
export SOURCE_DATE_EPOCH
for f in "$dir/rootfs.squashfs" "$dir/boot"; do
  [ -e "$f" ] || { echo "mkcard.sh: $f is missing" >&2; exit 1; }
done
for t in genimage fdtput dtc mkdosfs mcopy mke2fs sha256sum; do
  command -v $t > /dev/null || { echo "mkcard.sh: $t not found (apt-get install genimage device-tree-compiler dosfstools mtools e2fsprogs)" >&2; exit 1; }
done

# stable per version: the MBR disk signature (root is PARTUUID=<sig>-02) and the data fs UUID
sum=$(printf 'openlolo-%s' "$version" | sha256sum | cut -c1-40)
sig=$(echo "$sum" | cut -c1-8)
uuid=$(echo "$sum" | cut -c9-40 | sed 's/^\(........\)\(....\).\(...\).\(...\)\(............\)$/\1-\2-4\3-a\4-\5/')
name=openlolo-$version-rpi.img

boot=$dir/card/boot
rm -rf "$dir/card" "$dir/genimage.tmp"
mkdir -p "$boot/overlays" "$boot/openlolo"
cp -R "$dir/boot/." "$boot/"
for d in ${GADGET_DTBS:-}; do
  [ -f "$boot/$d" ] || { echo "mkcard.sh: GADGET_DTBS names $d, which is not in boot/" >&2; exit 1; }
  fdtput -t s "$boot/$d" /soc/usb@7e980000 dr_mode peripheral
done
dtc -q -@ -I dts -O dtb -o "$boot/overlays/dwc2-peripheral.dtbo" "$here/dwc2-peripheral.dts"
{ cat "$here/config.txt"; printf '%s\n' "${CONFIG_EXTRA:-}"; } > "$boot/config.txt"
sed -e "s/@DISK_SIGNATURE@/$sig/g" -e "s/@CONSOLE@/${CONSOLE:-console=ttyS1,115200}/g" "$here/cmdline.txt" > "$boot/cmdline.txt"
cat > "$boot/openlolo/README.txt" <<TXT
openlolo $version

Wi-Fi: put a file named wifi.txt in this folder with three lines:
  ssid=YourNetwork
  psk=YourPassword
  country=GB
then put the card in the Pi. A wired network needs nothing.

After the first boot, setup-code.txt in this folder holds the code that
claims the box at https://openlolo-xxxx.local. It is deleted once the box
is claimed.
TXT
find "$dir/card" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

sed -e "s/@DISK_SIGNATURE@/$sig/g" -e "s/@DATA_UUID@/$uuid/g" \
    -e "s/@FS_TIMESTAMP@/$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S)/g" \
    -e "s/@IMAGE_NAME@/$name/g" "$here/genimage.cfg" > "$dir/genimage.cfg"
rm -f "$dir/$name" "$dir/$name.sha256" "$dir/boot.vfat" "$dir/data.ext4"
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH genimage --config "$dir/genimage.cfg" \
  --rootpath "$dir/card" --tmppath "$dir/genimage.tmp" --inputpath "$dir" --outputpath "$dir" > "$dir/genimage.log" 2>&1 ||
  { cat "$dir/genimage.log" >&2; echo "mkcard.sh: genimage failed" >&2; exit 1; }
rm -rf "$dir/genimage.tmp"
(cd "$dir" && sha256sum "$name" > "$name.sha256")
echo "$dir/$name"
