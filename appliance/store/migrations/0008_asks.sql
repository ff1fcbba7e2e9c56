-- Asks: calls the owner marked wait for the owner's decision.
--
-- ask_marks are the box-wide marks (Settings): a row means "ask first"
-- for that kind ('app' with the app's bundle id as subject; 'url',
-- 'text' and 'input' with an empty subject). The box seeds its defaults
-- once (control.DefaultMarks); a factory reset keeps them, as it keeps
-- the box's other settings.
CREATE TABLE ask_marks (
	kind    TEXT NOT NULL CHECK (kind IN ('app', 'url', 'text', 'input')),
	subject TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (kind, subject)
) STRICT;

-- client_ask_marks override the box-wide marks for one client: ask = 1
-- asks although the box does not, ask = 0 does not although the box does
-- ("always for this client" on an allow writes one).
CREATE TABLE client_ask_marks (
	client_id TEXT NOT NULL,
	kind      TEXT NOT NULL CHECK (kind IN ('app', 'url', 'text', 'input')),
	subject   TEXT NOT NULL DEFAULT '',
	ask       INTEGER NOT NULL CHECK (ask IN (0, 1)),
	PRIMARY KEY (client_id, kind, subject)
) STRICT;

-- One ask per operation id. fingerprint is the journal's keyed HMAC of
-- the tool and arguments (the retry must match it); what is the question
-- in words, without secrets (typed text as its length); url is its box
-- page on the entry the client called. expires is when a
-- pending ask expires, or when an allowed one stops waiting for the retry.
CREATE TABLE asks (
	id           TEXT PRIMARY KEY,
	operation_id TEXT NOT NULL UNIQUE,
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
	decided      INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX asks_pending ON asks(expires) WHERE state = 'pending';
CREATE INDEX asks_created ON asks(created);
