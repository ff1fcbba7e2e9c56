-- Activity worth reading. An operation keeps a summary of its arguments
-- without secrets (which app, which URL without its query, a tap's
-- position, typed text as its length) and the run it is a step of (the
-- call's _meta "openlolo.mcp".run: an id the client chose and its title).
ALTER TABLE operations ADD COLUMN summary TEXT NOT NULL DEFAULT '';
ALTER TABLE operations ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE operations ADD COLUMN run_title TEXT NOT NULL DEFAULT '';
CREATE INDEX operations_run ON operations(run_id) WHERE run_id != '';

-- A call that left no operation (a read, or a call refused before it
-- became one: PAUSED, RATE_LIMITED, SCOPE_REQUIRED ...) is an action with
-- its tool, outcome and code; detail is then its arguments' summary.
ALTER TABLE actions ADD COLUMN tool TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN outcome TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN code TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN run_title TEXT NOT NULL DEFAULT '';
