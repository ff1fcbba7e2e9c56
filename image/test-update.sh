#!/bin/sh
# openlolo: the A/B update test (make test-update), after make image (the
# card of v1; make test-update makes it when missing) and make build. It builds two more versions of the root from the same
# inputs (v2, and a v3 whose serve cannot start its phone backend, so it
# fails its self-check), bundles and signs them (make update-bundle's
# image/mkbundle.sh), then runs the update scenario of image/boottest on
# the card of make image: PASS/FAIL lines, "N passed, N failed" last.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
img=out/openlolo-$VERSION-rpi.img
[ -f "$img.buildinfo" ] || { echo "test-update: $img is missing; run make image first" >&2; exit 1; }
[ -x bin/openlolo ] || { echo "test-update: bin/openlolo is missing; run make build first" >&2; exit 1; }
epoch=$(sed -n 's/^SOURCE_DATE_EPOCH=//p' "$img.buildinfo")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
for n in 2 3; do
  v=$VERSION-u$n
  overlay=$tmp/overlay$n
  mkdir -p "$overlay/etc/openlolo"
  if [ $n = 3 ]; then
    printf '# test-update: this version cannot start its phone backend, so it fails its self-check\n--phone nosuch\n' > "$overlay/etc/openlolo/serve.flags"
  fi
  echo "== building $v (SOURCE_DATE_EPOCH $((epoch + 60 * n)))"
  VERSION=$v SOURCE_DATE_EPOCH=$((epoch + 60 * n)) OUT=$tmp/out WORK=$tmp/work$n ROOT_OVERLAY=$overlay \
    sh image/mkimage.sh > "$tmp/build$n.log" 2>&1 || { cat "$tmp/build$n.log"; exit 1; }
  VERSION=$v OUT=$tmp/out WORK=$tmp/work$n sh image/mkbundle.sh
  rm -rf "$tmp/work$n" "$tmp/out/openlolo-$v-rpi.img"
done
echo "FIGURE building and signing two bundles: $(( $(date +%s) - start )) s"
GOTOOLCHAIN=local go run ./image/boottest -image "$img" -work "$tmp/boot" -raspi3b=false \
  -update-v2 "$tmp/out/openlolo-$VERSION-u2-rpi.update" -update-v3 "$tmp/out/openlolo-$VERSION-u3-rpi.update" \
  -openlolo bin/openlolo ${BOOTTEST_FLAGS:-}
