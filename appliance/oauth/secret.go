package oauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
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

// retryInfo labels the key that seals a rotation's pair for a retry.
const retryInfo = "openlolo refresh retry v1\x00"

// retryKey derives the sealing key from the refresh token the rotation
// used: only its holder can open the pair, and the store keeps neither.
func retryKey(rt string) (cipher.AEAD, error) {
	key := sha256.Sum256([]byte(retryInfo + rt))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("oauth: retry key: %w", err)
	}
	return cipher.NewGCM(block)
}

// sealRetry seals the new pair (access, refresh) under the used refresh
// token rt, bound to its hash.
func sealRetry(rt, hash, access, refresh string) ([]byte, error) {
	aead, err := retryKey(rt)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, []byte(access+" "+refresh), []byte(hash)), nil
}

// openRetry opens what sealRetry sealed; ok is false when it does not open.
func openRetry(rt, hash string, blob []byte) (access, refresh string, ok bool) {
	aead, err := retryKey(rt)
	if err != nil || len(blob) < aead.NonceSize() {
		return "", "", false
	}
	plain, err := aead.Open(nil, blob[:aead.NonceSize()], blob[aead.NonceSize():], []byte(hash))
	if err != nil {
		return "", "", false
	}
	access, refresh, ok = strings.Cut(string(plain), " ")
	return access, refresh, ok
}
