package update

import (
	"archive/tar"
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// testKey is a fixed key pair for tests.
func testKey(seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	return k.Public().(ed25519.PublicKey), k
}

func bytesSource(name string, b []byte) Source {
	return Source{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }}
}

// testBundle is a small valid bundle: a root of rootSize bytes and two boot files.
func testBundle(t *testing.T, key ed25519.PrivateKey, m Manifest, rootSize int) []byte {
	t.Helper()
	root := make([]byte, rootSize)
	for i := range root {
		root[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, key, m, []Source{
		bytesSource(RootName, root),
		bytesSource("boot/vmlinuz", []byte("kernel")),
		bytesSource("boot/cmdline.txt", []byte("root=PARTUUID=01234567-02 ro\n")),
	}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var v2 = Manifest{Version: "v2", Board: "rpi", Built: 2000}

// readAll reads every file of a bundle and returns their contents.
func readAll(b []byte, pub ed25519.PublicKey) (map[string][]byte, error) {
	r, err := Open(bytes.NewReader(b), pub)
	if err != nil {
		return nil, err
	}
	got := map[string][]byte{}
	for {
		f, fr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		data, err := io.ReadAll(fr)
		if err != nil {
			return got, err
		}
		got[f.Name] = data
	}
}

func TestBundleRoundTrip(t *testing.T) {
	t.Parallel()
	pub, key := testKey(1)
	b := testBundle(t, key, v2, 100000)
	got, err := readAll(b, pub)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[RootName]) != 100000 || string(got["boot/vmlinuz"]) != "kernel" {
		t.Errorf("read back %d root bytes and kernel %q", len(got[RootName]), got["boot/vmlinuz"])
	}
	r, _ := Open(bytes.NewReader(b), pub)
	m := r.Manifest()
	if m.Version != "v2" || m.Board != "rpi" || m.Built != 2000 || len(m.Files) != 3 || m.Root().Size != 100000 {
		t.Errorf("manifest = %+v", m)
	}
}

// TestBundleRefusals: every damaged or foreign bundle is refused with its
// code before anything after the bad part is handed out.
func TestBundleRefusals(t *testing.T) {
	t.Parallel()
	pub, key := testKey(1)
	_, other := testKey(2)
	good := testBundle(t, key, v2, 100000)
	// offset of the root image's data: the third member
	rootAt := memberOffset(t, good, RootName)
	flip := func(off int) []byte {
		b := bytes.Clone(good)
		b[off] ^= 0x40
		return b
	}
	manifestAt := memberOffset(t, good, ManifestName)
	tests := []struct {
		name   string
		bundle []byte
		code   Code
		words  string
	}{
		{"signed by another key", testBundle(t, other, v2, 100000), CodeBadSignature, "signature"},
		{"manifest changed after signing", flip(manifestAt + 20), CodeBadSignature, "signature"},
		{"a byte of the root image flipped", flip(rootAt + 5000), CodeCorrupt, "root.squashfs does not match"},
		{"cut inside the root image", good[:rootAt+5000], CodeTruncated, "ends early, in root.squashfs"},
		{"cut inside the manifest", good[:manifestAt+10], CodeTruncated, "ends early"},
		{"cut after the root image", good[:rootAt+100000+512], CodeTruncated, "ends early"},
		{"empty file", nil, CodeTruncated, "ends early"},
		{"not a tar file", []byte(strings.Repeat("openlolo ", 200)), CodeNotBundle, "not an openlolo update bundle"},
		{"a tar file of something else", tarOf(t, "README", []byte("hello")), CodeNotBundle, "should start with manifest.json"},
		{"a member added at the end", appendMember(t, good, "boot/extra", []byte("x")), CodeNotBundle, "more members"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(tc.bundle, pub)
			if CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("err = %v, want code %s with %q", err, tc.code, tc.words)
			}
		})
	}
}

