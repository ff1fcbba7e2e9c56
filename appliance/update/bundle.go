package update

import (
	"archive/tar"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"
	"time"
)

// Member names and limits of a bundle.
const (
	ManifestName  = "manifest.json"
	SignatureName = "manifest.sig"
	RootName      = "root.squashfs"
	bootPrefix    = "boot/"

	// FormatVersion is the manifest format this package reads and writes.
	FormatVersion = 1

	maxManifest  = 64 << 10
	maxRoot      = 2 << 30
	maxBootFiles = 256
	maxBootBytes = 128 << 20
)

// Manifest says what a bundle holds. Its bytes, exactly as they are in the
// bundle, are what the signature covers.
type Manifest struct {
	// Format is FormatVersion.
	Format int `json:"format"`
	// Version is the software version, e.g. "v1.2.0" or a git describe.
	Version string `json:"version"`
	// Board is what the image runs on, e.g. "rpi" (the Debian image, every
	// Pi) or "rpi4" (a Buildroot image); it must equal the box's.
	Board string `json:"board"`
	// Built is the build time in Unix seconds (SOURCE_DATE_EPOCH): it
	// orders versions (a smaller one is a downgrade).
	Built int64 `json:"built"`
	// Files are the members after the signature, in order: RootName
	// first, then boot files ("boot/…").
	Files []File `json:"files"`
}

// File is one member of a bundle.
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // hex
}

// BuiltTime is Built as a time.
func (m Manifest) BuiltTime() time.Time { return time.Unix(m.Built, 0).UTC() }

// Root is the root image's entry.
func (m Manifest) Root() File { return m.Files[0] }

