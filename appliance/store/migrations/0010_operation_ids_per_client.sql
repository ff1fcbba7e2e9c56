-- Operation ids are the client's: one client's ids never collide with
-- another's (DESIGN §3.5). The journal, its thumbnails and the asks are
-- keyed by (client_id, id) instead of id alone. SQLite cannot change a
-- key in place, so each table is copied into its new shape. The
-- thumbnails go first and lose their foreign key (a key to a table being
-- replaced would cascade its deletes): a trigger takes them with their
-- operation instead.
CREATE TABLE operation_thumbs_new (
	client_id    TEXT NOT NULL,
	operation_id TEXT NOT NULL,
	width INTEGER NOT NULL,
	height INTEGER NOT NULL,
	jpeg BLOB NOT NULL,
	PRIMARY KEY (client_id, operation_id)
);
INSERT INTO operation_thumbs_new (client_id, operation_id, width, height, jpeg)
	SELECT o.client_id, t.operation_id, t.width, t.height, t.jpeg
	FROM operation_thumbs t JOIN operations o ON o.id = t.operation_id;
DROP TABLE operation_thumbs;

CREATE TABLE operations_new (
	id          TEXT NOT NULL,
	client_id   TEXT NOT NULL,
	client_name TEXT NOT NULL,
	tool        TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN
		('queued', 'dispatched', 'succeeded', 'failed', 'cancelled', 'outcome_unknown')),
	code        TEXT NOT NULL DEFAULT '',
	answer      TEXT NOT NULL DEFAULT '',
	created     INTEGER NOT NULL,
	updated     INTEGER NOT NULL,
	summary     TEXT NOT NULL DEFAULT '',
	run_id      TEXT NOT NULL DEFAULT '',
	run_title   TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (client_id, id)
) STRICT;
INSERT INTO operations_new (id, client_id, client_name, tool, fingerprint, state, code, answer, created, updated, summary, run_id, run_title)
	SELECT id, client_id, client_name, tool, fingerprint, state, code, answer, created, updated, summary, run_id, run_title
	FROM operations ORDER BY rowid;
DROP TABLE operations;
ALTER TABLE operations_new RENAME TO operations;
CREATE INDEX operations_created ON operations(created);
CREATE INDEX operations_run ON operations(run_id) WHERE run_id != '';

ALTER TABLE operation_thumbs_new RENAME TO operation_thumbs;
CREATE TRIGGER operation_thumbs_go_with_operation AFTER DELETE ON operations BEGIN
	DELETE FROM operation_thumbs WHERE client_id = old.client_id AND operation_id = old.id;
END;

CREATE TABLE asks_new (
	id           TEXT PRIMARY KEY,
	operation_id TEXT NOT NULL,
	client_id    TEXT NOT NULL,
	client_name  TEXT NOT NULL,
	tool         TEXT NOT NULL,
	fingerprint  TEXT NOT NULL,
	kind         TEXT NOT NULL,
	subject      TEXT NOT NULL DEFAULT '',
	what         TEXT NOT NULL,
	url          TEXT NOT NULL DEFAULT '',
	state        TEXT NOT NULL CHECK (state IN ('pending', 'allowed', 'denied', 'expired')),
	always       INTEGER NOT NULL DEFAULT 0,
	created      INTEGER NOT NULL,
	expires      INTEGER NOT NULL,
	decided      INTEGER NOT NULL DEFAULT 0,
	UNIQUE (client_id, operation_id)
) STRICT;
INSERT INTO asks_new (id, operation_id, client_id, client_name, tool, fingerprint, kind, subject, what, url, state, always, created, expires, decided)
	SELECT id, operation_id, client_id, client_name, tool, fingerprint, kind, subject, what, url, state, always, created, expires, decided
	FROM asks ORDER BY rowid;
DROP TABLE asks;
ALTER TABLE asks_new RENAME TO asks;
CREATE INDEX asks_pending ON asks(expires) WHERE state = 'pending';
CREATE INDEX asks_created ON asks(created);
