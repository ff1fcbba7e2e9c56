-- The phones a grant reaches, space-separated phone ids (the owner's
-- choice at approval); '' reaches every phone of the box, as every grant
-- made before this column did.
ALTER TABLE oauth_grants ADD COLUMN phones TEXT NOT NULL DEFAULT '';
