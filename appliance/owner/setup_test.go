package owner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/store"
)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newOAuth(t *testing.T, st *store.Store) *oauth.Server {
	t.Helper()
	s, err := oauth.New(oauth.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewNeedsStoreAndOAuth(t *testing.T) {
	st := newStore(t)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no store", Config{OAuth: newOAuth(t, st)}, "Config.Store"},
		{"no oauth", Config{Store: st}, "Config.OAuth"},
	}
	for _, tt := range tests {
		if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%s) = %v, want an error naming %s", tt.name, err, tt.want)
		}
	}
}

func TestSetupCodePersistsUntilClaim(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	file := filepath.Join(t.TempDir(), "openlolo", "setup-code.txt") // the directory is made
	p, err := New(Config{Store: st, OAuth: newOAuth(t, st), SetupCodeFile: file})
	if err != nil {
		t.Fatal(err)
	}
	code, claimed, err := p.SetupCode(ctx)
	if err != nil || claimed {
		t.Fatalf("SetupCode() = %q, %v, %v; want a code, unclaimed", code, claimed, err)
	}
	if len(code) != setupLen || strings.Trim(code, setupAlphabet) != "" {
		t.Fatalf("SetupCode() = %q: want %d characters from %q", code, setupLen, setupAlphabet)
	}
	b, err := os.ReadFile(file)
	if err != nil || strings.TrimSpace(string(b)) != code {
		t.Fatalf("SetupCodeFile holds %q (%v), want %q", b, err, code)
	}
	// A second Pages on the same store (a restart) prints the same code.
	p2, err := New(Config{Store: st, OAuth: newOAuth(t, st)})
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := p2.SetupCode(ctx)
	if err != nil || again != code {
		t.Fatalf("SetupCode() after restart = %q, %v; want %q", again, err, code)
	}

	if err := ResetPassphrase(ctx, st, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	code, claimed, err = p.SetupCode(ctx)
	if err != nil || !claimed || code != "" {
		t.Fatalf("SetupCode() after claim = %q, %v, %v; want no code, claimed", code, claimed, err)
	}
}

func TestSetupCodesDiffer(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		c, err := newSetupCode()
		if err != nil {
			t.Fatal(err)
		}
		if seen[c] {
			t.Fatalf("newSetupCode repeated %q within 200 codes", c)
		}
		seen[c] = true
	}
}

func TestNormalizeCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ACDE-FG34", "ACDEFG34"},
		{" acde fg34 ", "ACDEFG34"},
		{"acdefg34", "ACDEFG34"},
	}
	for _, tt := range tests {
		if got := normalizeCode(tt.in); got != tt.want {
			t.Errorf("normalizeCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResetPassphrase(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		passphrase string
		wantErr    error
	}{
		{"too short", "short9chr", ErrPassphrase},
		{"ten characters", "0123456789", nil},
		{"ten runes, more bytes", "ééééééééé1", nil},
		{"too long", strings.Repeat("x", MaxPassphrase+1), ErrPassphrase},
		{"not utf-8", "0123456789\xff", ErrPassphrase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t)
			err := ResetPassphrase(ctx, st, tt.passphrase)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ResetPassphrase(%q) = %v, want %v", tt.passphrase, err, tt.wantErr)
			}
			var o store.Owner
			oerr := st.View(ctx, func(tx *store.Tx) (err error) { o, err = tx.Owner(); return err })
			if tt.wantErr != nil {
				if !errors.Is(oerr, store.ErrNotFound) {
					t.Fatalf("a refused passphrase still set an owner: %v", oerr)
				}
				return
			}
			if oerr != nil {
				t.Fatal(oerr)
			}
			if !matches(o, tt.passphrase) {
				t.Error("the stored hash does not match the passphrase")
			}
			if matches(o, tt.passphrase+"x") {
				t.Error("the stored hash matches a different passphrase")
			}
		})
	}
}

func TestResetPassphraseEndsSessions(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if err := st.Update(ctx, func(tx *store.Tx) error {
		return tx.InsertOwnerSession(store.OwnerSession{IDHash: []byte("x")})
	}); err != nil {
		t.Fatal(err)
	}
	if err := ResetPassphrase(ctx, st, "a new passphrase"); err != nil {
		t.Fatal(err)
	}
	err := st.View(ctx, func(tx *store.Tx) error { _, err := tx.OwnerSession([]byte("x")); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session survived a passphrase reset: %v", err)
	}
}

func TestSetupCodeFileUnwritable(t *testing.T) {
	st := newStore(t)
	// The parent "directory" is a regular file, so neither MkdirAll nor
	// the write can succeed.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Store: st, OAuth: newOAuth(t, st), SetupCodeFile: filepath.Join(notDir, "code.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.SetupCode(context.Background()); err == nil || !strings.Contains(err.Error(), "setup code file") {
		t.Fatalf("SetupCode() with an unwritable file = %v, want an error naming the file", err)
	}
}
