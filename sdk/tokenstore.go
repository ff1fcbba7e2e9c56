package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// StoreVersion is the format version of boxes.json. The Python SDK reads and
// writes the same file, so a change here is a change there.
const StoreVersion = 1

// Box is what a client keeps about one paired box: where it is, how to
// recognise it, and the grant's tokens. It is one entry of boxes.json.
type Box struct {
	// URL is the box's base URL, e.g. https://openlolo-1a2b.local or
	// https://openlolo-1a2b.tail1234.ts.net. It is the store's key.
	URL string `json:"url"`
	// Name is the box's name as it reported it (openlolo-xxxx).
	Name string `json:"name,omitempty"`
	// Pin is the SPKI pin (sha256//…) and Fingerprint the leaf SHA-256 in
	// hex. Both empty for a box reached with CA-verified certificates
	// (the tailnet entry).
	Pin         string `json:"pin,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// Entry is "lan" or "tailnet": tokens work only on the entry that
	// issued them.
	Entry        string    `json:"entry"`
	Issuer       string    `json:"issuer"`
	ClientID     string    `json:"client_id"`
	ClientName   string    `json:"client_name"`
	Scope        string    `json:"scope"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token"`
	Expiry       time.Time `json:"expires_at"`
	PairedAt     time.Time `json:"paired_at"`
}

// Expired reports whether the access token is expired at now, with a
// margin so that a token is not sent in its last seconds.
func (b Box) Expired(now time.Time) bool {
	return b.AccessToken == "" || !now.Before(b.Expiry.Add(-30*time.Second))
}

type storeFile struct {
	Version int            `json:"version"`
	Boxes   map[string]Box `json:"boxes"`
}

// TokenStore is the per-user file of paired boxes,
// $XDG_CONFIG_HOME/openlolo/boxes.json (0600, in a 0700 directory). Writes
// are atomic (temp file, fsync, rename, fsync of the directory) and every
// read-modify-write holds an exclusive flock on boxes.json.lock, so that two
// processes refreshing one grant at once never present a used refresh token.
type TokenStore struct {
	// Path is the file's path; see DefaultStorePath.
	Path string
}

// DefaultStorePath is $XDG_CONFIG_HOME/openlolo/boxes.json, or
// ~/.config/openlolo/boxes.json when XDG_CONFIG_HOME is not set.
func DefaultStorePath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("sdk: find the token store: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "openlolo", "boxes.json"), nil
}

// ErrUnknownBox is returned when the store has no entry for a box.
var ErrUnknownBox = errors.New("sdk: box is not paired")

// Get returns the stored entry for url.
func (s *TokenStore) Get(url string) (Box, error) {
	f, err := s.read()
	if err != nil {
		return Box{}, err
	}
	b, ok := f.Boxes[url]
	if !ok {
		return Box{}, fmt.Errorf("%w: %s (run `openlolo pair %s`)", ErrUnknownBox, url, url)
	}
	return b, nil
}

// List returns every stored box, sorted by URL.
func (s *TokenStore) List() ([]Box, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make([]Box, 0, len(f.Boxes))
	for _, b := range f.Boxes {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out, nil
}

// Put stores b under b.URL, replacing any earlier entry.
func (s *TokenStore) Put(b Box) error {
	return s.Update(b.URL, func(Box, bool) (Box, error) { return b, nil })
}

// Delete removes the entry for url; a missing entry is not an error.
func (s *TokenStore) Delete(url string) error {
	return s.locked(func(f *storeFile) (bool, error) {
		_, ok := f.Boxes[url]
		delete(f.Boxes, url)
		return ok, nil
	})
}

// Update runs fn on the current entry for url (ok false when there is
// none) while holding the store's exclusive lock, after re-reading the file,
// and writes fn's result before the lock is released. fn may do network I/O
// (a token refresh): other processes wait for it. If fn returns an error,
// nothing is written.
func (s *TokenStore) Update(url string, fn func(cur Box, ok bool) (Box, error)) error {
	return s.locked(func(f *storeFile) (bool, error) {
		cur, ok := f.Boxes[url]
		next, err := fn(cur, ok)
		if err != nil {
			return false, err
		}
		next.URL = url
		f.Boxes[url] = next
		return true, nil
	})
}

func (s *TokenStore) locked(fn func(*storeFile) (write bool, err error)) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sdk: token store: %w", err)
	}
	lock, err := os.OpenFile(s.Path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sdk: token store lock: %w", err)
	}
	defer lock.Close()
	if err := flock(int(lock.Fd())); err != nil {
		return fmt.Errorf("sdk: token store lock %s: %w", lock.Name(), err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	f, err := s.read()
	if err != nil {
		return err
	}
	write, err := fn(f)
	if err != nil || !write {
		return err
	}
	return s.write(f)
}

func flock(fd int) error {
	for {
		err := unix.Flock(fd, unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

func (s *TokenStore) read() (*storeFile, error) {
	f := &storeFile{Version: StoreVersion, Boxes: map[string]Box{}}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sdk: read token store: %w", err)
	}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("sdk: token store %s is not valid JSON (%v); move it aside and pair again", s.Path, err)
	}
	if f.Version > StoreVersion {
		return nil, fmt.Errorf("sdk: token store %s has format %d, this client knows %d; update openlolo", s.Path, f.Version, StoreVersion)
	}
	if f.Boxes == nil {
		f.Boxes = map[string]Box{}
	}
	return f, nil
}

func (s *TokenStore) write(f *storeFile) error {
	f.Version = StoreVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("sdk: encode token store: %w", err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(s.Path)
	tmp, err := os.CreateTemp(dir, ".boxes-*.json")
	if err != nil {
		return fmt.Errorf("sdk: write token store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("sdk: write token store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("sdk: write token store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sdk: write token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("sdk: write token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.Path); err != nil {
		return fmt.Errorf("sdk: write token store: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
