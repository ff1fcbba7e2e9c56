package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A phone's name is kept by its id across reopening the store (a phone
// unplugged and plugged back, a restart), replaced by a new one, and ""
// forgets it.
func TestPhoneNamesRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openT(t, dir)
	now := time.UnixMilli(1000)
	set := func(s *Store, id, name string) {
		t.Helper()
		if err := s.Update(ctx, func(tx *Tx) error { return tx.SetPhoneName(id, name, now) }); err != nil {
			t.Fatalf("SetPhoneName(%q, %q): %v", id, name, err)
		}
	}
	names := func(s *Store) map[string]string {
		t.Helper()
		var m map[string]string
		if err := s.View(ctx, func(tx *Tx) (err error) { m, err = tx.PhoneNames(); return err }); err != nil {
			t.Fatal(err)
		}
		return m
	}
	set(s, "sim-1", "Kitchen iPhone")
	set(s, "sim-2", "Old")
	set(s, "sim-2", "Anna’s Pixel") // a replacement; non-ASCII is fine
	s.Close()
	s = openT(t, dir)
	if got := names(s); len(got) != 2 || got["sim-1"] != "Kitchen iPhone" || got["sim-2"] != "Anna’s Pixel" {
		t.Fatalf("PhoneNames after reopening = %v", got)
	}
	set(s, "sim-1", "")
	if got := names(s); len(got) != 1 || got["sim-2"] != "Anna’s Pixel" {
		t.Fatalf("PhoneNames after resetting sim-1 = %v, want only sim-2", got)
	}
}

// A refused name stores nothing and says why with a stable code.
func TestSetPhoneNameRefuses(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	if err := s.Update(ctx, func(tx *Tx) error { return tx.SetPhoneName("sim-1", "Kept", time.Now()) }); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, code string
	}{
		{strings.Repeat("x", MaxPhoneName+1), CodePhoneNameTooLong},
		{"tab\there", CodePhoneNameInvalid},
		{"line\nbreak", CodePhoneNameInvalid},
		{"del\x7f", CodePhoneNameInvalid},
		{"bad \xff utf-8", CodePhoneNameInvalid},
	} {
		err := s.Update(ctx, func(tx *Tx) error { return tx.SetPhoneName("sim-1", tc.name, time.Now()) })
		var ne *PhoneNameError
		if !errors.As(err, &ne) || ne.Code != tc.code {
			t.Errorf("SetPhoneName(%q) = %v, want a %s", tc.name, err, tc.code)
		}
	}
	if err := CheckPhoneName(strings.Repeat("é", MaxPhoneName)); err != nil {
		t.Errorf("CheckPhoneName(%d characters) = %v, want nil: the limit counts characters, not bytes", MaxPhoneName, err)
	}
	err := s.Update(ctx, func(tx *Tx) error { return tx.SetPhoneName("", "Nameless", time.Now()) })
	if err == nil {
		t.Error("SetPhoneName with no phone id = nil, want an error")
	}
	var got map[string]string
	if err := s.View(ctx, func(tx *Tx) (err error) { got, err = tx.PhoneNames(); return err }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["sim-1"] != "Kept" {
		t.Errorf("PhoneNames after refused names = %v, want sim-1 still Kept", got)
	}
}
