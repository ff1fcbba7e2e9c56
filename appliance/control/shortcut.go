package control

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/phone"
)

// edgeSwipe is the system edge gestures' timing: a quick drag from the edge
// and a hold before lifting (iOS opens the app switcher on the pause).
const (
	edgeSwipeTime = 400 * time.Millisecond
	edgeSwipeHold = 600 * time.Millisecond
)

// shortcutRun returns how the phone performs shortcut sc, or nil when it
// cannot: a key with ⌘ on iOS (the phone's keyboard shortcuts), a system
// button, or an edge gesture (iOS's app switcher: up from the bottom edge
// and hold; Android's notifications: down from the top edge).
func shortcutRun(info phone.Info, sc api.Shortcut) func(ctx context.Context, ph phone.Phone) (phone.Report, error) {
	if !slices.Contains(api.Shortcuts(info.Platform), sc) {
		return nil
	}
	key := func(name string) func(context.Context, phone.Phone) (phone.Report, error) {
		if !info.Keyboard {
			return nil
		}
		return func(ctx context.Context, ph phone.Phone) (phone.Report, error) {
			return ph.Key(ctx, phone.Key{Name: name, Mods: phone.Cmd})
		}
	}
	button := func(b phone.Button) func(context.Context, phone.Phone) (phone.Report, error) {
		if !info.HasButton(b) {
			return nil
		}
		return func(ctx context.Context, ph phone.Phone) (phone.Report, error) { return ph.Press(ctx, b) }
	}
	swipe := func(from, to phone.Point) func(context.Context, phone.Phone) (phone.Report, error) {
		if !info.Touch {
			return nil
		}
		return func(ctx context.Context, ph phone.Phone) (phone.Report, error) {
			return ph.Touch(ctx, phone.Swipe(from, to, 0, edgeSwipeTime, edgeSwipeHold, 0))
		}
	}
	switch sc {
	case api.ShortcutHome:
		if run := button(phone.Home); run != nil {
			return run
		}
		if info.Platform == phone.IOS {
			return key("h")
		}
	case api.ShortcutSpotlight:
		return key("space")
	case api.ShortcutSelectAll:
		return key("a")
	case api.ShortcutCopy:
		return key("c")
	case api.ShortcutPaste:
		return key("v")
	case api.ShortcutUndo:
		return key("z")
	case api.ShortcutAppSwitcher:
		return swipe(phone.Point{X: 0.5, Y: 0.999}, phone.Point{X: 0.5, Y: 0.6})
	case api.ShortcutBack:
		return button(phone.Back)
	case api.ShortcutRecents:
		return button(phone.AppSwitch)
	case api.ShortcutNotifications:
		return swipe(phone.Point{X: 0.5, Y: 0.001}, phone.Point{X: 0.5, Y: 0.6})
	}
	return nil
}

// shortcuts lists the shortcuts this phone performs, in the platform's
// order.
func shortcuts(info phone.Info) []api.Shortcut {
	out := []api.Shortcut{}
	for _, sc := range api.Shortcuts(info.Platform) {
		if shortcutRun(info, sc) != nil {
			out = append(out, sc)
		}
	}
	return out
}

// Shortcut is openlolo_shortcut.
func (s *Service) Shortcut(ctx context.Context, c Client, a api.ShortcutArgs) Reply[api.ShortcutResult] {
	if e := s.admit(c); e != nil {
		return refuseInput[api.ShortcutResult](e)
	}
	o, e := checkOptions(api.ToolShortcut, &a.InputOptions)
	if e != nil {
		return refuseInput[api.ShortcutResult](e)
	}
	name := api.Shortcut(strings.ToLower(strings.TrimSpace(string(a.Shortcut))))
	if name == "" {
		return refuseInput[api.ShortcutResult](invalid("argument \"shortcut\" is required"))
	}
	info := s.ph.Info()
	run := shortcutRun(info, name)
	if run == nil {
		have := make([]string, 0)
		for _, sc := range shortcuts(info) {
			have = append(have, string(sc))
		}
		return refuseInput[api.ShortcutResult](api.Errorf(api.CodeUnsupported, "shortcut %q is not one this %s phone performs; it takes: %s",
			api.Clip(string(a.Shortcut)), info.Platform, strings.Join(have, ", ")))
	}
	return input[api.ShortcutResult](ctx, s, c, api.ToolShortcut, o, a, nil, func(ctx context.Context) (phone.Report, error) {
		return run(ctx, s.ph)
	}, nil)
}
