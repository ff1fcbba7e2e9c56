package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func TestIsKeyMatchesKeyNames(t *testing.T) {
	for _, k := range KeyNames() {
		if !IsKey(k) {
			t.Errorf("IsKey(%q) = false for a listed key", k)
		}
	}
	for _, k := range []string{"", "f0", "f13", "f01", "aa", "Enter", "hyper", "-", "f1x"} {
		if IsKey(k) {
			t.Errorf("IsKey(%q) = true, want false", k)
		}
	}
}

// argTypes are every tool's argument struct.
var argTypes = map[Tool]reflect.Type{
	ToolStatus: reflect.TypeFor[StatusArgs](), ToolCapabilities: reflect.TypeFor[CapabilitiesArgs](),
	ToolScreenshot: reflect.TypeFor[ScreenshotArgs](), ToolApps: reflect.TypeFor[AppsArgs](),
	ToolDeviceInfo: reflect.TypeFor[DeviceInfoArgs](), ToolOperationStatus: reflect.TypeFor[OperationStatusArgs](),
	ToolWatch: reflect.TypeFor[WatchArgs](), ToolPause: reflect.TypeFor[PauseArgs](),
	ToolTap: reflect.TypeFor[TapArgs](), ToolLongPress: reflect.TypeFor[LongPressArgs](),
	ToolSwipe: reflect.TypeFor[SwipeArgs](), ToolTypeText: reflect.TypeFor[TypeTextArgs](),
	ToolKey: reflect.TypeFor[KeyArgs](), ToolButton: reflect.TypeFor[ButtonArgs](),
	ToolLaunchApp: reflect.TypeFor[LaunchAppArgs](), ToolOpenURL: reflect.TypeFor[OpenURLArgs](),
	ToolControl: reflect.TypeFor[ControlArgs](), ToolCancel: reflect.TypeFor[CancelArgs](),
	ToolFindText: reflect.TypeFor[FindTextArgs](), ToolShortcut: reflect.TypeFor[ShortcutArgs](),
	ToolAppProfiles: reflect.TypeFor[AppProfilesArgs](), ToolAppProfile: reflect.TypeFor[AppProfileArgs](),
	ToolOpenLink: reflect.TypeFor[OpenLinkArgs](),
	ToolFullPage: reflect.TypeFor[FullPageArgs](), ToolSendText: reflect.TypeFor[SendTextArgs](),
	ToolClipboard: reflect.TypeFor[ClipboardArgs](), ToolElements: reflect.TypeFor[ElementsArgs](),
}

// TestBoundsCoverArguments: every number argument has a range in the
// table, an optional one a default inside it, and every argument a
// description (a desc tag, on tools/list, or a doc tag, in the
// reference); a default's JSON type is the argument's.
func TestBoundsCoverArguments(t *testing.T) {
	for tool, typ := range argTypes {
		for _, f := range fields(typ) {
			if f.doc == "" {
				t.Errorf("%s.%s has no description", tool, f.name)
			}
			b, ok := BoundOf(tool, f.name)
			k := f.typ
			if k.Kind() == reflect.Pointer {
				k = k.Elem()
			}
			switch k.Kind() {
			case reflect.Float64, reflect.Int:
				if !ok || !b.Ranged {
					t.Errorf("%s.%s is a number without a range", tool, f.name)
					continue
				}
				if f.required != (b.Default == nil) {
					t.Errorf("%s.%s: required %v, default %v", tool, f.name, f.required, b.Default)
				}
				var d float64
				switch v := b.Default.(type) {
				case float64:
					d = v
					if k.Kind() != reflect.Float64 {
						t.Errorf("%s.%s: a float default for an integer", tool, f.name)
					}
				case int:
					d = float64(v)
					if k.Kind() != reflect.Int {
						t.Errorf("%s.%s: an integer default for a number", tool, f.name)
					}
				case nil:
					continue
				}
				if d < b.Min || d > b.Max {
					t.Errorf("%s.%s: default %g outside [%g, %g]", tool, f.name, d, b.Min, b.Max)
				}
			case reflect.Bool:
				if _, isBool := b.Default.(bool); f.typ.Kind() == reflect.Pointer && !isBool {
					t.Errorf("%s.%s: an optional flag without a default", tool, f.name)
				}
			}
		}
	}
}