// check validates a manifest's shape: the member list is exact, names are
// clean, sizes within limits.
func (m Manifest) check() error {
	switch {
	case m.Format != FormatVersion:
		return fmt.Errorf("manifest format %d, this box reads format %d: update in two steps through a version that reads both", m.Format, FormatVersion)
	case m.Version == "" || len(m.Version) > 128 || strings.ContainsAny(m.Version, " \t\n/"):
		return fmt.Errorf("manifest version %q is not a version", m.Version)
	case m.Board == "" || len(m.Board) > 32:
		return fmt.Errorf("manifest board %q is not a board name", m.Board)
	case len(m.Files) == 0 || m.Files[0].Name != RootName:
		return fmt.Errorf("the first file is not %s", RootName)
	case len(m.Files) > maxBootFiles+1:
		return fmt.Errorf("%d files; at most %d boot files are allowed", len(m.Files), maxBootFiles)
	}
	seen := map[string]bool{}
	var boot int64
	for i, f := range m.Files {
		if seen[f.Name] {
			return fmt.Errorf("%s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if h, err := hex.DecodeString(f.SHA256); err != nil || len(h) != sha256.Size {
			return fmt.Errorf("%s: sha256 %q is not 64 hex digits", f.Name, f.SHA256)
		}
		if f.Size < 0 {
			return fmt.Errorf("%s: negative size", f.Name)
		}
		if i == 0 {
			if f.Size == 0 || f.Size > maxRoot {
				return fmt.Errorf("%s: size %d is out of range", f.Name, f.Size)
			}
			continue
		}
		if !validBootName(f.Name) {
			return fmt.Errorf("file name %q: boot files are boot/<name> with no .. or empty parts", f.Name)
		}
		boot += f.Size
	}
	if boot > maxBootBytes {
		return fmt.Errorf("boot files of %d bytes; at most %d are allowed", boot, maxBootBytes)
	}
	return nil
}

func validBootName(name string) bool {
	rest, ok := strings.CutPrefix(name, bootPrefix)
	if !ok || rest == "" || path.Clean(rest) != rest || strings.HasPrefix(rest, "/") || strings.ContainsAny(rest, "\\\x00") {
		return false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// Source is one file to put in a bundle.
type Source struct {
	// Name is RootName or "boot/<path>".
	Name string
	// Open opens its contents; it is called twice (hash, then copy).
	Open func() (io.ReadCloser, error)
}

// Write makes a bundle on w: the manifest of m with the files of srcs
// (RootName first), signed with key. m.Files is filled in from srcs.
func Write(w io.Writer, key ed25519.PrivateKey, m Manifest, srcs []Source) (Manifest, error) {
	m.Format = FormatVersion
	m.Files = nil
	for _, s := range srcs {
		f, err := hashSource(s)
		if err != nil {
			return m, err
		}
		m.Files = append(m.Files, f)
	}
	if err := m.check(); err != nil {
		return m, fmt.Errorf("update: write bundle: %w", err)
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return m, fmt.Errorf("update: write bundle: %w", err)
	}
	mb = append(mb, '\n')
	tw := tar.NewWriter(w)
	mtime := m.BuiltTime()
	put := func(name string, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Size: size, Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return fmt.Errorf("update: write bundle: %s: %w", name, err)
		}
		if n, err := io.Copy(tw, r); err != nil || n != size {
			return fmt.Errorf("update: write bundle: %s: wrote %d of %d bytes: %v", name, n, size, err)
		}
		return nil
	}
	if err := put(ManifestName, int64(len(mb)), bytes.NewReader(mb)); err != nil {
		return m, err
	}
	sig := Sign(key, mb)
	if err := put(SignatureName, int64(len(sig)), bytes.NewReader(sig)); err != nil {
		return m, err
	}
	for i, s := range srcs {
		rc, err := s.Open()
		if err != nil {
			return m, fmt.Errorf("update: write bundle: %s: %w", s.Name, err)
		}
		err = put(s.Name, m.Files[i].Size, rc)
		rc.Close()
		if err != nil {
			return m, err
		}
	}
	if err := tw.Close(); err != nil {
		return m, fmt.Errorf("update: write bundle: %w", err)
	}
	return m, nil
}

func hashSource(s Source) (File, error) {
	rc, err := s.Open()
	if err != nil {
		return File{}, fmt.Errorf("update: write bundle: %s: %w", s.Name, err)
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return File{}, fmt.Errorf("update: write bundle: %s: %w", s.Name, err)
	}
	return File{Name: s.Name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Reader reads a bundle whose manifest was checked by [Open].
type Reader struct {
	tr   *tar.Reader
	m    Manifest
	next int
	cur  *fileReader
}

// Open reads the manifest and its signature from the start of r and
// checks them against pub. Nothing after the signature has been read when
// it returns.
func Open(r io.Reader, pub ed25519.PublicKey) (*Reader, error) {
	tr := tar.NewReader(r)
	mb, err := member(tr, ManifestName, maxManifest)
	if err != nil {
		return nil, err
	}
	sig, err := member(tr, SignatureName, ed25519.SignatureSize)
	if err != nil {
		return nil, err
	}
	if !verify(pub, mb, sig) {
		return nil, fail(CodeBadSignature, nil, "The bundle's signature does not match this box's update key: it was not signed by whoever built this box's software, or its manifest was changed. Nothing was written.")
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(mb))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fail(CodeNotBundle, err, "The bundle's signed manifest cannot be read by this version of the box. Nothing was written.")
	}
	if err := m.check(); err != nil {
		return nil, fail(CodeNotBundle, err, "The bundle's signed manifest is not one this box can install: %v. Nothing was written.", err)
	}
	return &Reader{tr: tr, m: m}, nil
}

// member reads the next member, which must be a regular file called name
// of at most limit bytes.
func member(tr *tar.Reader, name string, limit int64) ([]byte, error) {
	h, err := tr.Next()
	if err != nil {
		return nil, readErr(err, name)
	}
	if h.Name != name || h.Typeflag != tar.TypeReg {
		return nil, fail(CodeNotBundle, nil, "The file is not an openlolo update bundle: it should start with %s, and it has %q there. Nothing was written.", name, h.Name)
	}
	if h.Size > limit {
		return nil, fail(CodeNotBundle, nil, "The bundle's %s is %d bytes, more than the %d allowed. Nothing was written.", name, h.Size, limit)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return nil, readErr(err, name)
	}
	return b, nil
}

// readErr turns a tar reading error into an update error.
func readErr(err error, where string) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fail(CodeTruncated, err, "The bundle ends early, in %s: the download or upload was cut short. Get the whole file and try again; nothing the box runs was changed.", where)
	case errors.Is(err, tar.ErrHeader), errors.Is(err, tar.ErrFieldTooLong), errors.Is(err, tar.ErrInsecurePath):
		return fail(CodeNotBundle, err, "The bundle is damaged or not an openlolo update bundle (at %s). Get the file again; nothing the box runs was changed.", where)
	}
	return fail(CodeTruncated, err, "Reading the bundle failed at %s. Try again; nothing the box runs was changed.", where)
}

// Manifest is the bundle's checked, signed manifest.
func (r *Reader) Manifest() Manifest { return r.m }

// Next returns the next file of the manifest and a reader of its
// contents. The reader fails with an [*Error] (CodeCorrupt or
// CodeTruncated) unless the file has exactly its signed size and hash,
// reported at its end: a caller must read to io.EOF before trusting what
// it read. After the last file, Next checks that the bundle has nothing
// more and returns io.EOF.
func (r *Reader) Next() (File, io.Reader, error) {
	if r.cur != nil && !r.cur.done {
		// drain the previous file so a caller that stopped early cannot skip its check
		if _, err := io.Copy(io.Discard, r.cur); err != nil {
			return File{}, nil, err
		}
	}
	if r.next == len(r.m.Files) {
		_, err := r.tr.Next()
		switch {
		case errors.Is(err, io.EOF):
			return File{}, nil, io.EOF
		case err == nil:
			return File{}, nil, fail(CodeNotBundle, nil, "The bundle has more members than its manifest lists. Nothing was installed.")
		}
		return File{}, nil, readErr(err, "the end of the bundle")
	}
	f := r.m.Files[r.next]
	h, err := r.tr.Next()
	if err != nil {
		return File{}, nil, readErr(err, f.Name)
	}
	if h.Name != f.Name || h.Typeflag != tar.TypeReg || h.Size != f.Size {
		return File{}, nil, fail(CodeCorrupt, nil, "The bundle's member %d is %q of %d bytes; its manifest says %s of %d bytes. Get the file again; nothing the box runs was changed.", r.next+3, h.Name, h.Size, f.Name, f.Size)
	}
	r.next++
	want, _ := hex.DecodeString(f.SHA256)
	r.cur = &fileReader{f: f, r: r.tr, h: sha256.New(), want: want}
	return f, r.cur, nil
}

// fileReader checks a file's size and hash as it is read.
type fileReader struct {
	f    File
	r    io.Reader
	h    hash.Hash
	n    int64
	want []byte
	done bool
	err  error
}

func (fr *fileReader) Read(p []byte) (int, error) {
	if fr.err != nil {
		return 0, fr.err
	}
	n, err := fr.r.Read(p)
	fr.h.Write(p[:n])
	fr.n += int64(n)
	if errors.Is(err, io.EOF) {
		fr.done = true
		switch {
		case fr.n != fr.f.Size:
			fr.err = readErr(io.ErrUnexpectedEOF, fr.f.Name)
		case !bytes.Equal(fr.h.Sum(nil), fr.want):
			fr.err = fail(CodeCorrupt, nil, "The bundle's %s does not match the hash its signed manifest gives: the file was damaged on the way. Get it again; nothing the box runs was changed.", fr.f.Name)
		default:
			fr.err = io.EOF
		}
		return n, fr.err
	}
	if err != nil {
		fr.err = readErr(err, fr.f.Name)
		return n, fr.err
	}
	return n, nil
}
