#!/bin/sh
# curl-device.sh: docs/wire.md's curl walkthrough against a real box, pinned.
#
#   curl-device.sh BOX PIN APPROVE
#
#   BOX      the entry's base URL, e.g. https://openlolo-ab12.local
#   PIN      the box's SPKI pin for curl --pinnedpubkey, "sha256//<base64>"
#            (the Connect page and `openlolo fingerprint` show it)
#   APPROVE  a command run as: APPROVE <handle> <user_code> <verification_uri>
#            that approves the request (for example a curl session on the
#            Access page), or "manual" to wait while a person approves it on
#            the box page.
#
# Environment: CALL_PATH (default /mcp) is the protected endpoint called with
# the bearer token; MCP=0 calls it with GET and expects 200 instead of an MCP
# tools/call of openlolo_status.
#
# It checks: a wrong pin is refused; the metadata lists the device grant;
# device authorization (client_name=curl) answers a XXXX-XXXX user code,
# interval 5 and a client_id; after approval /token returns tokens; the
# bearer works; a refresh rotates; the old refresh token is then refused and
# takes the grant with it. Needs only curl and sed. Exit 0 = all passed.
set -eu

if [ $# -ne 3 ]; then
	sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
BOX=${1%/}
PIN=$2
APPROVE=$3
CALL_PATH=${CALL_PATH:-/mcp}
MCP=${MCP:-1}

fail() { echo "curl-device: FAIL: $*" >&2; exit 1; }
say() { echo "curl-device: $*" >&2; }

# -k only skips the CA check of the self-signed certificate;
# --pinnedpubkey still checks the key on every connection.
c() { curl -sS -k --pinnedpubkey "$PIN" --max-time 20 "$@"; }

# field NAME JSON: the string or number value of a top-level field.
field() {
	printf '%s' "$2" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p; t; s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" | head -n 1
}

# status+body of a POST: prints the body, sets $STATUS.
post() {
	path=$1; shift
	out=$(c -X POST -w '\n%{http_code}' "$BOX$path" "$@") || fail "POST $path: curl failed"
	STATUS=$(printf '%s\n' "$out" | tail -n 1)
	BODY=$(printf '%s\n' "$out" | sed '$d')
}

# 1. A wrong pin must be refused before anything is sent.
if curl -sS -k --pinnedpubkey 'sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' --max-time 10 \
	-o /dev/null "$BOX/.well-known/oauth-authorization-server" 2>/dev/null; then
	fail "a wrong --pinnedpubkey was accepted"
fi

# 2. Discover.
meta=$(c "$BOX/.well-known/oauth-authorization-server") || fail "metadata: curl failed (wrong pin?)"
case $meta in
*'urn:ietf:params:oauth:grant-type:device_code'*) ;;
*) fail "grant_types_supported lacks the device_code grant: $meta" ;;
esac

# 3. Ask for approval.
post /oauth/device_authorization -d client_name=curl -d 'scope=phone:read phone:control'
[ "$STATUS" = 200 ] || fail "device_authorization answered $STATUS: $BODY"
DEVICE_CODE=$(field device_code "$BODY")
USER_CODE=$(field user_code "$BODY")
VERIFY=$(field verification_uri "$BODY")
CLIENT_ID=$(field client_id "$BODY")
INTERVAL=$(field interval "$BODY")
[ -n "$DEVICE_CODE" ] && [ -n "$CLIENT_ID" ] || fail "device_authorization answer incomplete: $BODY"
printf '%s' "$USER_CODE" | grep -Eq '^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$' || fail "user_code $USER_CODE"
[ "$INTERVAL" = 5 ] || fail "interval $INTERVAL, want 5"
HANDLE=${VERIFY##*r=}
say "Approve 'curl' on the box page (Access). Code $USER_CODE ($VERIFY)"
if [ "$APPROVE" != manual ]; then
	$APPROVE "$HANDLE" "$USER_CODE" "$VERIFY" || fail "the approve command failed"
fi

# 4. Poll.
tries=0
while :; do
	sleep "$INTERVAL"
	post /token -d grant_type=urn:ietf:params:oauth:grant-type:device_code \
		-d "device_code=$DEVICE_CODE" -d "client_id=$CLIENT_ID"
	[ "$STATUS" = 200 ] && break
	case $(field error "$BODY") in
	authorization_pending) ;;
	slow_down) INTERVAL=$((INTERVAL + 5)) ;;
	*) fail "/token answered $STATUS: $BODY" ;;
	esac
	tries=$((tries + 1))
	[ $tries -lt 120 ] || fail "not approved in time"
done
ACCESS=$(field access_token "$BODY")
REFRESH=$(field refresh_token "$BODY")
[ -n "$ACCESS" ] && [ -n "$REFRESH" ] || fail "token answer incomplete: $BODY"
say "tokens issued (scope $(field scope "$BODY"))"

# 5. Call with the bearer.
call() {
	if [ "$MCP" = 1 ]; then
		c -o /dev/null -w '%{http_code}' "$BOX$CALL_PATH" -H "Authorization: Bearer $1" \
			-H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \
			-d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openlolo_status","arguments":{}}}'
	else
		c -o /dev/null -w '%{http_code}' "$BOX$CALL_PATH" -H "Authorization: Bearer $1"
	fi
}
s=$(call "$ACCESS")
[ "$s" = 200 ] || fail "call with the access token answered $s"

# 6. Refresh rotates; the old refresh token is refused and revokes the grant.
post /token -d grant_type=refresh_token -d "refresh_token=$REFRESH" -d "client_id=$CLIENT_ID"
[ "$STATUS" = 200 ] || fail "refresh answered $STATUS: $BODY"
ACCESS2=$(field access_token "$BODY")
REFRESH2=$(field refresh_token "$BODY")
[ -n "$REFRESH2" ] && [ "$REFRESH2" != "$REFRESH" ] || fail "refresh did not rotate: $BODY"
s=$(call "$ACCESS2")
[ "$s" = 200 ] || fail "call with the refreshed token answered $s"
post /token -d grant_type=refresh_token -d "refresh_token=$REFRESH" -d "client_id=$CLIENT_ID"
[ "$STATUS" = 400 ] && [ "$(field error "$BODY")" = invalid_grant ] || fail "old refresh token answered $STATUS: $BODY"
s=$(call "$ACCESS2")
[ "$s" = 401 ] || fail "after the reuse the grant should be revoked; the call answered $s"
say "ok: device flow, bearer, rotation and reuse detection all behave"
