package control_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
	"github.com/openlolo/openlolo/phone"
)

var quiet = api.InputOptions{Observe: new(bool)}

// TestShortcutsOnTheSim: the iOS shortcuts reach the simulated iPhone as
// its keyboard and touch inputs, and capabilities lists them.
func TestShortcutsOnTheSim(t *testing.T) {
	svc, ph := textService(t, nil, control.Limits{})
	ctx := context.Background()
	caps := svc.Capabilities(ctx, alice, api.CapabilitiesArgs{})
	want := []api.Shortcut{"home", "spotlight", "select_all", "copy", "paste", "undo", "app_switcher"}
	if caps.Error != nil || !slices.Equal(caps.Result.Shortcuts, want) {
		t.Fatalf("capabilities shortcuts %v, want %v", caps.Result.Shortcuts, want)
	}
	for _, step := range []struct {
		sc     api.Shortcut
		screen string
	}{{"spotlight", "spotlight"}, {"HOME", "home"}, {"spotlight", "spotlight"}, {"app_switcher", "home"}} {
		rep := svc.Shortcut(ctx, alice, api.ShortcutArgs{InputOptions: quiet, Shortcut: step.sc})
		if rep.Error != nil {
			t.Fatalf("%s: %v", step.sc, rep.Error)
		}
		// The sim has no app switcher: its bottom-edge swipe goes home.
		if ph.Screen() != step.screen {
			t.Errorf("after %s the sim shows %q, want %q", step.sc, ph.Screen(), step.screen)
		}
	}
	for _, tc := range []struct {
		sc   api.Shortcut
		code api.Code
		says string
	}{
		{"back", api.CodeUnsupported, "home, spotlight, select_all"},
		{"sudo", api.CodeUnsupported, "not one this ios phone performs"},
		{"", api.CodeInvalidArguments, "required"},
	} {
		rep := svc.Shortcut(ctx, alice, api.ShortcutArgs{Shortcut: tc.sc})
		if rep.Error == nil || rep.Error.Code != tc.code || !strings.Contains(rep.Error.Message, tc.says) || (rep.Outcome.Dispatched != nil && *rep.Outcome.Dispatched) {
			t.Errorf("%q: %+v, want %s saying %q, nothing dispatched", tc.sc, rep.Outcome, tc.code, tc.says)
		}
	}
}

// android is the sim's screen and input behind an Android phone's
// description, recording what the shortcuts press and touch.
type android struct {
	*sim.Phone
	mu  sync.Mutex
	did []string
}

func (a *android) Info() phone.Info {
	i := a.Phone.Info()
	i.Platform, i.Buttons = phone.Android, []phone.Button{phone.Home, phone.Back, phone.AppSwitch}
	return i
}

func (a *android) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	a.mu.Lock()
	a.did = append(a.did, string(b))
	a.mu.Unlock()
	return phone.Report{Reports: 2}, nil
}

func (a *android) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	a.mu.Lock()
	first, last := g.Steps[0], g.Steps[len(g.Steps)-1]
	a.did = append(a.did, fmt.Sprintf("swipe %.3f→%.3f", first.Y, last.Y))
	a.mu.Unlock()
	return phone.Report{Reports: len(g.Steps)}, nil
}

func TestShortcutsOnAndroid(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ph := &android{Phone: s}
	svc, err := control.New(ctx, control.Config{Store: st, Phone: ph})
	if err != nil {
		t.Fatal(err)
	}
	caps := svc.Capabilities(ctx, alice, api.CapabilitiesArgs{})
	if want := []api.Shortcut{"home", "back", "recents", "notifications"}; !slices.Equal(caps.Result.Shortcuts, want) {
		t.Fatalf("shortcuts %v, want %v", caps.Result.Shortcuts, want)
	}
	for _, sc := range []api.Shortcut{"home", "back", "recents", "notifications"} {
		if rep := svc.Shortcut(ctx, alice, api.ShortcutArgs{InputOptions: quiet, Shortcut: sc}); rep.Error != nil {
			t.Fatalf("%s: %v", sc, rep.Error)
		}
	}
	if want := []string{"home", "back", "app_switch", "swipe 0.001→0.600"}; !slices.Equal(ph.did, want) {
		t.Errorf("the phone got %v, want %v", ph.did, want)
	}
	if rep := svc.Shortcut(ctx, alice, api.ShortcutArgs{Shortcut: "spotlight"}); rep.Error == nil || rep.Error.Code != api.CodeUnsupported {
		t.Errorf("spotlight on Android: %+v", rep.Outcome)
	}
}
