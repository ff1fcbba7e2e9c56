package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// Setting returns the value stored under key, or ErrNotFound.
func (t *Tx) Setting(key string) (string, error) {
	var v string
	err := t.tx.QueryRow("SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("store: setting %q: %w", key, err)
	}
	return v, nil
}

// SetSetting stores value under key, replacing any earlier value.
func (t *Tx) SetSetting(key, value string) error {
	_, err := t.tx.Exec(`INSERT INTO settings(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("store: set setting %q: %w", key, err)
	}
	return nil
}

// DeleteSetting removes key; removing a missing key is not an error.
func (t *Tx) DeleteSetting(key string) error {
	if _, err := t.tx.Exec("DELETE FROM settings WHERE key = ?", key); err != nil {
		return fmt.Errorf("store: delete setting %q: %w", key, err)
	}
	return nil
}
