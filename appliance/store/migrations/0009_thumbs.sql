-- The screen after an input, as a small JPEG for the Activity page (long
-- side about 160 px, a few KB). It goes with its operation: pruned with
-- it (the same age and count retention) by the cascade.
CREATE TABLE operation_thumbs (
	operation_id TEXT PRIMARY KEY REFERENCES operations(id) ON DELETE CASCADE,
	width INTEGER NOT NULL,
	height INTEGER NOT NULL,
	jpeg BLOB NOT NULL
);
