-- Actions on the box that are not tool calls, for the box page's Activity:
-- the owner's (claim, login, approve, pause, resume, settings ...) and a
-- client's pause and resume. actor is who ("owner" or a client's name),
-- client_id the client's id when a client acted ('' for the owner), detail
-- a sentence without secrets.
CREATE TABLE actions (
	id        INTEGER PRIMARY KEY AUTOINCREMENT,
	at        INTEGER NOT NULL,
	actor     TEXT NOT NULL,
	client_id TEXT NOT NULL DEFAULT '',
	action    TEXT NOT NULL,
	detail    TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX actions_at ON actions(at);
