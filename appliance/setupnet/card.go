package setupnet

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skip2/go-qrcode"
)

// SSIDPrefix starts the setup network's name; [SSID] adds the box's
// four-character suffix.
const SSIDPrefix = "openlolo-setup-"

// SSID is the setup network's name for a box id: the prefix and the id's
// last four letters or digits, lower case ("openlolo-setup-3f2a").
func SSID(boxID string) string {
	var b []byte
	for i := len(boxID) - 1; i >= 0 && len(b) < 4; i-- {
		c := boxID[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	for len(b) < 4 {
		b = append(b, '0')
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return SSIDPrefix + string(b)
}

// passwordAlphabet has no look-alike characters (0/o, 1/l/i) so the card
// can be typed by hand; 31 letters, 16 of them give about 79 bits.
const passwordAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// NewPassword returns a random setup password: 16 characters in groups of
// four ("k7dm-2xqa-9fhe-wp3t").
func NewPassword() string {
	var out strings.Builder
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		panic("setupnet: crypto/rand: " + err.Error()) // rand.Read does not fail (Go 1.24+)
	}
	for i, c := range buf {
		if i > 0 && i%4 == 0 {
			out.WriteByte('-')
		}
		// 248 is the largest multiple of 31 under 256; re-draw above it.
		for c >= 248 {
			var one [1]byte
			_, _ = rand.Read(one[:])
			c = one[0]
		}
		out.WriteByte(passwordAlphabet[int(c)%len(passwordAlphabet)])
	}
	return out.String()
}

// PasswordFile is the setup password's file in the state directory.
const PasswordFile = "setup-wifi-password"

// LoadPassword returns the setup password kept in stateDir, creating it
// (mode 0600) on first use. A kept password that is no longer a valid
// passphrase is an error, not silently replaced: the printed card would
// stop matching.
func LoadPassword(stateDir string) (string, error) {
	path := filepath.Join(stateDir, PasswordFile)
	b, err := os.ReadFile(path)
	if err == nil {
		p := strings.TrimSpace(string(b))
		if err := CheckPassphrase(p); err != nil || p == "" {
			return "", fmt.Errorf("setupnet: load password: %s is not a usable passphrase (delete it for a new one): %v", path, err)
		}
		return p, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("setupnet: load password: %w", err)
	}
	p := NewPassword()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(p+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("setupnet: save password: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("setupnet: save password: %w", err)
	}
	return p, nil
}

// Card is what the setup card shows: the network, its password, and the
// page to open once joined.
type Card struct {
	SSID     string
	Password string
	PageURL  string // e.g. http://192.168.4.1/
}

// WiFiQR is the payload of the Wi-Fi QR code phones' cameras join from:
// WIFI:T:WPA;S:<ssid>;P:<password>;; with \ ; , : and " escaped by a
// backslash.
func (c Card) WiFiQR() string {
	return "WIFI:T:WPA;S:" + qrEscape(c.SSID) + ";P:" + qrEscape(c.Password) + ";;"
}

func qrEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', ';', ',', ':', '"':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Text is the setup card file's content (openlolo/setup-card.txt on the
// boot partition, and the console).
func (c Card) Text() string {
	return fmt.Sprintf(`openlolo setup card

1. Join the Wi-Fi network
   name:     %s
   password: %s
   (or scan the Wi-Fi QR code: %s)
2. Your phone opens the box page; if it does not, open %s
3. Choose your home Wi-Fi there.

The setup network opens when the box has no network, 2 minutes after it
loses it, when the button is held 5 to 10 seconds and let go (held on,
the box resets), or from Settings; it closes 10 minutes after opening.
`, c.SSID, c.Password, c.WiFiQR(), c.PageURL)
}

// Card files, in the boot partition's openlolo folder.
const (
	CardText   = "setup-card.txt"
	CardWiFiQR = "setup-wifi-qr.png" // the Wi-Fi QR code: a phone's camera joins from it
	CardPageQR = "setup-page-qr.png" // the page URL's QR code
)

// qrSize is the QR images' side in pixels.
const qrSize = 384

// WriteFiles writes the card's text and its two QR codes into dir (the
// boot partition's openlolo folder), each file replaced whole. They hold
// the setup password, so they are mode 0600 (a FAT boot partition ignores
// modes: the card is readable by whoever holds it, as a printed card is).
func (c Card) WriteFiles(dir string) error {
	wifiPNG, err := qrcode.Encode(c.WiFiQR(), qrcode.Medium, qrSize)
	if err != nil {
		return fmt.Errorf("setupnet: card: Wi-Fi QR code: %w", err)
	}
	pagePNG, err := qrcode.Encode(c.PageURL, qrcode.Medium, qrSize)
	if err != nil {
		return fmt.Errorf("setupnet: card: page QR code: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("setupnet: card: %w", err)
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{CardText, []byte(c.Text())}, {CardWiFiQR, wifiPNG}, {CardPageQR, pagePNG}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path+".tmp", f.b, 0o600); err != nil {
			return fmt.Errorf("setupnet: card: %w", err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return fmt.Errorf("setupnet: card: %w", err)
		}
	}
	return nil
}
