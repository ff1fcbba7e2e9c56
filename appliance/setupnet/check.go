package setupnet

import (
	"fmt"
	"unicode/utf8"
)

// Code is a stable code for a refused Wi-Fi entry. Extend, never rename.
type Code string

// Refusal codes.
const (
	CodeSSIDEmpty          Code = "WIFI_SSID_EMPTY"
	CodeSSIDTooLong        Code = "WIFI_SSID_TOO_LONG"
	CodeSSIDControl        Code = "WIFI_SSID_CONTROL_CHARACTER"
	CodeSSIDNotUTF8        Code = "WIFI_SSID_NOT_UTF8"
	CodePassphraseShort    Code = "WIFI_PASSPHRASE_TOO_SHORT"
	CodePassphraseLong     Code = "WIFI_PASSPHRASE_TOO_LONG"
	CodePassphraseNotASCII Code = "WIFI_PASSPHRASE_NOT_ASCII"
	CodeBusy               Code = "WIFI_BUSY"
	CodeClosed             Code = "WIFI_SETUP_CLOSED"
)

// Limits of IEEE 802.11 and WPA2/WPA3-personal.
const (
	MaxSSIDBytes     = 32 // an SSID is at most 32 bytes
	MinPassphraseLen = 8  // a WPA passphrase is 8..63 printable ASCII characters
	MaxPassphraseLen = 63
)

// Error is a refusal: a stable code and a sentence a person can act on.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("setupnet: %s: %s", e.Code, e.Message) }

func refuse(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// CheckSSID refuses a network name the radio cannot use: empty, over 32
// bytes (UTF-8 counts bytes, not letters), not UTF-8, or holding a control
// character.
func CheckSSID(ssid string) error {
	switch {
	case ssid == "":
		return refuse(CodeSSIDEmpty, "Type the name of the Wi-Fi network.")
	case len(ssid) > MaxSSIDBytes:
		return refuse(CodeSSIDTooLong, "A Wi-Fi network name is at most %d bytes; this one is %d. Check the name on the router.", MaxSSIDBytes, len(ssid))
	case !utf8.ValidString(ssid):
		return refuse(CodeSSIDNotUTF8, "The network name is not valid text; type it again.")
	}
	for i, r := range ssid {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return refuse(CodeSSIDControl, "The network name has an invisible control character at byte %d; type it again without it.", i)
		}
	}
	return nil
}

// CheckPassphrase refuses a WPA passphrase: 8 to 63 printable ASCII
// characters (no control characters). An empty passphrase means an open
// network and is allowed.
func CheckPassphrase(p string) error {
	if p == "" {
		return nil
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] > 0x7e {
			return refuse(CodePassphraseNotASCII, "A Wi-Fi password holds only printable ASCII letters, digits and symbols; character %d is not one. Type it again.", i+1)
		}
	}
	switch {
	case len(p) < MinPassphraseLen:
		return refuse(CodePassphraseShort, "A Wi-Fi password has at least %d characters; this one has %d.", MinPassphraseLen, len(p))
	case len(p) > MaxPassphraseLen:
		return refuse(CodePassphraseLong, "A Wi-Fi password has at most %d characters; this one has %d.", MaxPassphraseLen, len(p))
	}
	return nil
}
