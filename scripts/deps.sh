#!/bin/sh
# Installs the Debian packages the build and the tests need, if any are
# missing (make test and .ci/run call it; it does nothing when all are
# there). Needs root or sudo for apt-get.
set -eu

# What each package is for:
#   gcc libc6-dev                     cgo (mattn/go-sqlite3) for this machine
#   gcc-aarch64-linux-gnu
#   libc6-dev-arm64-cross             the static arm64 binary (make arm64)
#   libturbojpeg0-dev(:arm64)         fast JPEG screenshots in the host and the static arm64 binary
#   qemu-user-static                  runs the arm64 binary (scripts/test-arm64.sh, image build)
#   qemu-system-arm                   boots Debian's arm64 kernel and the SD image (test-kernel, test-image)
#   kmod                              depmod for the kernel's modules.dep
#   genimage mtools dosfstools e2fsprogs squashfs-tools cpio xz-utils
#   device-tree-compiler binutils fdisk debian-archive-keyring
#                                     the SD image (make image) and its unit tests
#   curl                              pinned curl tests (scripts/, oauth and mcp curl walkthroughs)
#   openssl                           certificates for the Python SDK's fake boxes
#   file                              checks the arm64 binary is static aarch64
#   iproute2                          network namespaces for the mDNS and tailnet tests
#   python3                           the Python SDK's tests (if the machine has none)
#   python3-venv python3-setuptools
#   python3-wheel python3-pip         pip install ./packages/sdk-python, offline (scripts/test-python-install.sh)
#   nodejs npm                        the Node MCP client test (if the machine has none)
#   make git ca-certificates          the build itself, Go module downloads
PACKAGES="gcc libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross libturbojpeg0-dev libturbojpeg0-dev:arm64
qemu-user-static qemu-system-arm kmod genimage mtools dosfstools e2fsprogs squashfs-tools cpio xz-utils
device-tree-compiler binutils fdisk debian-archive-keyring curl openssl file iproute2 make git ca-certificates
python3-venv python3-setuptools python3-wheel python3-pip"
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
missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && [ "$update" = no ] && exit 0
$SUDO apt-get update
if [ -n "$missing" ]; then
	echo "installing:$missing"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y --no-install-recommends $missing
fi
