-- The phone an ask is about, and the phone of an action that was a
-- phone's (a read or refused call naming it, a pause of one phone); ''
-- for rows of the box's only phone before these columns existed, and for
-- the box's own actions (logins, approvals, settings).
ALTER TABLE asks ADD COLUMN phone TEXT NOT NULL DEFAULT '';
ALTER TABLE actions ADD COLUMN phone TEXT NOT NULL DEFAULT '';
