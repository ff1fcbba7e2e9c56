#!/bin/sh
# docs/wire.md's call of openlolo_status with curl: one POST, no initialize,
# no session. Usage: curl-status.sh BOX_URL SPKI_PIN TOKEN
#   BOX_URL  e.g. https://openlolo-ab12.local (or an IP)
#   SPKI_PIN the box's public-key pin, sha256//<base64> (openlolo fingerprint
#            prints it); curl then checks the self-signed certificate by pin
#   TOKEN    an access token from the device flow
# It exits 0 only when the answer is a tools/call result with status "ok".
set -eu
if [ $# -ne 3 ]; then
	echo "usage: $0 BOX_URL SPKI_PIN TOKEN" >&2
	exit 2
fi
box=$1 pin=$2 token=$3
case $pin in sha256//*) ;; *) pin="sha256//$pin" ;; esac
out=$(curl -sS --fail-with-body -k --pinnedpubkey "$pin" "$box/mcp" \
	-H "Authorization: Bearer $token" \
	-H 'Accept: application/json, text/event-stream' \
	-H 'Content-Type: application/json' \
	-d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}')
echo "$out"
case $out in
*'"structuredContent":{'*'"status":"ok"'*) exit 0 ;;
*) echo "curl-status: the answer is not an ok openlolo_status result" >&2; exit 1 ;;
esac
