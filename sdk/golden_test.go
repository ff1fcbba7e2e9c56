package sdk

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/openlolo/openlolo/api"
)

// strictly decodes the members of b that are not the outcome's into an R,
// refusing any member R does not have.
func strictly[R any](b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, k := range []string{"status", "operation_id", "dispatched", "state", "replayed", "tool", "error"} {
		delete(m, k)
	}
	rest, _ := json.Marshal(m)
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	var r R
	return dec.Decode(&r)
}

// TestGoldenAnswersDecode reads the box's golden answers (written by
// appliance/mcp's tests on the simulated phone): each successful answer
// decodes into its tool's api result type with no member left over, and
// each refusal into a *Refused with its code.
func TestGoldenAnswersDecode(t *testing.T) {
	decoders := map[api.Tool]func([]byte) error{
		api.ToolStatus: strictly[api.StatusResult], api.ToolCapabilities: strictly[api.CapabilitiesResult],
		api.ToolScreenshot: strictly[api.ScreenshotResult], api.ToolApps: strictly[api.AppsResult],
		api.ToolDeviceInfo: strictly[api.DeviceInfoResult], api.ToolOperationStatus: strictly[api.OperationStatusResult],
		api.ToolWatch: strictly[api.WatchResult], api.ToolPause: strictly[api.PauseResult],
		api.ToolTap: strictly[api.TapResult], api.ToolLongPress: strictly[api.LongPressResult],
		api.ToolSwipe: strictly[api.SwipeResult], api.ToolTypeText: strictly[api.TypeTextResult],
		api.ToolKey: strictly[api.KeyResult], api.ToolButton: strictly[api.ButtonResult],
		api.ToolLaunchApp: strictly[api.LaunchAppResult], api.ToolOpenURL: strictly[api.OpenURLResult],
		api.ToolControl: strictly[api.ControlResult], api.ToolCancel: strictly[api.CancelResult],
		api.ToolFindText: strictly[api.FindTextResult], api.ToolShortcut: strictly[api.ShortcutResult],
		api.ToolAppProfiles: strictly[api.AppProfilesResult], api.ToolAppProfile: strictly[api.AppProfileResult],
		api.ToolOpenLink: strictly[api.OpenLinkResult],
		api.ToolFullPage: strictly[api.FullPageResult], api.ToolSendText: strictly[api.SendTextResult],
		api.ToolClipboard: strictly[api.ClipboardResult], api.ToolElements: strictly[api.ElementsResult],
		api.ToolPhones: strictly[api.PhonesResult],
	}
	files, err := filepath.Glob("../api/testdata/answers/*.json")
	if err != nil || len(files) != len(decoders) {
		t.Fatalf("%d golden answers (%v), want %d", len(files), err, len(decoders))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var pair struct{ OK, Refused json.RawMessage }
		if err := json.Unmarshal(b, &pair); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tool := api.Tool(filepath.Base(f[:len(f)-len(".json")]))
		dec := decoders[tool]
		if dec == nil {
			t.Fatalf("%s: no such tool", f)
		}
		if err := dec(pair.OK); err != nil {
			t.Errorf("%s: the success does not decode into its api type: %v", tool, err)
		}
		var res Result
		if err := res.setStructured(pair.Refused); err != nil || !res.Outcome.Failed() {
			t.Fatalf("%s: refusal %s (%v)", tool, pair.Refused, err)
		}
		if r := refusedFrom(string(tool), res.Outcome); r.Code == string(api.CodeInternal) || r.Message == "" || len(r.NextSteps) == 0 {
			t.Errorf("%s: refusal read as %+v", tool, r)
		}
	}
}
