package integration

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice"
	"github.com/openlolo/openlolo/hw/coredevice/coredevicetest"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/waittest"
)

// TestCoreDeviceCLI: what issue 15 asks of a box on the fake iPhone
// (iOS 27, with DisplayService and the HID services), run as a script
// writer would, with the openlolo binary: `openlolo pair`, then `openlolo
// call` for openlolo_screenshot, openlolo_apps, openlolo_launch_app,
// openlolo_send_text, openlolo_clipboard and a tap with the screenshot's
// frame. Each call's effect is checked on the fake phone, not only the
// answer.
func TestCoreDeviceCLI(t *testing.T) {
	in := &coredevicetest.Input{}
	st := &coredevicetest.State{Input: in, Apps: map[string]string{"com.apple.mobilesafari": "Safari", "com.apple.mobilenotes": "Notes"}}
	p := &coredevicetest.Phone{ProductVersion: "27.0", DeveloperMode: true}
	tb := boxOnFakeIPhone(t, p, st, coredevice.Options{StreamSettle: time.Millisecond, Keepalive: 50 * time.Millisecond, InputIdle: -1})
	store := filepath.Join(t.TempDir(), "boxes.json")
	cliPair(t, tb, store, "iphone script")

	shot := callJSON(t, store, 0, tb.URL, "openlolo_screenshot", "--out", filepath.Join(t.TempDir(), "shot.png"), "format=png")
	if shot["frame_id"] == nil || shot["geometry_epoch"] == nil {
		t.Fatalf("screenshot answer %v has no frame", shot)
	}
	apps := callJSON(t, store, 0, tb.URL, "openlolo_apps")
	list, _ := apps["apps"].([]any)
	if !slices.ContainsFunc(list, func(a any) bool {
		m, _ := a.(map[string]any)
		return m["bundle_id"] == "com.apple.mobilenotes" && m["name"] == "Notes"
	}) {
		t.Errorf("openlolo_apps = %v, want the phone's Notes", apps)
	}
	callJSON(t, store, 0, tb.URL, "openlolo_launch_app", "bundle_id=com.apple.mobilenotes")
	if got := st.Launches(); len(got) != 1 || got[0] != "com.apple.mobilenotes" {
		t.Errorf("after openlolo call openlolo_launch_app the phone launched %v", got)
	}
	const text = "héllo ✓ 日本"
	sent := callJSON(t, store, 0, tb.URL, "openlolo_send_text", "text="+text)
	if sent["clipboard_replaced"] != true {
		t.Errorf("openlolo_send_text = %v, want clipboard_replaced", sent)
	}
	if cb := callJSON(t, store, 0, tb.URL, "openlolo_clipboard"); cb["text"] != text {
		t.Errorf("openlolo_clipboard = %v, want %q", cb, text)
	}
	// A tap needs the caller's latest frame (the inputs above answered
	// with newer ones), as a script would take it.
	shot = callJSON(t, store, 0, tb.URL, "openlolo_screenshot", "--out", filepath.Join(t.TempDir(), "shot.jpg"))
	callJSON(t, store, 0, tb.URL, "openlolo_tap", fmt.Sprintf("frame_id=%v", shot["frame_id"]),
		fmt.Sprintf("geometry_epoch=%v", shot["geometry_epoch"]), "x=0.25", "y=0.75")
	if !waittest.Until(20*time.Second, 5*time.Millisecond, func() bool { return len(in.Touches()) >= 2 }) {
		t.Fatalf("the phone took touches %v", in.Touches())
	}
	if touch := in.Touches()[0]; !touch.Down || touch.X != remotehid.Coord(0.25) || touch.Y != remotehid.Coord(0.75) {
		t.Errorf("first touch %+v, want contact at (0.25, 0.75)", touch)
	}
	pasted := slices.ContainsFunc(in.Keys(), func(k []byte) bool { return len(k) == 2 && k[0] == 0x19 && k[1] == 0xE3 })
	if !pasted {
		t.Errorf("keys %v: send_text's cmd-V (V 0x19 with left GUI 0xE3) never reached the phone", in.Keys())
	}
}
