package adb

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestKeyPersists(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "adbkey")
	k1, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	k2, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if k1.Fingerprint() != k2.Fingerprint() {
		t.Fatalf("fingerprint changed across loads: %s then %s", k1.Fingerprint(), k2.Fingerprint())
	}
	if !regexp.MustCompile(`^([0-9A-F]{2}:){15}[0-9A-F]{2}$`).MatchString(k1.Fingerprint()) {
		t.Fatalf("fingerprint %q is not 16 colon-separated upper-case hex bytes", k1.Fingerprint())
	}
}

func TestKeyErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"not pem", "hello", "no PEM block"},
		{"wrong block", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "not a private key"},
		{"broken der", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "parse key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			os.WriteFile(path, []byte(tc.content), 0o600)
			_, err := LoadOrCreateKey(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.content {
				t.Fatal("a bad key file was overwritten")
			}
		})
	}
	if _, err := LoadOrCreateKey(filepath.Join(dir, "missing-dir", "adbkey")); err == nil {
		t.Fatal("a key in a missing folder was written")
	}
}

func TestPublicKeyRoundTrip(t *testing.T) {
	t.Parallel()
	k, err := LoadOrCreateKey(filepath.Join(t.TempDir(), "adbkey"))
	if err != nil {
		t.Fatal(err)
	}
	raw := EncodePublicKey(k.Public())
	if len(raw) != 524 {
		t.Fatalf("public key is %d bytes, want 524", len(raw))
	}
	for name, in := range map[string][]byte{"raw": raw, "auth data": k.AuthData("box@openlolo")} {
		pub, err := ParsePublicKey(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pub.N.Cmp(k.Public().N) != 0 || pub.E != k.Public().E {
			t.Fatalf("%s: parsed key differs", name)
		}
	}
	if !bytes.HasSuffix(k.AuthData("box"), []byte(" box\x00")) {
		t.Fatalf("auth data %q does not end in the name and NUL", k.AuthData("box"))
	}
	bad := bytes.Clone(raw)
	bad[4] ^= 1 // n0inv
	if _, err := ParsePublicKey(bad); err == nil {
		t.Fatal("a key with a wrong n0inv parsed")
	}
	if _, err := ParsePublicKey([]byte("!!! not base64")); err == nil {
		t.Fatal("garbage parsed as a key")
	}
	token := make([]byte, 20)
	rand.Read(token)
	sig, err := k.Sign(token)
	if err != nil {
		t.Fatal(err)
	}
	if !Verify(k.Public(), token, sig) {
		t.Fatal("signature does not verify")
	}
	token[0] ^= 1
	if Verify(k.Public(), token, sig) {
		t.Fatal("signature verifies for another token")
	}
	if _, err := k.Sign(make([]byte, 19)); err == nil {
		t.Fatal("a 19-byte token was signed")
	}
}
