-- Box-wide settings: small values keyed by name (box name, choices the
-- owner made on the Settings page). Secrets are never stored here in clear.
CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
