-- OAuth: clients, device authorization requests, grants, tokens and
-- authorization codes. Secrets (device codes, tokens, codes) are stored only
-- as the hex SHA-256 of the value handed out. Times are unix milliseconds
-- UTC; 0 means "not set" (never used, never revoked, no expiry).

-- A client is one entry under Access: a script that asked through the device
-- flow (kind 'device') or an MCP client that registered itself (RFC 7591,
-- kind 'registered'). A client belongs to the entry that created it.
CREATE TABLE oauth_clients (
	client_id     TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	kind          TEXT NOT NULL CHECK (kind IN ('device', 'registered')),
	redirect_uris TEXT NOT NULL DEFAULT '', -- newline-separated, registered clients only
	entry         TEXT NOT NULL,
	created_ms    INTEGER NOT NULL
) STRICT;

-- A grant is what the owner approved: scopes for one client on one entry,
-- for a life chosen at approval ('24h', '30d' renewed on refresh,
-- 'forever'). Revoking it kills every token issued under it.
CREATE TABLE oauth_grants (
	grant_id     TEXT PRIMARY KEY,
	client_id    TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
	scopes       TEXT NOT NULL,
	entry        TEXT NOT NULL,
	life         TEXT NOT NULL CHECK (life IN ('24h', '30d', 'forever')),
	created_ms   INTEGER NOT NULL,
	expires_ms   INTEGER NOT NULL DEFAULT 0,
	revoked_ms   INTEGER NOT NULL DEFAULT 0,
	last_used_ms INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

-- A device authorization request (RFC 8628). handle names it in the
-- verification URI; device_hash is the SHA-256 of the device_code.
CREATE TABLE oauth_device_requests (
	handle       TEXT PRIMARY KEY,
	device_hash  TEXT NOT NULL UNIQUE,
	user_code    TEXT NOT NULL,
	client_id    TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
	scopes       TEXT NOT NULL,
	entry        TEXT NOT NULL,
	status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'replaced', 'used')),
	grant_id     TEXT REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
	interval_s   INTEGER NOT NULL,
	last_poll_ms INTEGER NOT NULL DEFAULT 0,
	created_ms   INTEGER NOT NULL,
	expires_ms   INTEGER NOT NULL
) STRICT;
CREATE INDEX oauth_device_requests_client ON oauth_device_requests (client_id);
CREATE INDEX oauth_device_requests_status ON oauth_device_requests (status, expires_ms);

-- Access and refresh tokens of a grant. A refresh token is used once:
-- used_ms records when, so presenting it again is detected.
CREATE TABLE oauth_tokens (
	hash       TEXT PRIMARY KEY,
	grant_id   TEXT NOT NULL REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
	created_ms INTEGER NOT NULL,
	expires_ms INTEGER NOT NULL DEFAULT 0,
	used_ms    INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id, kind);

-- Authorization codes of the browser flow (PKCE S256), single use.
CREATE TABLE oauth_auth_codes (
	hash           TEXT PRIMARY KEY,
	grant_id       TEXT NOT NULL REFERENCES oauth_grants (grant_id) ON DELETE CASCADE,
	redirect_uri   TEXT NOT NULL,
	code_challenge TEXT NOT NULL,
	created_ms     INTEGER NOT NULL,
	expires_ms     INTEGER NOT NULL,
	used_ms        INTEGER NOT NULL DEFAULT 0
) STRICT;
