-- The operation journal: one row per mutating tool call. id is the
-- client's operation_id (or one the box generated); fingerprint is a keyed
-- HMAC of the tool and its arguments, so typed text never reaches the file;
-- answer is the JSON answer the call returned (no images, no typed text).
CREATE TABLE operations (
	id          TEXT PRIMARY KEY,
	client_id   TEXT NOT NULL,
	client_name TEXT NOT NULL,
	tool        TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN
		('queued', 'dispatched', 'succeeded', 'failed', 'cancelled', 'outcome_unknown')),
	code        TEXT NOT NULL DEFAULT '',
	answer      TEXT NOT NULL DEFAULT '',
	created     INTEGER NOT NULL,
	updated     INTEGER NOT NULL
) STRICT;
CREATE INDEX operations_created ON operations(created);

-- Events for openlolo_watch: the row id is the cursor. client_id is empty
-- for events everyone may see, else the only client that sees it.
CREATE TABLE events (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	kind      TEXT NOT NULL,
	client_id TEXT NOT NULL DEFAULT '',
	data      TEXT NOT NULL
) STRICT;
