package store

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxPhoneName is the longest name the owner may give a phone, in
// characters (it fits a phone card and an ask's sentence).
const MaxPhoneName = 40

// Why a phone name is refused: [PhoneNameError.Code].
const (
	CodePhoneNameTooLong = "PHONE_NAME_TOO_LONG" // over MaxPhoneName characters
	CodePhoneNameInvalid = "PHONE_NAME_INVALID"  // control characters, or not UTF-8
)

// PhoneNameError is a name [CheckPhoneName] refuses: a stable code and a
// sentence the owner can act on.
type PhoneNameError struct {
	Code string // CodePhoneNameTooLong or CodePhoneNameInvalid
	Msg  string
}

func (e *PhoneNameError) Error() string { return e.Msg }

// CheckPhoneName says why name cannot be a phone's name, as a
// *PhoneNameError, or nil. "" is allowed: it gives the phone back the
// name its backend reports.
func CheckPhoneName(name string) error {
	if !utf8.ValidString(name) {
		return &PhoneNameError{CodePhoneNameInvalid, "a phone's name must be text (UTF-8)"}
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return &PhoneNameError{CodePhoneNameInvalid, "a phone's name cannot hold control characters (a tab, a line break)"}
	}
	if n := utf8.RuneCountInString(name); n > MaxPhoneName {
		return &PhoneNameError{CodePhoneNameTooLong, fmt.Sprintf("a phone's name has at most %d characters; this one has %d", MaxPhoneName, n)}
	}
	return nil
}

// SetPhoneName gives the phone with id the owner's name, kept while the
// phone is away; "" forgets it (the phone is named as its backend reports
// it again). A name [CheckPhoneName] refuses stores nothing and returns
// its *PhoneNameError.
func (t *Tx) SetPhoneName(id, name string, now time.Time) error {
	if id == "" {
		return errors.New("store: name a phone: no phone id")
	}
	if err := CheckPhoneName(name); err != nil {
		return fmt.Errorf("store: name phone %s: %w", id, err)
	}
	var err error
	if name == "" {
		_, err = t.tx.Exec(`DELETE FROM phone_names WHERE phone_id = ?`, id)
	} else {
		_, err = t.tx.Exec(`INSERT INTO phone_names (phone_id, name, set_at) VALUES (?, ?, ?)
			ON CONFLICT (phone_id) DO UPDATE SET name = excluded.name, set_at = excluded.set_at`, id, name, ms(now))
	}
	if err != nil {
		return fmt.Errorf("store: name phone %s: %w", id, err)
	}
	return nil
}

// PhoneNames are the names the owner gave phones, by phone id; a phone
// without one is not in it.
func (t *Tx) PhoneNames() (map[string]string, error) {
	rows, err := t.tx.Query(`SELECT phone_id, name FROM phone_names`)
	if err != nil {
		return nil, fmt.Errorf("store: phone names: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("store: phone names: %w", err)
		}
		out[id] = name
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: phone names: %w", err)
	}
	return out, nil
}
