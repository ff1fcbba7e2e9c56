-- The box's owner: one row once the box is claimed. The passphrase is kept
-- as an argon2id hash with its own salt and the parameters it was made with,
-- so the parameters can change later without breaking old hashes.
CREATE TABLE owner (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	hash        BLOB    NOT NULL,
	salt        BLOB    NOT NULL,
	time_cost   INTEGER NOT NULL,
	memory_kib  INTEGER NOT NULL,
	threads     INTEGER NOT NULL,
	created     INTEGER NOT NULL,
	updated     INTEGER NOT NULL
) STRICT;

-- The setup code of an unclaimed box. It is the one secret kept in clear:
-- the box prints it at every start (console, boot partition) until the
-- claim, which deletes it.
CREATE TABLE owner_setup (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	code    TEXT    NOT NULL,
	created INTEGER NOT NULL
) STRICT;

-- Owner sessions on the box page. id_hash is the SHA-256 of the cookie value.
CREATE TABLE owner_sessions (
	id_hash   BLOB    PRIMARY KEY,
	created   INTEGER NOT NULL,
	last_seen INTEGER NOT NULL
) STRICT;

-- Failed attempts (kind 'claim' or 'login') for the rate limits, and the
-- locks they set.
CREATE TABLE owner_failures (
	kind TEXT    NOT NULL,
	at   INTEGER NOT NULL
) STRICT;
CREATE INDEX owner_failures_kind_at ON owner_failures(kind, at);

CREATE TABLE owner_locks (
	kind  TEXT    PRIMARY KEY,
	until INTEGER NOT NULL
) STRICT;
