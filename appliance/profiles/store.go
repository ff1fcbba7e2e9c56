package profiles

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openlolo/openlolo/api"
)

//go:embed shipped/*.json
var shippedFS embed.FS

// Set is a set of profiles by bundle id. Its profiles are shared: callers
// must not modify them.
type Set struct {
	list []api.AppProfile // by name, then bundle id
	byID map[string]int
}

func newSet(ps []api.AppProfile) *Set {
	s := &Set{list: ps, byID: map[string]int{}}
	slices.SortStableFunc(s.list, func(a, b api.AppProfile) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.BundleID, b.BundleID)
	})
	for i, p := range s.list {
		s.byID[p.BundleID] = i
	}
	return s
}

// Get returns the profile of bundleID.
func (s *Set) Get(bundleID string) (api.AppProfile, bool) {
	i, ok := s.byID[bundleID]
	if !ok {
		return api.AppProfile{}, false
	}
	return s.list[i], true
}

// List returns platform's profiles by name ("" lists every platform's).
func (s *Set) List(platform api.Platform) []api.AppProfile {
	var out []api.AppProfile
	for _, p := range s.list {
		if platform == "" || p.Platform == platform {
			out = append(out, p)
		}
	}
	return out
}

// Shipped parses the profiles built into the box.
func Shipped() ([]api.AppProfile, error) {
	files, err := fs.Glob(shippedFS, "shipped/*.json")
	if err != nil {
		return nil, fmt.Errorf("profiles: shipped: %w", err)
	}
	var out []api.AppProfile
	ids := map[string]string{}
	for _, f := range files {
		b, err := shippedFS.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("profiles: shipped: %w", err)
		}
		ps, err := Parse(path.Base(f), b, api.SourceShipped)
		if err != nil {
			return nil, fmt.Errorf("profiles: shipped: %w", err)
		}
		for _, p := range ps {
			if other, dup := ids[p.BundleID]; dup {
				return nil, fmt.Errorf("profiles: shipped: %s is in %s and %s", p.BundleID, other, f)
			}
			ids[p.BundleID] = f
		}
		out = append(out, ps...)
	}
	return out, nil
}

// Merge is shipped with owner's profiles in place of the shipped ones of
// the same bundle id, and owner's others added.
func Merge(shipped, owner []api.AppProfile) *Set {
	byID := map[string]api.AppProfile{}
	for _, p := range shipped {
		byID[p.BundleID] = p
	}
	for _, p := range owner {
		byID[p.BundleID] = p
	}
	ps := make([]api.AppProfile, 0, len(byID))
	for _, p := range byID {
		ps = append(ps, p)
	}
	return newSet(ps)
}

// Store holds the shipped profiles and the owner's file, read again
// whenever the file changes (its size or modification time). It is safe
// for concurrent use.
type Store struct {
	path    string
	log     *slog.Logger
	shipped []api.AppProfile

	mu    sync.Mutex
	stamp stamp
	set   *Set
	err   error
}

type stamp struct {
	exists bool
	size   int64
	mod    time.Time
}

// Open returns a Store of the shipped profiles and the owner's file at
// path ("" for none; normally StateDir/[FileName]). A bad owner file does
// not fail Open: the shipped profiles are served, and [Store.Err] says
// what is wrong (logged once per change of the file). Open fails only
// when the shipped profiles do not parse.
func Open(path string, log *slog.Logger) (*Store, error) {
	shipped, err := Shipped()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{path: path, log: log, shipped: shipped, set: Merge(shipped, nil)}
	s.Current()
	return s, nil
}

// Path is the owner's file the Store reads.
func (s *Store) Path() string { return s.path }

// Current returns the profiles now: the shipped ones merged with the
// owner's file as it is now, or the shipped ones alone while the file is
// missing or bad.
func (s *Store) Current() *Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return s.set
	}
	var now stamp
	fi, err := os.Stat(s.path)
	switch {
	case err == nil:
		now = stamp{exists: true, size: fi.Size(), mod: fi.ModTime()}
	case !errors.Is(err, fs.ErrNotExist):
		now = stamp{exists: true, mod: time.Unix(0, -1)} // unreadable: try to read to say why
	}
	if now == s.stamp && s.set != nil {
		return s.set
	}
	s.stamp = now
	s.set, s.err = Merge(s.shipped, nil), nil
	if !now.exists {
		return s.set
	}
	owner, err := s.read()
	if err != nil {
		s.err = err
		s.log.Error("profiles: the owner's profile file is refused; the shipped profiles are served", "file", s.path, "err", err)
		return s.set
	}
	s.set = Merge(s.shipped, owner)
	s.log.Info("profiles: read the owner's profile file", "file", s.path, "profiles", len(owner))
	return s.set
}

// read parses the owner's file, reading no more than one byte past
// MaxFileSize (Parse refuses a file that long).
func (s *Store) read() ([]api.AppProfile, error) {
	f, err := os.Open(s.path)
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("profiles: %w", err)
	}
	return Parse(s.path, b, api.SourceOwner)
}

// Err is why the owner's file is refused; nil when it was read (or there
// is none).
func (s *Store) Err() error {
	s.Current()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
