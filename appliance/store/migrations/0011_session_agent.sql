-- The browser of each owner session (its User-Agent header, as last
-- seen), so Settings can say which logged-in browser is which.
ALTER TABLE owner_sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
