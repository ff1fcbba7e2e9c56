package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// newSecret returns a 256-bit random value, base64url without padding: an
// access token, refresh token, device code or authorization code.
func newSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// newID returns a 128-bit random identifier (client_id, grant_id, handle).
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hashSecret is what the store keeps of a secret: hex SHA-256.
func hashSecret(v string) string {
	h := sha256.Sum256([]byte(v))
	return hex.EncodeToString(h[:])
}

// userCodeAlphabet is RFC 8628 §6.1's base-20 alphabet without vowels.
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// newUserCode returns 8 characters from userCodeAlphabet (about 34.5 bits),
// drawn without modulo bias.
func newUserCode() string {
	out := make([]byte, 0, 8)
	var b [16]byte
	for len(out) < 8 {
		rand.Read(b[:])
		for _, c := range b {
			// 240 = 12*20: values below it map evenly onto the alphabet.
			if c < 240 && len(out) < 8 {
				out = append(out, userCodeAlphabet[int(c)%len(userCodeAlphabet)])
			}
		}
	}
	return string(out)
}

// formatUserCode shows a user code as XXXX-XXXX.
func formatUserCode(c string) string {
	if len(c) != 8 {
		return c
	}
	return c[:4] + "-" + c[4:]
}
