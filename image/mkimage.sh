#!/bin/sh
# openlolo: build the SD-card image offline from Debian arm64 packages and the
# static openlolo binary (make image). The card layout, init scripts and
# genimage.cfg are buildroot/board/openlolo's, shared with the Buildroot build.
#
#   image/mkimage.sh [--print-candidates]
#
# Environment (all optional):
#   OPENLOLO_BIN  static arm64 binary (default out/openlolo-linux-arm64, from make arm64)
#   VERSION       image version (default: git describe)
#   OUT           output folder (default out)
#   CACHE         download cache (default .cache/image); offline once filled
#   WORK          scratch folder (default $CACHE/work)
#   ROOT_OVERLAY  a folder whose files are added to the root (default none)
#   UPDATE_KEYS   folder of update.pub, put on the root (default keys; made on first use)
# Output: $OUT/openlolo-$VERSION-rpi.img, its .sha256 and .buildinfo (the
# inputs: VERSION, SOURCE_DATE_EPOCH, binary and package-list hashes).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
board=$top/buildroot/board/openlolo
pins=$top/image/debian/packages.lock
OUT=${OUT:-$top/out}
CACHE=${CACHE:-$top/.cache/image}
WORK=${WORK:-$CACHE/work}
OPENLOLO_BIN=${OPENLOLO_BIN:-$top/out/openlolo-linux-arm64}

die() { echo "mkimage: $*" >&2; exit 1; }
step() { echo "mkimage: $*"; }

# --- apt, private to this build: arm64 lists under $CACHE/apt ---------------
aptdir=$CACHE/apt
aptopts="-o Dir::Etc::SourceList=$top/image/debian/sources.list -o Dir::Etc::SourceParts=/nonexistent
 -o Dir::State=$aptdir/state -o Dir::State::Lists=$aptdir/lists -o Dir::State::status=$aptdir/status
 -o Dir::Cache=$aptdir/cache -o APT::Architecture=arm64 -o APT::Architectures::=arm64
 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
aptinit() {
  mkdir -p "$aptdir/state" "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
  touch "$aptdir/status"
  [ -n "$(ls "$aptdir/lists" | grep Packages)" ] || apt-get $aptopts -qq update || die "apt-get update failed (network? sources in image/debian/sources.list)"
}
pinned() { grep -v '^[[:space:]]*#' "$pins" | grep -v '^[[:space:]]*$'; }
# The kernel is the one linux-image-*-arm64 the list pins (the kernel test
# boots the same one).
KVER=$(pinned | awk '$1 ~ /^linux-image-.*-arm64$/ { sub(/^linux-image-/, "", $1); print $1 }')
case "$KVER" in ''|*[!A-Za-z0-9.-]*) die "$pins must pin exactly one linux-image-*-arm64 package (found: '$KVER')";; esac

if [ "${1:-}" = "--print-candidates" ]; then
  aptinit; apt-get $aptopts -qq update
  pinned | while read -r p v; do
    printf '%s %s\n' "$p" "$(apt-cache $aptopts policy "$p" | awk '/Candidate:/{print $2}')"
  done
  exit 0
fi
[ $# -eq 0 ] || die "unknown argument $1 (usage: image/mkimage.sh [--print-candidates])"

for t in apt-get dpkg-deb depmod modprobe readelf mksquashfs cpio gzip genimage fdtput dtc mkdosfs mcopy mke2fs qemu-aarch64-static; do
  command -v $t > /dev/null || die "$t not found; install: apt-get install genimage mtools dosfstools e2fsprogs squashfs-tools cpio kmod device-tree-compiler binutils qemu-user-static"
done
[ -f "$OPENLOLO_BIN" ] || die "no openlolo binary at $OPENLOLO_BIN: run make arm64 first (or set OPENLOLO_BIN)"
file -L "$OPENLOLO_BIN" 2>/dev/null | grep -q 'ARM aarch64.*statically linked' ||
  die "$OPENLOLO_BIN is not a static arm64 executable ($(file -bL "$OPENLOLO_BIN" | cut -c1-60)); build it with make arm64"

VERSION=${VERSION:-$(git -C "$top" describe --tags --always --dirty 2>/dev/null || echo dev)}
case "$VERSION" in *[!A-Za-z0-9._+-]*) die "VERSION '$VERSION' may hold only letters, digits and . _ + -";; esac
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH

