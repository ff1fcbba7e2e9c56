-- The names the owner gave the box's phones, keyed by the phone's stable
-- id (its serial or UDID; sim-1, sim-2 ... for simulated phones), so a
-- phone unplugged and plugged back keeps its name. A phone without a row
-- is named as its backend reports it.
CREATE TABLE phone_names (
	phone_id TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	set_at INTEGER NOT NULL
);
