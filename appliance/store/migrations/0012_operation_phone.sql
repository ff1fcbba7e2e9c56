-- The phone each operation was for (a box may drive several); '' for
-- operations of the box's only phone before this column existed.
ALTER TABLE operations ADD COLUMN phone TEXT NOT NULL DEFAULT '';
