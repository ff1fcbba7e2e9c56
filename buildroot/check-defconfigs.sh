#!/bin/sh
# openlolo: check the defconfigs offline against a Buildroot tree: for each
# board, make <board>_defconfig then savedefconfig, and diff with the file in
# configs/. Kconfig drops options whose dependencies are unmet without a
# word; this catches them. Needs only make and a host C compiler.
#
#   buildroot/check-defconfigs.sh BUILDROOT_DIR
#
# Prints "N passed, N failed"; exits 1 on a difference.
set -u
if [ $# -ne 1 ] || [ ! -f "$1/Makefile" ]; then
  echo "usage: check-defconfigs.sh BUILDROOT_DIR (a Buildroot 2026.05.1 tree)" >&2; exit 2
fi
br=$(cd "$1" && pwd)
ext=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for cfg in "$ext"/configs/openlolo_*_defconfig; do
  name=$(basename "$cfg")
  o=$tmp/${name%_defconfig}
  mkdir -p "$o"
  if ! make -s -C "$br" O="$o" BR2_EXTERNAL="$ext" "$name" > "$o.log" 2>&1 ||
     ! make -s -C "$br" O="$o" savedefconfig BR2_DEFCONFIG="$o/saved" >> "$o.log" 2>&1; then
    echo "FAIL $name: make failed:"; tail -n 5 "$o.log"; fail=$((fail + 1)); continue
  fi
  if diff -u "$cfg" "$o/saved" > "$o.diff"; then
    echo "PASS $name: savedefconfig round-trip is identical"; pass=$((pass + 1))
  else
    echo "FAIL $name: Kconfig changed the defconfig (dropped or added options):"; cat "$o.diff"; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
