-- The phone each operation was for (a box may drive several); '' for
-- operations of the box's only phone before this column existed.
ALTER TABLE operations ADD COLUMN phone TEXT NOT NULL DEFAULT '';
-- The phone each watch event is about ('' for the box's only phone, and
-- for events of the box or a client).
ALTER TABLE events ADD COLUMN phone TEXT NOT NULL DEFAULT '';
