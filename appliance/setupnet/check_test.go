package setupnet_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

func TestCheckSSID(t *testing.T) {
	for _, tc := range []struct {
		ssid string
		want setupnet.Code // "" accepted
	}{
		{"home", ""},
		{strings.Repeat("a", 32), ""},
		{strings.Repeat("é", 16), ""}, // 32 bytes
		{"Café ☕ wifi", ""},
		{"", setupnet.CodeSSIDEmpty},
		{strings.Repeat("a", 33), setupnet.CodeSSIDTooLong},
		{strings.Repeat("é", 17), setupnet.CodeSSIDTooLong}, // 17 letters, 34 bytes
		{"home\n", setupnet.CodeSSIDControl},
		{"ho\x00me", setupnet.CodeSSIDControl},
		{"home\x7f", setupnet.CodeSSIDControl},
		{"home\u0085", setupnet.CodeSSIDControl},
		{"ho\xffme", setupnet.CodeSSIDNotUTF8},
	} {
		checkCode(t, "CheckSSID", tc.ssid, setupnet.CheckSSID(tc.ssid), tc.want)
	}
}

func TestCheckPassphrase(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want setupnet.Code
	}{
		{"", ""}, // an open network
		{"12345678", ""},
		{strings.Repeat("x", 63), ""},
		{`a "quoted"; pass\word`, ""},
		{"1234567", setupnet.CodePassphraseShort},
		{strings.Repeat("x", 64), setupnet.CodePassphraseLong},
		{"password\n", setupnet.CodePassphraseNotASCII},
		{"pass\tword", setupnet.CodePassphraseNotASCII},
		{"pässword", setupnet.CodePassphraseNotASCII},
	} {
		checkCode(t, "CheckPassphrase", tc.p, setupnet.CheckPassphrase(tc.p), tc.want)
	}
}

func checkCode(t *testing.T, fn, in string, err error, want setupnet.Code) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("%s(%q) = %v, want accepted", fn, in, err)
		}
		return
	}
	var e *setupnet.Error
	if !errors.As(err, &e) || e.Code != want {
		t.Errorf("%s(%q) = %v, want code %s", fn, in, err, want)
		return
	}
	if len(e.Message) < 20 || !strings.HasSuffix(e.Message, ".") {
		t.Errorf("%s(%q): message %q is not a sentence", fn, in, e.Message)
	}
}
