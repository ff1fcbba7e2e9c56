#!/bin/sh
# Installs the Debian packages the build and the tests need, if any are
# missing (make test and .ci/run call it). When all are there it changes
# nothing and takes well under a second. Needs root or sudo for apt-get.
#
# It installs without recommended packages (a fresh Debian 12 with only Go
# gets exactly this list); a recommended package a test relies on is named
# here explicitly (ipxe-qemu).
set -eu

# What each package is for:
#   gcc libc6-dev                     cgo (mattn/go-sqlite3) for this machine
#   gcc-aarch64-linux-gnu
#   libc6-dev-arm64-cross             the static arm64 binary (make arm64)
#   libturbojpeg0-dev(:arm64)         fast JPEG screenshots in the host and the static arm64 binary
#   qemu-user-static                  runs the arm64 binary (scripts/test-arm64.sh, image build)
#   qemu-system-arm                   boots Debian's arm64 kernel and the SD image (test-kernel, test-image)
#   ipxe-qemu                         efi-virtio.rom: QEMU's -M virt adds a PCI network card and stops
#                                     without its option ROM (test-kernel); qemu-system-arm only recommends it
#   kmod                              depmod for the kernel's modules.dep
#   genimage mtools dosfstools e2fsprogs squashfs-tools cpio xz-utils
#   device-tree-compiler binutils fdisk debian-archive-keyring
#                                     the SD image (make image) and its unit tests
#   bsdextrautils                     hexdump, which the box's init scripts use (image/rootfs tests run them)
#   curl                              pinned curl tests (scripts/, oauth and mcp curl walkthroughs)
#   openssl                           certificates for the Python SDK's fake boxes
#   file                              checks the arm64 binary is static aarch64
#   iproute2                          network namespaces for the mDNS and tailnet tests
#   python3                           the Python SDK's tests (if the machine has none)
#   python3-venv python3-setuptools
#   python3-wheel python3-pip
#   python3-wheel-whl                 pip install ./packages/sdk-python, offline, into a venv over Debian's
#                                     packages or a plain one (scripts/test-python-install.sh)
#   mypy                              mypy --strict on the Python SDK (make lint): the mypy package ships the
#                                     /usr/bin/mypy command (python3-mypy, which it depends on, only the module);
#                                     the Makefile calls that path, so a python3 first on PATH that is not
#                                     Debian's (pyenv) does not matter
#   (lint) shellcheck                 the Buildroot tree's scripts (buildroot/check-tree.sh, in CI)
#   nodejs npm                        the Node MCP client test (if the machine has none)
#   make git ca-certificates          the build itself, Go module downloads
#   coreutils                         dirname, mktemp, sha256sum … in the scripts (Essential in Debian, named
#                                     so a trimmed image gets it; .ci/run itself finds the root without it)
#   usbmuxd                           the iPhone backend's no-device test (scripts/test-usbmuxd.sh)
#   adb                               Debian's adb client checks the fake Android device (hw/adb's interop test)
#   tesseract-ocr tesseract-ocr-eng   the OCR engine openlolo_find_text runs (appliance/ocr's tests read the sim)
#   chromium                          the browser of make test-browser (headless, driven by chromedp); its
#                                     Depends carry every library it needs; of its recommends the tests need
#                                     none (chromium-sandbox: the suite runs it with --no-sandbox as root;
#                                     fonts-liberation: the pages ask for system-ui and monospace, not Arial;
#                                     libgl1-mesa-dri, upower, udev, a notification daemon: not headless)
#   fonts-dejavu-core                 the sans and mono faces fontconfig gives system-ui and monospace, so
#                                     the screenshots have readable text and real line widths
PACKAGES="gcc libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross libturbojpeg0-dev libturbojpeg0-dev:arm64
qemu-user-static qemu-system-arm ipxe-qemu kmod genimage mtools dosfstools e2fsprogs squashfs-tools cpio xz-utils
device-tree-compiler binutils fdisk debian-archive-keyring bsdextrautils curl openssl file iproute2
make git ca-certificates coreutils python3-venv python3-setuptools python3-wheel python3-wheel-whl python3-pip mypy shellcheck usbmuxd adb
tesseract-ocr tesseract-ocr-eng chromium fonts-dejavu-core"
command -v python3 >/dev/null || PACKAGES="$PACKAGES python3"
{ command -v node && command -v npm; } >/dev/null || PACKAGES="$PACKAGES nodejs npm"

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# arm64 packages (libturbojpeg for the Pi; the kernel test's kernel and
# busybox, which it fetches with apt-get download) need the architecture.
update=no
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
	update=yes
fi
# One dpkg-query for the whole list: the names it reports as installed
# (an arm64 name is asked for and matched with its :arm64 suffix).
# shellcheck disable=SC2086
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture}\n' $PACKAGES 2>/dev/null |
	sed -n 's/^ii  *//p')
native=$(dpkg --print-architecture)
missing=""
for p in $PACKAGES; do
	case $p in
	*:*) want=$p ;;
	*) want="$p:$native|$p:all" ;;
	esac
	printf '%s\n' "$installed" | grep -qxE "$want" || missing="$missing $p"
done
# The kernel test downloads arm64 packages with apt-get download: the
# arm64 package lists must be there even when nothing is missing.
if [ -z "$missing" ] && [ "$update" = no ] && ls /var/lib/apt/lists/*_binary-arm64_Packages* >/dev/null 2>&1; then
	exit 0
fi
$SUDO apt-get update
if [ -n "$missing" ]; then
	echo "installing:$missing"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y --no-install-recommends $missing
fi
