package adb

import (
	"bytes"
	"crypto"
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
)

// Key is the box's ADB key: a 2048-bit RSA key made once and kept in the
// box's state directory. A phone that has allowed it ("Always allow from
// this computer") lets the box in without asking again.
type Key struct {
	priv *rsa.PrivateKey
}

// keyBits is the size adb uses for its keys (and the only size the
// Android public key format holds).
const keyBits = 2048

// publicKeySize is the size of Android's RSA public key structure:
// modulus size in words, n0inv, modulus, R² mod n, exponent.
const publicKeySize = 4 + 4 + keyBits/8 + keyBits/8 + 4

// LoadOrCreateKey reads the key at path (PEM, PKCS #8), or makes a new
// one and writes it there (mode 0600, through a temporary file and a
// rename, so a crash never leaves half a key).
func LoadOrCreateKey(path string) (*Key, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		return ParseKey(b)
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("adb: read key: %w", err)
	}
	priv, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return nil, fmt.Errorf("adb: make key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("adb: encode key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	tmp, err := os.CreateTemp(filepath.Dir(path), ".adbkey-*")
	if err != nil {
		return nil, fmt.Errorf("adb: write key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(data)
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			return nil, fmt.Errorf("adb: write key %s: %w", path, err)
		}
	} else {
		tmp.Close()
		return nil, fmt.Errorf("adb: write key: %w", err)
	}
	return &Key{priv: priv}, nil
}

// ParseKey reads a PEM private key (PKCS #8, or PKCS #1 as adb's own
// ~/.android/adbkey is written). It must be a 2048-bit RSA key.
func ParseKey(pemData []byte) (*Key, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("adb: key file holds no PEM block")
	}
	var priv *rsa.PrivateKey
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("adb: parse key: %w", err)
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("adb: key is %T, not RSA", k)
		}
		priv = rk
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("adb: parse key: %w", err)
		}
		priv = k
	default:
		return nil, fmt.Errorf("adb: key file holds a %q block, not a private key", block.Type)
	}
	if priv.N.BitLen() != keyBits {
		return nil, fmt.Errorf("adb: key has %d bits; adb keys have %d", priv.N.BitLen(), keyBits)
	}
	return &Key{priv: priv}, nil
}

// Sign signs a device's 20-byte AUTH token as adbd checks it: RSA
// PKCS #1 v1.5 with the token taken as a SHA-1 digest.
func (k *Key) Sign(token []byte) ([]byte, error) {
	if len(token) != 20 {
		return nil, fmt.Errorf("adb: auth token has %d bytes, want 20", len(token))
	}
	sig, err := rsa.SignPKCS1v15(rand.Reader, k.priv, crypto.SHA1, token)
	if err != nil {
		return nil, fmt.Errorf("adb: sign token: %w", err)
	}
	return sig, nil
}

// Public returns the key's public half.
func (k *Key) Public() *rsa.PublicKey { return &k.priv.PublicKey }

// AuthData is the data of the AUTH RSAPUBLICKEY message: the public key
// in Android's format, base64, a space, a name the phone shows, and NUL.
func (k *Key) AuthData(name string) []byte {
	return []byte(base64.StdEncoding.EncodeToString(EncodePublicKey(k.Public())) + " " + name + "\x00")
}

// Fingerprint is what the phone's "Allow USB debugging?" dialog shows for
// this key: the MD5 of the public key structure, as colon-separated
// upper-case hex (Android's UsbDebuggingManager).
func (k *Key) Fingerprint() string { return Fingerprint(k.Public()) }

// Fingerprint returns the fingerprint of an ADB public key (see
// [Key.Fingerprint]).
func Fingerprint(pub *rsa.PublicKey) string {
	sum := md5.Sum(EncodePublicKey(pub))
	var b strings.Builder
	for i, c := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02X", c)
	}
	return b.String()
}

// EncodePublicKey writes a 2048-bit RSA public key in Android's format
// (libcrypto_utils android_pubkey): the modulus size in 32-bit words,
// n0inv = -1/n mod 2³², the modulus, R² mod n (R = 2²⁰⁴⁸), both
// little-endian, and the exponent.
func EncodePublicKey(pub *rsa.PublicKey) []byte {
	out := make([]byte, publicKeySize)
	words := keyBits / 32
	binary.LittleEndian.PutUint32(out[0:], uint32(words))
	r32 := new(big.Int).Lsh(big.NewInt(1), 32)
	n0 := new(big.Int).Mod(pub.N, r32)
	inv := new(big.Int).ModInverse(n0, r32)
	n0inv := new(big.Int).Sub(r32, inv)
	binary.LittleEndian.PutUint32(out[4:], uint32(n0inv.Uint64()))
	putLE(out[8:8+keyBits/8], pub.N)
	rr := new(big.Int).Exp(big.NewInt(2), big.NewInt(2*keyBits), pub.N)
	putLE(out[8+keyBits/8:8+2*keyBits/8], rr)
	binary.LittleEndian.PutUint32(out[8+2*keyBits/8:], uint32(pub.E))
	return out
}

// ParsePublicKey reads Android's public key format (see
// [EncodePublicKey]), raw or as the base64 text of AUTH RSAPUBLICKEY
// (with or without the name after it).
func ParsePublicKey(b []byte) (*rsa.PublicKey, error) {
	if len(b) != publicKeySize {
		text := strings.TrimRight(string(b), "\x00")
		if i := strings.IndexByte(text, ' '); i >= 0 {
			text = text[:i]
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("adb: public key is neither %d bytes nor base64: %w", publicKeySize, err)
		}
		b = raw
	}
	if len(b) != publicKeySize {
		return nil, fmt.Errorf("adb: public key has %d bytes, want %d", len(b), publicKeySize)
	}
	if w := binary.LittleEndian.Uint32(b[0:]); w != keyBits/32 {
		return nil, fmt.Errorf("adb: public key modulus has %d words, want %d", w, keyBits/32)
	}
	n := getLE(b[8 : 8+keyBits/8])
	e := binary.LittleEndian.Uint32(b[8+2*keyBits/8:])
	if n.BitLen() != keyBits || e < 3 || e%2 == 0 {
		return nil, errors.New("adb: public key is not a valid 2048-bit RSA key")
	}
	pub := &rsa.PublicKey{N: n, E: int(e)}
	if !bytes.Equal(EncodePublicKey(pub), b) {
		return nil, errors.New("adb: public key's n0inv or R² does not match its modulus")
	}
	return pub, nil
}

// Verify reports whether sig is token signed by pub (what adbd checks).
func Verify(pub *rsa.PublicKey, token, sig []byte) bool {
	return rsa.VerifyPKCS1v15(pub, crypto.SHA1, token, sig) == nil
}

func putLE(dst []byte, n *big.Int) {
	be := n.FillBytes(make([]byte, len(dst)))
	for i := range be {
		dst[i] = be[len(be)-1-i]
	}
}

func getLE(src []byte) *big.Int {
	be := make([]byte, len(src))
	for i := range src {
		be[i] = src[len(src)-1-i]
	}
	return new(big.Int).SetBytes(be)
}
