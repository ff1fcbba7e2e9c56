package tls

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// SPKIPrefix starts every SPKI pin, as curl --pinnedpubkey spells it.
const SPKIPrefix = "sha256//"

// Fingerprint is the SHA-256 of a leaf certificate's DER bytes.
func Fingerprint(cert *x509.Certificate) [sha256.Size]byte {
	return sha256.Sum256(cert.Raw)
}

// FingerprintHex is the leaf fingerprint as 64 lower-case hex digits.
func FingerprintHex(cert *x509.Certificate) string {
	sum := Fingerprint(cert)
	return hex.EncodeToString(sum[:])
}

// FingerprintColon is the leaf fingerprint as upper-case hex pairs joined
// by colons, as browsers and openssl show it.
func FingerprintColon(cert *x509.Certificate) string {
	sum := Fingerprint(cert)
	return colonHex(sum[:])
}

// SPKIPin is the certificate's public key pin, "sha256//" followed by the
// standard base64 of the SHA-256 of its SubjectPublicKeyInfo.
func SPKIPin(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return SPKIPrefix + base64.StdEncoding.EncodeToString(sum[:])
}

func colonHex(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02X", c)
	}
	return sb.String()
}

// PinKind says what a [Pin] hashes.
type PinKind int

// Pin kinds.
const (
	// LeafPin hashes the whole leaf certificate (DER).
	LeafPin PinKind = iota + 1
	// KeyPin hashes the certificate's SubjectPublicKeyInfo.
	KeyPin
)

// Pin names exactly one certificate (LeafPin) or one public key (KeyPin).
// The zero Pin matches nothing.
type Pin struct {
	Kind PinKind
	Sum  [sha256.Size]byte
}

// ParsePin reads a pin spelled as 64 hex digits, as 32 colon-separated hex
// pairs, or as "sha256//<base64>". Surrounding space is ignored; hex is
// case-insensitive.
func ParsePin(s string) (Pin, error) {
	s = strings.TrimSpace(s)
	var p Pin
	switch {
	case s == "":
		return Pin{}, fmt.Errorf("boxtls: empty pin; give the leaf SHA-256 (hex or colon-hex) or an SPKI pin sha256//<base64>, as openlolo fingerprint prints them")
	case strings.HasPrefix(s, SPKIPrefix):
		b, err := base64.StdEncoding.DecodeString(s[len(SPKIPrefix):])
		if err != nil || len(b) != sha256.Size {
			return Pin{}, fmt.Errorf("boxtls: SPKI pin %q is not sha256// followed by the base64 of 32 bytes", s)
		}
		p.Kind = KeyPin
		copy(p.Sum[:], b)
	default:
		h := s
		if strings.Contains(s, ":") {
			parts := strings.Split(s, ":")
			for _, part := range parts {
				if len(part) != 2 {
					return Pin{}, fmt.Errorf("boxtls: colon-hex pin %q must be 32 pairs of hex digits", s)
				}
			}
			h = strings.Join(parts, "")
		}
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != sha256.Size {
			return Pin{}, fmt.Errorf("boxtls: pin %q is not a SHA-256 fingerprint (64 hex digits, colon-hex, or sha256//<base64>)", s)
		}
		p.Kind = LeafPin
		copy(p.Sum[:], b)
	}
	return p, nil
}

// Matches reports whether cert is the certificate (or carries the key) p
// names.
func (p Pin) Matches(cert *x509.Certificate) bool {
	if cert == nil {
		return false
	}
	var got [sha256.Size]byte
	switch p.Kind {
	case LeafPin:
		got = sha256.Sum256(cert.Raw)
	case KeyPin:
		got = sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	default:
		return false
	}
	return bytes.Equal(got[:], p.Sum[:])
}

// String spells p the way it was most likely given: hex for a leaf pin,
// sha256//<base64> for a key pin.
func (p Pin) String() string {
	switch p.Kind {
	case LeafPin:
		return hex.EncodeToString(p.Sum[:])
	case KeyPin:
		return SPKIPrefix + base64.StdEncoding.EncodeToString(p.Sum[:])
	}
	return "(no pin)"
}
