package control_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
)

func TestSummarize(t *testing.T) {
	x, y, x2, y2, sec := 0.5, 0.25, 0.5, 0.75, 0.3
	text := "hunter2 is my password"
	tests := []struct {
		name string
		args any
		want string
	}{
		{"tap", api.TapArgs{FrameArgs: api.FrameArgs{FrameID: "f", GeometryEpoch: "1", X: &x, Y: &y}}, "at (0.50, 0.25)"},
		{"swipe", api.SwipeArgs{FrameArgs: api.FrameArgs{X: &x, Y: &y}, X2: &x2, Y2: &y2, Seconds: &sec}, "at (0.50, 0.25), to (0.50, 0.75), 0.3 s"},
		{"typed text is its length", api.TypeTextArgs{Text: &text}, "22 characters typed"},
		{"tap by element", api.TapArgs{FrameArgs: api.FrameArgs{FrameID: "f", GeometryEpoch: "1"}, Element: "e9"}, "element e9"},
		{"type into an element", api.TypeTextArgs{Text: &text, FrameID: "f", Element: "e3"}, "element e3, 22 characters typed"},
		{"app", api.LaunchAppArgs{BundleID: "com.apple.Passbook"}, "app com.apple.Passbook"},
		{"app by name", api.LaunchAppArgs{Name: "Wallet"}, "app Wallet"},
		{"url without its query", api.OpenURLArgs{URL: "https://user:pw@example.com/reset?token=s3cret#x"}, "URL https://example.com/reset (query left out)"},
		{"plain url", api.OpenURLArgs{URL: "https://example.com/a"}, "URL https://example.com/a"},
		{"link with its params' names only", api.OpenLinkArgs{BundleID: "net.whatsapp.WhatsApp", Link: "chat",
			Params: map[string]json.RawMessage{"text": json.RawMessage(`"hunter2"`), "phone": json.RawMessage(`"49301"`)}},
			"app net.whatsapp.WhatsApp, link chat, params phone, text"},
		{"key", api.KeyArgs{Key: "a", Modifiers: []api.Modifier{"cmd"}}, "key cmd+a"},
		{"button", api.ButtonArgs{Button: "home"}, "button home"},
		{"control", api.ControlArgs{Command: "resume"}, "command resume"},
		{"raw JSON", json.RawMessage(`{"url":"ftp://x/y","operation_id":"abc"}`), "URL ftp://x/y"},
		{"not an object", json.RawMessage(`[1]`), ""},
		{"nothing", api.StatusArgs{}, ""},
	}
	for _, tt := range tests {
		got := control.Summarize(tt.args)
		if got != tt.want {
			t.Errorf("%s: Summarize = %q, want %q", tt.name, got, tt.want)
		}
		for _, secret := range []string{"hunter2", "s3cret", "pw@"} {
			if strings.Contains(got, secret) {
				t.Errorf("%s: summary %q leaks %q", tt.name, got, secret)
			}
		}
	}
}
