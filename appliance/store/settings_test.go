package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSettings: each declared setting returns its default while unset,
// refuses a value its check refuses (storing nothing), and reads back
// what was set.
func TestSettings(t *testing.T) {
	t.Parallel()
	s := openT(t, t.TempDir())
	key := strings.Repeat("ab", 32)
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	err := s.Update(context.Background(), func(tx *Tx) error {
		if v, ok, err := TailnetEnabled.Lookup(tx); err != nil || ok || v {
			t.Errorf("TailnetEnabled unset = %v, %v, %v; want the default false, unset", v, ok, err)
		}
		if v, err := TailnetOwnerLogin.Get(tx); err != nil || v != "" {
			t.Errorf("TailnetOwnerLogin unset = %q, %v; want the default", v, err)
		}
		for _, bad := range []string{"", "two words", strings.Repeat("x", 257), "tab\there"} {
			if err := TailnetOwnerLogin.Set(tx, bad); err == nil || !strings.Contains(err.Error(), "not a tailnet login") {
				t.Errorf("TailnetOwnerLogin.Set(%q) = %v, want a refusal", bad, err)
			}
		}
		if err := JournalKey.Set(tx, "abcd"); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
			t.Errorf("JournalKey.Set(short) = %v, want a refusal", err)
		}
		if _, ok, _ := JournalKey.Lookup(tx); ok {
			t.Error("a refused key was stored")
		}
		steps := []error{TailnetEnabled.Set(tx, true), TailnetOwnerLogin.Set(tx, "alice@example.com"),
			JournalKey.Set(tx, key), AsksSeeded.Set(tx, true), UpdateSelfCheck.Set(tx, at)}
		for _, err := range steps {
			if err != nil {
				return err
			}
		}
		if v, ok, err := TailnetEnabled.Lookup(tx); err != nil || !ok || !v {
			t.Errorf("TailnetEnabled = %v, %v, %v; want on", v, ok, err)
		}
		if raw, _ := tx.Setting(TailnetEnabled.Key); raw != "on" {
			t.Errorf("TailnetEnabled stored as %q, want on (the word earlier boxes stored)", raw)
		}
		if raw, _ := tx.Setting(AsksSeeded.Key); raw != "1" {
			t.Errorf("AsksSeeded stored as %q, want 1 (as earlier boxes stored)", raw)
		}
		if v, err := UpdateSelfCheck.Get(tx); err != nil || !v.Equal(at) {
			t.Errorf("UpdateSelfCheck = %v, %v; want %v", v, err, at)
		}
		if v, err := JournalKey.Get(tx); err != nil || v != key {
			t.Errorf("JournalKey = %q, %v", v, err)
		}
		// A stored value the setting cannot read is an error naming it.
		if err := tx.SetSetting(TailnetEnabled.Key, "maybe"); err != nil {
			return err
		}
		if _, _, err := TailnetEnabled.Lookup(tx); err == nil || !strings.Contains(err.Error(), `"tailnet.enabled" holds "maybe"`) {
			t.Errorf("TailnetEnabled holding maybe: %v, want an error naming the key and value", err)
		}
		if err := TailnetOwnerLogin.Clear(tx); err != nil {
			return err
		}
		if _, ok, err := TailnetOwnerLogin.Lookup(tx); ok || err != nil {
			t.Errorf("TailnetOwnerLogin after Clear: set %v, %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFactoryResetSettings: a factory reset removes exactly the settings
// declared Forget and keeps the others (and keys no setting declares).
func TestFactoryResetSettings(t *testing.T) {
	t.Parallel()
	s := openT(t, t.TempDir())
	ctx := context.Background()
	values := map[string]string{TailnetEnabled.Key: "on", TailnetOwnerLogin.Key: "alice@example.com",
		JournalKey.Key: strings.Repeat("ab", 32), AsksSeeded.Key: "1", UpdateSelfCheck.Key: "2026-12-01T12:00:00Z", LiveFPS.Key: "5", "undeclared": "x"}
	var lost map[string]int64
	err := s.Update(ctx, func(tx *Tx) (err error) {
		for k, v := range values {
			if err := tx.SetSetting(k, v); err != nil {
				return err
			}
		}
		lost, err = tx.FactoryReset()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	forgotten := 0
	err = s.View(ctx, func(tx *Tx) error {
		for _, d := range settingsTable {
			key, reset := d.declaration()
			_, err := tx.Setting(key)
			if gone := errors.Is(err, ErrNotFound); gone != (reset == Forget) {
				t.Errorf("setting %q after a reset: gone %v, declared %v", key, gone, reset)
			}
			if reset == Forget {
				forgotten++
			}
		}
		if v, err := tx.Setting("undeclared"); err != nil || v != "x" {
			t.Errorf("an undeclared key after a reset: %q, %v; want it kept", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if forgotten == 0 || lost["settings"] != int64(forgotten) {
		t.Errorf("FactoryReset reports %d settings lost, want %d (every Forget setting)", lost["settings"], forgotten)
	}
	if len(settingsTable) != len(values)-1 {
		t.Errorf("settingsTable has %d settings, the test sets %d: declare the new one here too", len(settingsTable), len(values)-1)
	}
}

// TestPreferences: the owner's settings are listed with their choices;
// a choice is stored and read back, "" unsets, and a value that is not a
// choice (or one a hand-edited database holds) is refused, storing nothing.
func TestPreferences(t *testing.T) {
	t.Parallel()
	s := openT(t, t.TempDir())
	prefs := Preferences()
	if len(prefs) == 0 || prefs[0].Name() != LiveFPS.Key || prefs[0].Pref().Label == "" {
		t.Fatalf("Preferences() = %v, want the live view's rate first", prefs)
	}
	for _, p := range prefs {
		if !slices.ContainsFunc(p.Pref().Choices, func(c Choice) bool { return c.Value == "" }) {
			t.Errorf("preference %q offers no default choice", p.Name())
		}
	}
	err := s.Update(context.Background(), func(tx *Tx) error {
		if c, err := LiveFPS.Choice(tx); err != nil || c != "" {
			t.Errorf("LiveFPS unset: choice %q, %v; want the default", c, err)
		}
		if err := LiveFPS.Choose(tx, "5"); err != nil {
			return err
		}
		if v, err := LiveFPS.Get(tx); err != nil || v != 5 {
			t.Errorf("LiveFPS after choosing 5 = %d, %v", v, err)
		}
		for _, bad := range []string{"7", "fast", "-1"} {
			if err := LiveFPS.Choose(tx, bad); err == nil || !strings.Contains(err.Error(), "not one of the choices for live view pictures per second") {
				t.Errorf("Choose(%q) = %v, want a refusal naming the setting", bad, err)
			}
		}
		if c, _ := LiveFPS.Choice(tx); c != "5" {
			t.Errorf("a refused choice changed the setting to %q", c)
		}
		if err := LiveFPS.Set(tx, 50); err == nil || !strings.Contains(err.Error(), "between 1 and 10") {
			t.Errorf("LiveFPS.Set(50) = %v, want a refusal", err)
		}
		if err := LiveFPS.Choose(tx, ""); err != nil {
			return err
		}
		if v, ok, err := LiveFPS.Lookup(tx); ok || err != nil || v != 0 {
			t.Errorf("LiveFPS after choosing the default = %d, set %v, %v", v, ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