// TestBundleManifestChecks: a signed manifest that lists unsafe or
// inconsistent files is refused too (a leaked key must not write outside
// the boot folder).
func TestBundleManifestChecks(t *testing.T) {
	t.Parallel()
	pub, key := testKey(1)
	sum := hex.EncodeToString(make([]byte, 32))
	root := File{Name: RootName, Size: 10, SHA256: sum}
	tests := []struct {
		name  string
		files []File
		words string
	}{
		{"no files", nil, "first file is not root.squashfs"},
		{"boot file first", []File{{Name: "boot/x", Size: 1, SHA256: sum}}, "first file"},
		{"path traversal", []File{root, {Name: "boot/../etc/passwd", Size: 1, SHA256: sum}}, "boot files are boot/<name>"},
		{"outside boot", []File{root, {Name: "config.txt", Size: 1, SHA256: sum}}, "boot files are boot/<name>"},
		{"listed twice", []File{root, {Name: "boot/a", Size: 1, SHA256: sum}, {Name: "boot/a", Size: 1, SHA256: sum}}, "listed twice"},
		{"bad hash", []File{{Name: RootName, Size: 10, SHA256: "abc"}}, "not 64 hex digits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := Manifest{Format: 1, Version: "v2", Board: "rpi", Built: 1, Files: tc.files}
			mb, _ := json.Marshal(m)
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, mem := range []struct {
				n string
				b []byte
			}{{ManifestName, mb}, {SignatureName, Sign(key, mb)}} {
				tw.WriteHeader(&tar.Header{Name: mem.n, Size: int64(len(mem.b)), Mode: 0o644, Typeflag: tar.TypeReg})
				tw.Write(mem.b)
			}
			tw.Close()
			_, err := Open(&buf, pub)
			if CodeOf(err) != CodeNotBundle || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("err = %v, want %s with %q", err, CodeNotBundle, tc.words)
			}
		})
	}
}

// TestBundleMemberSwap: a member whose header differs from the manifest's
// entry (renamed or resized) is refused before its bytes are handed out.
func TestBundleMemberSwap(t *testing.T) {
	t.Parallel()
	pub, key := testKey(1)
	good := testBundle(t, key, v2, 1000)
	// rename the kernel member in its tar header (its checksum is redone)
	b := rewriteHeader(t, good, "boot/vmlinuz", "boot/vmlinux")
	_, err := readAll(b, pub)
	if CodeOf(err) != CodeCorrupt || !strings.Contains(err.Error(), `"boot/vmlinux"`) {
		t.Fatalf("err = %v, want %s naming the member", err, CodeCorrupt)
	}
}

func TestKeyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pub, err := GenerateKey(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKey(dir, nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second GenerateKey = %v, want a refusal to replace the key", err)
	}
	key, err := ReadPrivateKey(dir + "/update.key")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadPublicKey(dir + "/update.pub")
	if err != nil || !got.Equal(pub) || !key.Public().(ed25519.PublicKey).Equal(pub) {
		t.Fatalf("keys do not match: %v", err)
	}
	if _, err := ParsePublicKey([]byte("ssh-ed25519 AAAA")); err == nil {
		t.Error("an ssh key parses as an update key")
	}
}

// memberOffset returns the offset of name's data in a tar file.
func memberOffset(t *testing.T, b []byte, name string) int {
	t.Helper()
	cr := &countReader{r: bytes.NewReader(b)}
	tr := tar.NewReader(cr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no member %s: %v", name, err)
		}
		if h.Name == name {
			return int(cr.n)
		}
	}
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func tarOf(t *testing.T, name string, data []byte) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Name: name, Size: int64(len(data)), Mode: 0o644, Typeflag: tar.TypeReg})
	tw.Write(data)
	tw.Close()
	return buf.Bytes()
}

// appendMember rewrites b with one more member at the end.
func appendMember(t *testing.T, b []byte, name string, data []byte) []byte {
	t.Helper()
	return retar(t, b, func(h *tar.Header) {}, &tar.Header{Name: name, Size: int64(len(data)), Mode: 0o644, Typeflag: tar.TypeReg}, data)
}

// rewriteHeader renames member from to to.
func rewriteHeader(t *testing.T, b []byte, from, to string) []byte {
	t.Helper()
	return retar(t, b, func(h *tar.Header) {
		if h.Name == from {
			h.Name = to
		}
	}, nil, nil)
}

func retar(t *testing.T, b []byte, edit func(*tar.Header), extra *tar.Header, data []byte) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		edit(h)
		tw.WriteHeader(h)
		io.Copy(tw, tr)
	}
	if extra != nil {
		tw.WriteHeader(extra)
		tw.Write(data)
	}
	tw.Close()
	return buf.Bytes()
}