# --- packages: exactly the pinned versions ----------------------------------
debs=$CACHE/debs
mkdir -p "$debs"
need=
for pv in $(pinned | awk '{print $1"="$2}'); do
  p=${pv%%=*} v=${pv#*=}
  f=$(printf '%s_%s_' "$p" "$v" | sed 's/:/%3a/')
  ls "$debs"/"$f"*.deb > /dev/null 2>&1 || need="$need $pv"
done
if [ -n "$need" ]; then
  step "downloading$need"
  aptinit
  (cd "$debs" && apt-get $aptopts -qq download $need) ||
    die "apt-get download failed; a pinned version may be gone from the archive: run image/mkimage.sh --print-candidates and update $pins"
fi

rm -rf "$WORK"; mkdir -p "$WORK"
P=$WORK/pkgs; mkdir -p "$P"
for pv in $(pinned | awk '{print $1"="$2}'); do
  f=$(printf '%s_%s_' "${pv%%=*}" "${pv#*=}" | sed 's/:/%3a/')
  dpkg-deb -x "$(ls "$debs"/"$f"*.deb | head -n 1)" "$P"
done
depmod -b "$P" $KVER
MODDIR=$P/lib/modules/$KVER

# mods ROOT NAME...: copy NAME's modules and their dependencies under ROOT, then depmod
mods() {
  r=$1; shift
  for m in "$@"; do
    out=$(modprobe -S $KVER -d "$P" --show-depends "$m" 2>&1) || die "kernel module $m: $out"
    echo "$out" | sed -n 's/^insmod \([^ ]*\).*/\1/p' | while read -r ko; do
      rel=${ko#"$P"/}
      mkdir -p "$r/$(dirname "$rel")"; cp "$ko" "$r/$rel"
    done
  done
  cp "$MODDIR"/modules.order "$MODDIR"/modules.builtin "$MODDIR"/modules.builtin.modinfo "$r/lib/modules/$KVER/"
  depmod -b "$r" $KVER
}

# busybox ROOT: busybox and a link for each applet (not busybox itself: that would loop)
busybox() {
  mkdir -p "$1/bin" "$1/sbin" "$1/usr/bin" "$1/usr/sbin"
  cp "$P/bin/busybox" "$1/bin/busybox"
  for a in $(qemu-aarch64-static "$P/bin/busybox" --list-full | grep -v '/busybox$'); do
    [ -e "$1/$a" ] || ln -s /bin/busybox "$1/$a"
  done
}

# --- stage 1 initramfs ------------------------------------------------------
step "initramfs"
I=$WORK/initramfs; mkdir -p "$I/proc" "$I/sys" "$I/dev" "$I/run" "$I/newroot" "$I/lib/modules/$KVER"
busybox "$I"
cp "$board/initramfs/init" "$I/init"; chmod 755 "$I/init"
mods "$I" virtio_mmio virtio_pci virtio_blk sdhci-iproc bcm2835 gpio-regulator fixed reset-raspberrypi squashfs vfat nls_cp437 nls_ascii nls_iso8859-1
find "$I" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$I" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --reproducible --quiet | gzip -9 -n) > "$WORK/initrd.img"

# --- root filesystem (squashfs) ---------------------------------------------
step "root filesystem"
R=$WORK/root
mkdir -p "$R"; for d in proc sys dev run tmp data boot lib/firmware lib/aarch64-linux-gnu etc; do mkdir -p "$R/$d"; done
busybox "$R"
cp -R "$board/rootfs-overlay/." "$R/"
# files this build adds to the root (e.g. /etc/openlolo/serve.flags; make test-update's v3)
if [ -n "${ROOT_OVERLAY:-}" ]; then
  [ -d "$ROOT_OVERLAY" ] || die "ROOT_OVERLAY $ROOT_OVERLAY is not a folder"
  cp -R "$ROOT_OVERLAY/." "$R/"
fi
install -m 0755 "$OPENLOLO_BIN" "$R/usr/bin/openlolo"
install -m 0755 "$P/sbin/wpa_supplicant" "$R/usr/sbin/wpa_supplicant"
# the setup Wi-Fi network's access point, and iw
install -m 0755 "$P/usr/sbin/hostapd" "$R/usr/sbin/hostapd"
install -m 0755 "$P/sbin/iw" "$R/usr/sbin/iw"
for t in e2fsck resize2fs; do install -m 0755 "$P/sbin/$t" "$R/usr/sbin/$t"; done
# the OCR engine openlolo_find_text runs, with its English data (appliance/ocr)
install -m 0755 "$P/usr/bin/tesseract" "$R/usr/bin/tesseract"
mkdir -p "$R/usr/share/tesseract-ocr/5/tessdata"
cp "$P/usr/share/tesseract-ocr/5/tessdata/eng.traineddata" "$R/usr/share/tesseract-ocr/5/tessdata/"
# shared libraries the dynamic tools need, by their DT_NEEDED closure
libdirs="$P/lib/aarch64-linux-gnu $P/usr/lib/aarch64-linux-gnu"
queue="$R/usr/sbin/wpa_supplicant $R/usr/sbin/hostapd $R/usr/sbin/iw $R/usr/sbin/e2fsck $R/usr/sbin/resize2fs $R/usr/bin/tesseract"
while [ -n "$queue" ]; do
  next=
  for f in $queue; do
    for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [ -e "$R/lib/aarch64-linux-gnu/$so" ] && continue
      src=
      for d in $libdirs; do [ -e "$d/$so" ] && { src=$d/$so; break; }; done
      [ -n "$src" ] || die "library $so (needed by ${f#"$R"}) is in no pinned package: add its package to $pins"
      cp -L "$src" "$R/lib/aarch64-linux-gnu/$so"
      next="$next $R/lib/aarch64-linux-gnu/$so"
    done
  done
  queue=$next
done
cp -L "$P/lib/ld-linux-aarch64.so.1" "$R/lib/ld-linux-aarch64.so.1"
# Wi-Fi firmware for the Pi 3 / 3A+ / 4 / 400 / CM4 / Zero 2 W chips
mkdir -p "$R/lib/firmware/brcm"
for f in "$P"/lib/firmware/brcm/brcmfmac4343[0-9]* "$P"/lib/firmware/brcm/brcmfmac4345[56]*; do
  [ -e "$f" ] && cp -L "$f" "$R/lib/firmware/brcm/"
done
mods "$R" configfs libcomposite usb_f_hid dwc2 phy-generic dummy_hcd uvcvideo \
  brcmfmac mac80211_hwsim ccm ctr cmac gcm aes-ce-ccm smsc95xx lan78xx genet mdio-bcm-unimac broadcom xhci-pci virtio_net virtio-rng \
  ext4 crc32c_generic vfat nls_cp437 nls_iso8859-1 nls_ascii \
  bcm2835_wdt bcm2835-rng iproc-rng200 raspberrypi-cpufreq bcm2835_thermal i2c-bcm2835 spi-bcm2835 reset-raspberrypi
# the update key: bundles signed with its private half are the only ones this root installs
KEYS=${UPDATE_KEYS:-$top/keys}
case "$KEYS" in /*) ;; *) KEYS=$top/$KEYS ;; esac
if [ ! -f "$KEYS/update.pub" ]; then
  (cd "$top" && GOTOOLCHAIN=${GOTOOLCHAIN:-local} go run ./image/bundle key -dir "$KEYS") || die "making the development update key in $KEYS failed"
fi
VERSION=$VERSION OPENLOLO_BOARD=rpi OPENLOLO_UPDATE_PUB=$KEYS/update.pub "$board/post-build.sh" "$R"
find "$R" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mksquashfs "$R" "$WORK/rootfs.squashfs" -comp xz -b 131072 -all-root -noappend -quiet -no-progress > /dev/null ||
  die "mksquashfs failed"

# --- boot partition and card --------------------------------------------------
step "card"
B=$WORK/boot; mkdir -p "$B"
cp "$P"/usr/lib/raspi-firmware/* "$B/"
cp "$P/boot/vmlinuz-$KVER" "$B/vmlinuz"
cp "$WORK/initrd.img" "$B/initrd.img"
cp "$P/usr/lib/linux-image-$KVER"/broadcom/bcm27*.dtb "$P/usr/lib/linux-image-$KVER"/broadcom/bcm28*.dtb "$B/"
CONFIG_EXTRA="upstream_kernel=1
kernel=vmlinuz
initramfs initrd.img followkernel
[pi02]
device_tree=bcm2837-rpi-zero-2-w.dtb
[all]" \
GADGET_DTBS="bcm2837-rpi-zero-2-w.dtb bcm2837-rpi-3-a-plus.dtb bcm2711-rpi-cm4-io.dtb" \
  "$board/mkcard.sh" "$WORK" "$VERSION" > /dev/null
mkdir -p "$OUT"
img=openlolo-$VERSION-rpi.img
cp --sparse=always "$WORK/$img" "$OUT/$img"
cp "$WORK/$img.sha256" "$OUT/$img.sha256"
# what the card was made from: the same inputs give the same bytes (image/test-image.sh checks)
{
  echo "VERSION=$VERSION"
  echo "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"
  echo "OPENLOLO_SHA256=$(sha256sum "$OPENLOLO_BIN" | cut -d' ' -f1)"
  echo "PACKAGES_SHA256=$(sha256sum "$pins" | cut -d' ' -f1)"
  echo "UPDATE_PUB_SHA256=$(sha256sum "$KEYS/update.pub" | cut -d' ' -f1)"
} > "$OUT/$img.buildinfo"
step "$OUT/$img: $(stat -c %s "$OUT/$img") bytes, root squashfs $(stat -c %s "$WORK/rootfs.squashfs") bytes, openlolo $(stat -c %s "$OPENLOLO_BIN") bytes"
