-- Device requests carry the name they asked in, so a request with the
-- client_id of an existing client renames nothing until the owner approves
-- it ('' when the request gave no client_name).
ALTER TABLE oauth_device_requests ADD COLUMN client_name TEXT NOT NULL DEFAULT '';

-- A used refresh token remembers the pair its rotation issued: successor is
-- the SHA-256 of that refresh token, retry_blob the pair sealed with a key
-- derived from the used token itself (AES-GCM), so only the holder of the
-- used token can read it again. It lets the box answer a refresh retried
-- after a lost answer with the same pair, for a short window while the
-- successor is unused; the blob is cleared once that can no longer happen.
ALTER TABLE oauth_tokens ADD COLUMN successor TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_tokens ADD COLUMN retry_blob BLOB;

-- Whether the authorization request carried redirect_uri (RFC 6749
-- §4.1.3: the token request must repeat it only then).
ALTER TABLE oauth_auth_codes ADD COLUMN redirect_sent INTEGER NOT NULL DEFAULT 1;
