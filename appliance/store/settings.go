package store

import (
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
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

// Reset says what a factory reset does to a setting.
type Reset int

const (
	// Keep: the setting belongs to the box (the journal key, the remote
	// entry's on/off) and outlives a factory reset.
	Keep Reset = iota
	// Forget: the setting belongs to the owner and goes with the owner.
	Forget
)

// Setting declares one box-wide setting of the settings table, once: its
// key, its default, how a value is checked, how it is stored, and what a
// factory reset does to it. The box's settings are this package's Setting
// variables, each listed in settingsTable; they are never changed.
type Setting[T any] struct {
	Key     string
	Default T // what Get returns while the setting is unset
	Reset   Reset
	check   func(T) error // nil takes any value
	encode  func(T) string
	decode  func(string) (T, error)
	// pref, when set, makes the setting the owner's to choose on the
	// Settings page (see [Preferences]).
	pref *Pref
}

// KeyTailnetOwnerLogin is TailnetOwnerLogin's key.
const KeyTailnetOwnerLogin = "tailnet.owner_login"

// The box's settings.
var (
	// TailnetEnabled is the owner's choice on the Settings page: the
	// remote entry on or off (unset: serve's --tailnet flag decides).
	TailnetEnabled = flag("tailnet.enabled", "on", "off", Keep)
	// TailnetOwnerLogin is the tailnet login the owner linked: visits
	// from it on the remote entry are owner sessions. A factory reset
	// forgets it with the owner.
	TailnetOwnerLogin = text(KeyTailnetOwnerLogin, Forget, checkLogin)
	// JournalKey is the control journal's key (64 hex digits), made on
	// the first start.
	JournalKey = text("control.journal_key", Keep, checkHexKey)
	// AsksSeeded is set once the default ask marks were stored, so an
	// owner's later choice of none is not undone.
	AsksSeeded = flag("asks.defaults_seeded", "1", "0", Keep)
	// UpdateSelfCheck is when the update self-check last wrote to the
	// database.
	UpdateSelfCheck = Setting[time.Time]{Key: "update.selfcheck", Reset: Keep,
		encode: func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		decode: func(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }}
	// LiveFPS is the owner's choice of the live view's pictures per second
	// (0, unset: the board's default, which serve picks).
	LiveFPS = number("live.fps", Forget, 1, 10, &Pref{
		Label:   "Live view pictures per second",
		Hint:    "Fewer pictures use less of the box's processor: a Pi Zero 2 W manages about 5. It applies to live views opened after you save.",
		Choices: []Choice{{"", "The board's default"}, {"2", "2 per second"}, {"5", "5 per second"}, {"10", "10 per second"}},
	})
)

// settingsTable is every declared setting; FactoryReset removes those
// marked Forget. A key not listed (none should be) is kept.
var settingsTable = []declared{TailnetEnabled, TailnetOwnerLogin, JournalKey, AsksSeeded, UpdateSelfCheck, LiveFPS}

// declared is a Setting of any type, as settingsTable lists it.
type declared interface {
	declaration() (key string, reset Reset)
}

func (s Setting[T]) declaration() (string, Reset) { return s.Key, s.Reset }

// Name is the setting's key, as [Preference] names it.
func (s Setting[T]) Name() string { return s.Key }

// number is an integer setting between lo and hi; pref may be nil.
func number(key string, reset Reset, lo, hi int, pref *Pref) Setting[int] {
	return Setting[int]{Key: key, Reset: reset, pref: pref, encode: strconv.Itoa, decode: strconv.Atoi,
		check: func(v int) error {
			if v < lo || v > hi {
				return fmt.Errorf("%d is not between %d and %d", v, lo, hi)
			}
			return nil
		}}
}

// text is a string setting; check may be nil.
func text(key string, reset Reset, check func(string) error) Setting[string] {
	return Setting[string]{Key: key, Reset: reset, check: check,
		encode: func(v string) string { return v }, decode: func(v string) (string, error) { return v, nil }}
}

// flag is an on/off setting stored as the word on or off.
func flag(key, on, off string, reset Reset) Setting[bool] {
	return Setting[bool]{Key: key, Reset: reset,
		encode: func(v bool) string {
			if v {
				return on
			}
			return off
		},
		decode: func(v string) (bool, error) {
			switch v {
			case on:
				return true, nil
			case off:
				return false, nil
			}
			return false, fmt.Errorf("neither %q nor %q", on, off)
		}}
}

// Lookup returns the stored value; ok is false (and v the default) while
// the setting is unset.
func (s Setting[T]) Lookup(t *Tx) (v T, ok bool, err error) {
	raw, err := t.Setting(s.Key)
	if errors.Is(err, ErrNotFound) {
		return s.Default, false, nil
	}
	if err != nil {
		return s.Default, false, err
	}
	if v, err = s.decode(raw); err != nil {
		return s.Default, false, fmt.Errorf("store: setting %q holds %q: %w", s.Key, raw, err)
	}
	return v, true, nil
}

// Get returns the stored value, or the default while it is unset.
func (s Setting[T]) Get(t *Tx) (T, error) {
	v, _, err := s.Lookup(t)
	return v, err
}

// Check says why v cannot be the setting's value (a sentence a person can
// act on), or nil.
func (s Setting[T]) Check(v T) error {
	if s.check == nil {
		return nil
	}
	return s.check(v)
}

// Set checks v and stores it.
func (s Setting[T]) Set(t *Tx, v T) error {
	if err := s.Check(v); err != nil {
		return fmt.Errorf("store: setting %q: %w", s.Key, err)
	}
	return t.SetSetting(s.Key, s.encode(v))
}

// Clear unsets the setting (Get then returns the default).
func (s Setting[T]) Clear(t *Tx) error { return t.DeleteSetting(s.Key) }

// Pref is how the Settings page offers a setting the owner chooses: what
// it is called, a hint, and the values to pick from.
type Pref struct {
	Label, Hint string
	// Choices are the values the owner may pick, in the order shown; the
	// one whose Value is "" unsets the setting (its default).
	Choices []Choice
}

// Choice is one value of a [Pref]: the stored word and what the page
// calls it.
type Choice struct {
	Value, Label string
}

// Preference is a setting the owner chooses on the Settings page, whatever
// its type: the page lists [Preferences], shows each one's choices and
// stores what the owner picked. Declaring a Setting with a Pref is all it
// takes to offer a new one.
type Preference interface {
	// Name is the setting's key (the form field's name).
	Name() string
	// Pref is the label, hint and choices.
	Pref() Pref
	// Choice is the stored value as a choice's Value ("" while unset).
	Choice(t *Tx) (string, error)
	// Choose stores value, one of the choices ("" unsets the setting); any
	// other is refused with a sentence the owner can act on.
	Choose(t *Tx, value string) error
}

// Preferences lists the settings the owner chooses, in the order of the
// settings table.
func Preferences() []Preference {
	var ps []Preference
	for _, d := range settingsTable {
		if p, ok := d.(Preference); ok && p.Pref().Label != "" {
			ps = append(ps, p)
		}
	}
	return ps
}

// Pref returns the setting's Settings-page declaration (zero when the
// owner does not choose it).
func (s Setting[T]) Pref() Pref {
	if s.pref == nil {
		return Pref{}
	}
	return *s.pref
}

// Choice is the stored value as a choice's Value: "" while unset.
func (s Setting[T]) Choice(t *Tx) (string, error) {
	v, set, err := s.Lookup(t)
	if err != nil || !set {
		return "", err
	}
	return s.encode(v), nil
}

// Choose stores value when it is one of the setting's choices; "" unsets
// the setting.
func (s Setting[T]) Choose(t *Tx, value string) error {
	p := s.Pref()
	if !slices.ContainsFunc(p.Choices, func(c Choice) bool { return c.Value == value }) {
		return fmt.Errorf("%q is not one of the choices for %s", value, strings.ToLower(p.Label))
	}
	if value == "" {
		return s.Clear(t)
	}
	v, err := s.decode(value)
	if err != nil {
		return fmt.Errorf("store: setting %q: %q: %w", s.Key, value, err)
	}
	return s.Set(t, v)
}

// checkLogin accepts a tailnet login: a user name or e-mail address as
// WhoIs reports it.
func checkLogin(v string) error {
	if v == "" || len(v) > 256 || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("%q is not a tailnet login (1 to 256 characters, no spaces)", v)
	}
	return nil
}

// checkHexKey accepts a 32-byte key written as 64 hex digits.
func checkHexKey(v string) error {
	if b, err := hex.DecodeString(v); err != nil || len(b) != 32 {
		return fmt.Errorf("the key is not 64 hex digits")
	}
	return nil
}