func TestInputSchemaShape(t *testing.T) {
	s := InputSchema(ToolSwipe, reflect.TypeFor[SwipeArgs]())
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	props := m["properties"].(map[string]any)
	sec := props["seconds"].(map[string]any)
	if sec["default"] != DefaultSwipe || sec["minimum"] != MinGesture || sec["maximum"] != MaxGesture {
		t.Errorf("seconds %v", sec)
	}
	if ep := props["geometry_epoch"].(map[string]any); !reflect.DeepEqual(ep["type"], []any{"string", "integer"}) {
		t.Errorf("geometry_epoch type %v", ep["type"])
	}
	want := []string{"frame_id", "geometry_epoch", "x", "y", "x2", "y2"}
	// additionalProperties is left out: the box refuses other members
	// itself, and the keyword would cost every tool's caller.
	if !slices.Equal(s.Required, want) || m["additionalProperties"] != nil {
		t.Errorf("required %v, additionalProperties %v", s.Required, m["additionalProperties"])
	}
	fp := *InputSchema(ToolFullPage, reflect.TypeFor[FullPageArgs]()).Properties
	if *fp["max_size"].Maximum != MaxPageSize || fp["max_pages"].Default != MaxPages || fp["output"].Default != OutputPages ||
		fp["settle"].Default != DefaultPageSettle || len(fp["output"].Enum) != 3 {
		t.Errorf("full_page schema: max_size %v, max_pages %v, output %v, settle %v", *fp["max_size"].Maximum,
			fp["max_pages"].Default, fp["output"], fp["settle"].Default)
	}
	if st := (*InputSchema(ToolSendText, reflect.TypeFor[SendTextArgs]()).Properties)["text"]; *st.MaxLength != MaxSendText || *st.MinLength != 1 {
		t.Errorf("send_text text length %d..%d", *st.MinLength, *st.MaxLength)
	}
	if l := InputSchema(ToolLaunchApp, reflect.TypeFor[LaunchAppArgs]()); (*l.Properties)["settle"].Default != StepsSettle {
		t.Errorf("launch_app settle default %v, want %v", (*l.Properties)["settle"].Default, StepsSettle)
	}
}

func TestAnswerJSON(t *testing.T) {
	ok := Answer[PauseResult]{Outcome: Outcome{Status: StatusOK, OperationID: "op", Dispatched: ptr(true)}, Result: &PauseResult{Paused: true}}
	b, err := json.Marshal(ok)
	if err != nil || string(b) != `{"status":"ok","operation_id":"op","dispatched":true,"paused":true}` {
		t.Fatalf("ok answer %s, %v", b, err)
	}
	var back Answer[PauseResult]
	if err := json.Unmarshal(b, &back); err != nil || back.Result == nil || !back.Result.Paused || back.OperationID != "op" {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	failed := Answer[PauseResult]{Outcome: Outcome{Status: StatusFailed, Error: Errorf(CodePaused, "x")}}
	b, _ = json.Marshal(failed)
	if err := json.Unmarshal(b, &back); err != nil || back.Result != nil || back.Error.Code != CodePaused {
		t.Fatalf("failed answer %s → %+v, %v", b, back, err)
	}
	empty := Answer[StatusArgs]{Outcome: Outcome{Status: StatusOK}, Result: &StatusArgs{}}
	if b, _ := json.Marshal(empty); string(b) != `{"status":"ok"}` {
		t.Fatalf("empty result %s", b)
	}
}

func TestEventJSON(t *testing.T) {
	for _, e := range []Event{
		{Kind: KindFrame, TimeMS: 5, Cursor: "c1", Frame: &FrameEvent{Seq: 3, FrameTimeMS: 4}},
		{Kind: KindPhone, TimeMS: 5, Cursor: "c2", Phone: &PhoneEvent{Event: "detached", State: "detached"}},
		{Kind: KindAccess, TimeMS: 5, Access: &AccessEvent{Event: "revoked"}},
	} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, e) {
			t.Errorf("%s → %+v (%v), want %+v", b, back, err, e)
		}
	}
	b, _ := json.Marshal(Event{Kind: KindPhone, Phone: &PhoneEvent{Event: "detached"}})
	if string(b) != `{"kind":"phone","time_ms":0,"event":"detached","state":"","width":0,"height":0,"geometry_epoch":""}` {
		t.Errorf("phone event %s", b)
	}
}
