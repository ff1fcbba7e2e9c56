#!/bin/sh
# openlolo: check the Buildroot tree without Buildroot (CI: make
# check-buildroot, a few seconds). What a Buildroot build only finds out at
# the end, or on the box once it boots:
#   - every shell script passes shellcheck (as Buildroot's check-package runs it);
#   - every path a defconfig names inside the tree exists, and none is made
#     at build time (a plain make <board>_defconfig && make must not stop);
#   - every defconfig merges busybox.fragment, which enables what the init
#     scripts run, and builds wpa_supplicant with syslog (-s);
#   - the Go version is stated once (go-version.mk), is at least go.mod's,
#     and its tarballs' sha256 are committed;
#   - the Zero 2 W image sets up its TC358743 HDMI bridge, and the EDID it
#     loads is whole (two 128-byte blocks, header, checksums);
#   - the package's licence is Apache-2.0 and its licence files exist.
# The savedefconfig round-trip needs a Buildroot tree: check-defconfigs.sh.
# Prints a PASS or FAIL line per check and "N passed, N failed"; exits 1 on a failure.
# shellcheck disable=SC2016 # the $(...) in single quotes are Buildroot's, matched literally
set -u
ext=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$ext/.." && pwd)
pass=0 fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
# result STATUS PASS_TEXT FAIL_TEXT: STATUS is the exit status of the check
result() { if [ "$1" -eq 0 ]; then ok "$2"; else bad "$3"; fi; }

# 1. shellcheck on every script (by its #! line)
if ! command -v shellcheck > /dev/null; then
  bad "shellcheck is not installed (apt-get install shellcheck, or sh scripts/deps.sh)"
else
  scripts=$(cd "$ext" && find . -type f ! -name '*.txt' -exec sh -c 'head -c 2 "$1" | grep -q "#!"' _ {} \; -print | sort)
  n=0 bads=
  for f in $scripts; do
    n=$((n + 1))
    out=$(cd "$ext" && shellcheck --external-sources "$f" 2>&1) || bads="$bads
$out"
  done
  if [ -z "$bads" ]; then ok "shellcheck: $n scripts clean"; else bad "shellcheck:$bads"; fi
fi

