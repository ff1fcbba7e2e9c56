package update

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Key files: one line each, a type word and the base64 key.
const (
	publicKeyType  = "openlolo-update-ed25519"
	privateKeyType = "openlolo-update-ed25519-private"
)

// signContext is prepended to the manifest's bytes before signing, so an
// update signature can never be mistaken for a signature over anything
// else made with the same key.
const signContext = "openlolo update manifest v1\n"

// Sign returns the signature of a manifest's bytes.
func Sign(key ed25519.PrivateKey, manifest []byte) []byte {
	return ed25519.Sign(key, append([]byte(signContext), manifest...))
}

// verify reports whether sig signs manifest under pub.
func verify(pub ed25519.PublicKey, manifest, sig []byte) bool {
	return len(sig) == ed25519.SignatureSize && ed25519.Verify(pub, append([]byte(signContext), manifest...), sig)
}

// GenerateKey writes a new key pair into dir as update.key (mode 0600)
// and update.pub; it refuses to replace an existing update.key.
func GenerateKey(dir string, rnd io.Reader) (ed25519.PublicKey, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	priv := filepath.Join(dir, "update.key")
	if _, err := os.Stat(priv); err == nil {
		return nil, fmt.Errorf("update: generate key: %s exists; remove it first to make a new pair", priv)
	}
	pub, key, err := ed25519.GenerateKey(rnd)
	if err != nil {
		return nil, fmt.Errorf("update: generate key: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("update: generate key: %w", err)
	}
	line := privateKeyType + " " + base64.StdEncoding.EncodeToString(key.Seed()) + "\n"
	if err := os.WriteFile(priv, []byte(line), 0o600); err != nil {
		return nil, fmt.Errorf("update: generate key: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "update.pub"), MarshalPublicKey(pub), 0o644); err != nil {
		return nil, fmt.Errorf("update: generate key: %w", err)
	}
	return pub, nil
}

// MarshalPublicKey is the update.pub line of pub.
func MarshalPublicKey(pub ed25519.PublicKey) []byte {
	return []byte(publicKeyType + " " + base64.StdEncoding.EncodeToString(pub) + "\n")
}

// ParsePublicKey reads an update.pub file's contents.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	raw, err := parseKeyLine(b, publicKeyType, ed25519.PublicKeySize)
	if err != nil {
		return nil, err
	}
	return ed25519.PublicKey(raw), nil
}

// ReadPrivateKey reads an update.key file.
func ReadPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("update: read signing key: %w", err)
	}
	seed, err := parseKeyLine(b, privateKeyType, ed25519.SeedSize)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// ReadPublicKey reads an update.pub file.
func ReadPublicKey(path string) (ed25519.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("update: read public key: %w", err)
	}
	k, err := ParsePublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

func parseKeyLine(b []byte, typ string, size int) ([]byte, error) {
	f := strings.Fields(string(bytes.TrimSpace(b)))
	if len(f) != 2 || f[0] != typ {
		return nil, fmt.Errorf("update: key: not a %q line", typ)
	}
	raw, err := base64.StdEncoding.DecodeString(f[1])
	if err != nil || len(raw) != size {
		return nil, errors.New("update: key: the key is not " + fmt.Sprint(size) + " bytes of base64")
	}
	return raw, nil
}
