package android_test

import (
	"errors"
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/hw/adb/adbtest"
	"github.com/openlolo/openlolo/hw/android"
)

// The default screen's elements: the title, the focused search field,
// the list, its row (a cell) with its text and its switch nested
// inside, and the logo with a resource id; the bare view is left out.
func TestElements(t *testing.T) {
	t.Parallel()
	_, b := readyPhone(t, &adbtest.Phone{IdleFailures: 2})
	list, err := b.Elements(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if list.Source != api.SourceAccessibility || list.Geometry.Width != 1080 || list.Geometry.Height != 2400 {
		t.Errorf("list source %s geometry %+v", list.Source, list.Geometry)
	}
	var got []string
	for _, e := range list.Elements {
		got = append(got, fmt.Sprintf("%s %q %q %v", e.Role, e.Text+e.Label, e.Identifier, e.Bounds))
	}
	want := []string{
		`text "Settings" "com.android.settings:id/title" (48,180)-(400,260)`,
		`text_field "Search settings" "com.android.settings:id/search" (48,300)-(1032,420)`,
		`list "" "android:id/list" (0,450)-(1080,2400)`,
		`cell "" "" (0,450)-(1080,650)`,
		`text "Wi‑Fi" "android:id/title" (200,480)-(600,560)`,
		`switch "" "android:id/switch_widget" (900,500)-(1032,600)`,
		`image "" "com.android.settings:id/logo" (0,700)-(1080,900)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("elements\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sw := list.Elements[5]
	if !sw.Checkable || !sw.Checked || !sw.Clickable || !sw.Enabled || !list.Elements[1].Focused || !list.Elements[2].Scrollable {
		t.Errorf("states lost: switch %+v", sw)
	}
}

// A screen that never settles: three tries, then an error naming why.
func TestElementsBusyScreen(t *testing.T) {
	t.Parallel()
	_, b := readyPhone(t, &adbtest.Phone{IdleFailures: 3})
	if _, err := b.Elements(t.Context()); err == nil || !strings.Contains(err.Error(), "could not get idle state") || !strings.Contains(err.Error(), "try 3") {
		t.Errorf("Elements = %v, want the idle-state error after 3 tries", err)
	}
}

func TestParseDump(t *testing.T) {
	t.Parallel()
	els, err := android.ParseDump([]byte("UI hierchary dumped to: /dev/tty\n<?xml version='1.0' ?><hierarchy rotation=\"1\">" +
		`<node class="android.widget.Button" text="OK" bounds="[10,20][110,70]" clickable="true" enabled="true"/>` +
		`<node class="android.widget.FrameLayout" bounds="[0,0][5,5]"/>` +
		`<node class="android.widget.CheckBox" bounds="[0,100][50,150]" checkable="true"/>` +
		`<node class="android.view.View" content-desc="Close" bounds="[0,0][0,0]"/>` +
		`</hierarchy>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 2 || els[0].Role != api.RoleButton || els[0].Bounds != image.Rect(10, 20, 110, 70) || els[1].Role != api.RoleCheckbox {
		t.Errorf("elements %+v; want the button and the textless checkbox (not the bare layout or the empty-bounds view)", els)
	}
	for _, bad := range []string{"", "ERROR: null root node returned by UiTestAutomationBridge.", "<hierarchy><node bounds=\"[0,0][1,1]\">", "<hierarchy><node></hierarchy>"} {
		if _, err := android.ParseDump([]byte(bad)); !errors.Is(err, android.ErrDump) {
			t.Errorf("ParseDump(%q) = %v, want ErrDump", bad, err)
		}
	}
}

func FuzzParseDump(f *testing.F) {
	f.Add(adbtest.DefaultUI)
	f.Add([]byte(`<hierarchy><node class="a.b.EditText" text="x" bounds="[1,2][3,4]"><node bounds="[9,9][1,1]" clickable="true"/></node></hierarchy>`))
	f.Add([]byte(`<hierarchy><node bounds="[-1,0][8193,2]"/></hierarchy>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		els, err := android.ParseDump(b)
		if err != nil {
			return
		}
		for _, e := range els {
			if e.Bounds.Empty() || e.Bounds.Min.X < 0 || e.Bounds.Max.X > 8192 || e.Bounds != e.Bounds.Canon() {
				t.Fatalf("element with bounds %v", e.Bounds)
			}
			if e.Role == "" {
				t.Fatalf("element without a role: %+v", e)
			}
		}
	})
}