# 2-3. the defconfigs
frag=$ext/board/openlolo/busybox.fragment
for cfg in "$ext"/configs/openlolo_*_defconfig; do
  name=$(basename "$cfg")
  missing=
  paths=$(grep -o '\$(BR2_EXTERNAL_OPENLOLO_PATH)/[^" ]*' "$cfg" | sed 's|^\$(BR2_EXTERNAL_OPENLOLO_PATH)/||' | sort -u)
  for p in $paths; do
    [ -e "$ext/$p" ] || missing="$missing $p"
  done
  if grep -q '\$(BASE_DIR)\|\$(O)\|\$(BUILD_DIR)' "$cfg"; then
    bad "$name names a folder in the output directory, which a plain make does not create: $(grep -o '[^"]*\$(BASE_DIR)[^" ]*\|[^"]*\$(O)[^" ]*' "$cfg" | head -n 1)"
  elif [ -n "$missing" ]; then
    bad "$name names files the tree does not have:$missing"
  else
    ok "$name: every path it names is in the tree"
  fi
  grep -qx 'BR2_PACKAGE_BUSYBOX_CONFIG_FRAGMENT_FILES=".*\$(BR2_EXTERNAL_OPENLOLO_PATH)/board/openlolo/busybox.fragment.*"' "$cfg"
  result $? "$name merges busybox.fragment" "$name does not merge board/openlolo/busybox.fragment (BR2_PACKAGE_BUSYBOX_CONFIG_FRAGMENT_FILES)"
  grep -qx 'BR2_PACKAGE_WPA_SUPPLICANT_DEBUG_SYSLOG=y' "$cfg"
  result $? "$name builds wpa_supplicant with -s (syslog)" \
    "$name lacks BR2_PACKAGE_WPA_SUPPLICANT_DEBUG_SYSLOG=y: wpa_supplicant -s prints its usage and exits, and Wi-Fi never joins"
done
want="BLOCKDEV FEATURE_IPC_SYSLOG LOGREAD STAT FEATURE_STAT_FORMAT TELNETD FEATURE_TELNETD_STANDALONE"
lacks=
for o in $want; do grep -qx "CONFIG_$o=y" "$frag" || lacks="$lacks $o"; done
[ -z "$lacks" ]; result $? "busybox.fragment enables $want" "busybox.fragment lacks:$lacks"

# 4. Go: one version, at least go.mod's, with committed hashes
gover=$(sed -n 's/^override GO_VERSION = //p' "$ext/board/openlolo/go-version.mk")
gomod=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$top/go.mod")
hashes=$ext/patches/go-bin/go-bin.hash
if [ -z "$gover" ]; then
  bad "board/openlolo/go-version.mk sets no GO_VERSION"
else
  [ "$(printf '%s\n%s\n' "$gomod" "$gover" | sort -V | head -n 1)" = "$gomod" ]
  result $? "Go $gover (go-version.mk) satisfies go.mod's go $gomod" "Go $gover (go-version.mk) is older than go.mod's go $gomod"
  lacks=
  for f in "go$gover.src.tar.gz" "go$gover.linux-amd64.tar.gz" "go$gover.linux-arm64.tar.gz"; do
    grep -qE "^sha256  [0-9a-f]{64}  $f\$" "$hashes" 2>/dev/null || lacks="$lacks $f"
  done
  [ -z "$lacks" ]
  result $? "patches/go-bin/go-bin.hash has the sha256 of Go $gover's tarballs" "patches/go-bin/go-bin.hash has no sha256 for:$lacks"
  others=$(grep -o 'go[0-9][0-9.]*[0-9]\.' "$hashes" 2>/dev/null | sort -u | grep -vx "go$gover.")
  [ -z "$others" ]
  result $? "the hash file names no other Go version" "patches/go-bin/go-bin.hash names other Go versions: $others"
fi
elsewhere=$(grep -rlE 'GO_VERSION *[:?]?= *[0-9]' "$ext" | grep -v 'go-version.mk$')
[ -z "$elsewhere" ]
result $? "the Go version is set in go-version.mk only" "GO_VERSION is set outside go-version.mk: $elsewhere"

# 5. the Zero 2 W's HDMI bridge
z=$ext/configs/openlolo_rpizero2w_defconfig
if grep -qx 'BR2_PACKAGE_LIBV4L_UTILS=y' "$z" &&
   sed -n '/^rpizero2w)/,/;;/p' "$ext/board/openlolo/post-image.sh" | grep -q '^dtoverlay=tc358743' &&
   grep -q 'hdmi-edid' "$ext/board/openlolo/rootfs-overlay/etc/init.d/rcS"; then
  ok "the Zero 2 W loads dtoverlay=tc358743, has v4l2-ctl, and rcS sets the EDID"
else
  bad "the Zero 2 W's TC358743: dtoverlay=tc358743 in post-image.sh, BR2_PACKAGE_LIBV4L_UTILS in its defconfig and hdmi-edid in rcS are all needed"
fi
edid=$ext/board/openlolo/rootfs-overlay/usr/share/openlolo/edid-1080p30.txt
if msg=$(tr ' ' '\n' < "$edid" | grep . | awk '
  !/^[0-9a-fA-F][0-9a-fA-F]$/ { print "not hex: " $0; bad = 1; exit }
  { d = "0123456789abcdef"; x = tolower($0); b[n++] = (index(d, substr(x, 1, 1)) - 1) * 16 + index(d, substr(x, 2, 1)) - 1 }
  END {
    if (bad) exit 1
    if (n != 256) { print n " bytes, not 256"; exit 1 }
    split("0 255 255 255 255 255 255 0", h, " ")
    for (i = 0; i < 8; i++) if (b[i] != h[i + 1]) { print "no EDID header"; exit 1 }
    if (b[126] != 1) { print "the base block announces " b[126] " extensions, not 1"; exit 1 }
    if (b[128] != 2) { print "block 1 is not a CTA-861 extension"; exit 1 }
    for (k = 0; k < 2; k++) { s = 0; for (i = 0; i < 128; i++) s += b[k * 128 + i]
      if (s % 256) { print "block " k " checksum is wrong"; exit 1 } }
  }' 2>&1); then
  ok "the EDID is two blocks with header and checksums"
else
  bad "rootfs-overlay/usr/share/openlolo/edid-1080p30.txt: $msg"
fi

# 6. the licence: legal-info stops at a LICENSE_FILES entry that is missing
mk=$ext/package/openlolo/openlolo.mk
lic=$(sed -n 's/^OPENLOLO_LICENSE = //p' "$mk")
files=$(sed -n 's/^OPENLOLO_LICENSE_FILES = //p' "$mk")
missing=
for f in $files; do [ -f "$top/$f" ] || missing="$missing $f"; done
if [ "$lic" = Apache-2.0 ] && [ -n "$files" ] && [ -z "$missing" ]; then
  ok "openlolo.mk: OPENLOLO_LICENSE = $lic, and its LICENSE_FILES ($files) are at the root"
else
  bad "openlolo.mk: OPENLOLO_LICENSE is '$lic' (want Apache-2.0), OPENLOLO_LICENSE_FILES '$files'${missing:+, missing:$missing}"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
