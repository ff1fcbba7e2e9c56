package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTokenStoreRoundTripAndModes(t *testing.T) {
	dir := t.TempDir()
	s := &TokenStore{Path: filepath.Join(dir, "openlolo", "boxes.json")}
	if _, err := s.Get("https://a.local"); !errors.Is(err, ErrUnknownBox) {
		t.Fatalf("Get on empty store = %v, want ErrUnknownBox", err)
	}
	b := Box{URL: "https://a.local", ClientID: "c1", AccessToken: "at", RefreshToken: "rt", Expiry: time.Unix(1e9, 0).UTC()}
	if err := s.Put(b); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get("https://a.local")
	if err != nil {
		t.Fatal(err)
	}
	if got != b {
		t.Fatalf("Get = %+v, want %+v", got, b)
	}
	st, _ := os.Stat(s.Path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("store mode %v, want 0600", st.Mode().Perm())
	}
	dst, _ := os.Stat(filepath.Dir(s.Path))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("store dir mode %v, want 0700", dst.Mode().Perm())
	}
	if err := s.Delete("https://a.local"); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.List(); len(l) != 0 {
		t.Fatalf("List after Delete = %v", l)
	}
}

func TestTokenStoreRefusesBadFile(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"garbage", "{not json", "not valid JSON"},
		{"newer", `{"version": 99, "boxes": {}}`, "format 99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "boxes.json")
			os.WriteFile(p, []byte(tt.content), 0o600)
			s := &TokenStore{Path: p}
			err := s.Put(Box{URL: "x"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Put = %v, want error containing %q", err, tt.want)
			}
			after, _ := os.ReadFile(p)
			if string(after) != tt.content {
				t.Fatal("a refused store file was rewritten")
			}
		})
	}
}

func TestTokenStoreUpdateErrorWritesNothing(t *testing.T) {
	s := &TokenStore{Path: filepath.Join(t.TempDir(), "boxes.json")}
	s.Put(Box{URL: "u", AccessToken: "old"})
	boom := errors.New("network down")
	err := s.Update("u", func(cur Box, ok bool) (Box, error) {
		cur.AccessToken = "new"
		return cur, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v", err)
	}
	b, _ := s.Get("u")
	if b.AccessToken != "old" {
		t.Fatalf("AccessToken = %q after failed update, want old", b.AccessToken)
	}
}

// Many writers with their own TokenStore values (own lock fds, as separate
// processes would have) increment a counter under Update: no lost update, and
// the file is valid JSON after every step.
func TestTokenStoreSerializesReadModifyWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "boxes.json")
	const n = 40
	var wg, starting sync.WaitGroup
	// The race window: each read-modify-write holds on until every
	// writer has set out, so all of them contend for the file.
	allIn := make(chan struct{})
	starting.Add(n)
	go func() { starting.Wait(); close(allIn) }()
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &TokenStore{Path: p}
			starting.Done()
			errs <- s.Update("u", func(cur Box, ok bool) (Box, error) {
				var c int
				fmt.Sscan(cur.RefreshToken, &c)
				<-allIn
				cur.RefreshToken = fmt.Sprint(c + 1)
				return cur, nil
			})
			raw, err := os.ReadFile(p)
			if err != nil || !json.Valid(raw) {
				errs <- fmt.Errorf("store not valid JSON mid-run: %v", err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := (&TokenStore{Path: p}).Get("u")
	if b.RefreshToken != fmt.Sprint(n) {
		t.Fatalf("counter = %s, want %d (lost updates)", b.RefreshToken, n)
	}
}

func TestDefaultStorePath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	p, err := DefaultStorePath()
	if err != nil || p != "/x/cfg/openlolo/boxes.json" {
		t.Fatalf("DefaultStorePath = %q, %v", p, err)
	}
}

func TestRefusedIs(t *testing.T) {
	var err error = &Refused{Code: "FRAME_EXPIRED", Message: "old"}
	if !errors.Is(err, ErrFrameExpired) {
		t.Fatal("errors.Is(FRAME_EXPIRED refusal, ErrFrameExpired) = false")
	}
	if errors.Is(err, ErrRateLimited) {
		t.Fatal("errors.Is(FRAME_EXPIRED refusal, ErrRateLimited) = true")
	}
	wrapped := fmt.Errorf("tap: %w", err)
	var r *Refused
	if !errors.As(wrapped, &r) || r.Code != "FRAME_EXPIRED" {
		t.Fatal("errors.As through a wrap failed")
	}
}
