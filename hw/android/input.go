package android

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/openlolo/openlolo/phone"
)

// Input paths, as Report.Via names them.
const (
	// ShellInput is the shell's `input` command over ADB.
	ShellInput = "adb-input"
	// AOAInput is AOA v2 HID on the same cable (hw/aoa), the default
	// name of an injected [Options].Input.
	AOAInput = "aoa"
)

// longPress is how long a contact in place must last to be a long press
// rather than a tap (Android's long-press timeout is 400–500 ms).
const longPress = 400 * time.Millisecond

// refusedByPath reports whether an injected input path's error means it
// cannot do that input (the shell may), rather than that it failed.
func refusedByPath(err error) bool {
	return errors.Is(err, phone.ErrUnsupported) || errors.Is(err, phone.ErrUnsupportedKey) || errors.Is(err, phone.ErrUnsupportedButton)
}

// deliver runs one input: by the injected path when it takes it, else by
// the shell's `input` (send), one input at a time. Report.Via names the
// path that ran.
func (b *Backend) deliver(ctx context.Context, what string, other func(phone.Input) (phone.Report, error), send func(dev device, geo phone.Geometry) ([]string, error)) (phone.Report, error) {
	c, dev, err := b.current()
	if err != nil {
		return phone.Report{}, err
	}
	b.inMu.Lock()
	defer b.inMu.Unlock()
	start := b.o.Now()
	if in := b.o.Input; in != nil {
		rep, err := other(in)
		rep.Via = b.o.InputName
		if !refusedByPath(err) {
			b.log.Debug("android: input", "what", what, "path", rep.Via, "err", err)
			return rep, err
		}
		b.log.Debug("android: input path refused; the shell's input runs", "what", what, "path", rep.Via, "why", err)
	}
	b.mu.Lock()
	geo := b.state.Geometry
	b.mu.Unlock()
	cmds, err := send(dev, geo)
	if err != nil {
		return phone.Report{}, err
	}
	rep := phone.Report{Via: ShellInput}
	for _, cmd := range cmds {
		if _, err := shell(ctx, c, cmd); err != nil {
			rep.Took = b.o.Now().Sub(start)
			return rep, fmt.Errorf("android: %w: %s: %w", phone.ErrInputFailed, what, err)
		}
		rep.Reports++
	}
	rep.Took = b.o.Now().Sub(start)
	b.log.Debug("android: input", "what", what, "path", ShellInput, "commands", rep.Reports, "took", rep.Took)
	return rep, nil
}

// Touch performs g: by the injected input path, else `input tap` for a
// short contact in place, `input swipe` in place for a long press, and
// `input swipe` from the first point to the last over g's duration for a
// movement (the shell cannot follow a path's turns).
func (b *Backend) Touch(ctx context.Context, g phone.Gesture) (phone.Report, error) {
	if err := g.Validate(); err != nil {
		return phone.Report{}, err
	}
	return b.deliver(ctx, "touch", func(in phone.Input) (phone.Report, error) { return in.Touch(ctx, g) },
		func(_ device, geo phone.Geometry) ([]string, error) {
			return touchCommand(g, geo)
		})
}

// touchCommand is the `input` command for g on a screen of geo.
func touchCommand(g phone.Gesture, geo phone.Geometry) ([]string, error) {
	if geo.Width <= 0 || geo.Height <= 0 {
		return nil, fmt.Errorf("android: %w: the screen's size is not known yet", phone.ErrUnavailable)
	}
	px := func(p phone.Point) (int, int) {
		x := min(int(math.Round(p.X*float64(geo.Width))), geo.Width-1)
		y := min(int(math.Round(p.Y*float64(geo.Height))), geo.Height-1)
		return x, y
	}
	first, last := g.Steps[0].Point, g.Steps[len(g.Steps)-1].Point
	x1, y1 := px(first)
	x2, y2 := px(last)
	inPlace := true
	for _, s := range g.Steps {
		if x, y := px(s.Point); x != x1 || y != y1 {
			inPlace = false
		}
	}
	ms := max(g.Duration().Milliseconds(), 1)
	switch {
	case inPlace && g.Duration() < longPress:
		return []string{fmt.Sprintf("input tap %d %d", x1, y1)}, nil
	case inPlace:
		return []string{fmt.Sprintf("input swipe %d %d %d %d %d", x1, y1, x1, y1, ms)}, nil
	}
	return []string{fmt.Sprintf("input swipe %d %d %d %d %d", x1, y1, x2, y2, ms)}, nil
}

// Type types printable US ASCII with `input text` (or the injected path);
// other text answers phone.ErrUnsupportedText, naming the clipboard where
// the phone has one.
func (b *Backend) Type(ctx context.Context, text string) (phone.Report, error) {
	for i, r := range text {
		if r < 0x20 || r > 0x7e {
			return phone.Report{}, b.unsupportedText(r, i)
		}
	}
	if text == "" {
		return phone.Report{}, nil
	}
	return b.deliver(ctx, "text", func(in phone.Input) (phone.Report, error) { return in.Type(ctx, text) },
		func(device, phone.Geometry) ([]string, error) { return textCommands(text), nil })
}

func (b *Backend) unsupportedText(r rune, at int) error {
	err := fmt.Errorf("android: %w: %q at byte %d: `input text` types printable US ASCII only; nothing was typed", phone.ErrUnsupportedText, r, at)
	if b.Info().Can.Clipboard {
		return &phone.StepError{Err: err, Steps: []string{"Send this text with openlolo_send_text: it goes through the phone's clipboard and pastes whole."}}
	}
	return &phone.StepError{Err: err, Steps: []string{
		"This phone's shell has no clipboard command (cmd clipboard), so the box cannot paste other characters either.",
		"Type the ASCII parts with openlolo_type_text, or pick the characters from the phone's own keyboard with taps.",
	}}
}

// textCommands are the `input text` commands that type text (printable
// ASCII): a space is written %s, which `input text` turns into one; a
// literal "%s" is split between two commands so it stays literal.
func textCommands(text string) []string {
	var cmds []string
	for _, part := range splitPercentS(text) {
		cmds = append(cmds, "input text "+shQuote(strings.ReplaceAll(part, " ", "%s")))
	}
	return cmds
}

// splitPercentS splits text between every '%' and an 's' after it.
func splitPercentS(text string) []string {
	var parts []string
	for {
		i := strings.Index(text, "%s")
		if i < 0 {
			return append(parts, text)
		}
		parts = append(parts, text[:i+1])
		text = text[i+1:]
	}
}

// shQuote quotes s for the phone's shell: one word, nothing expanded.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Key presses one named key with `input keyevent`; ctrl+c, ctrl+x and
// ctrl+v are the phone's copy, cut and paste keys, and other modifiers
// need `input keycombination` (Android 13 and later).
func (b *Backend) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	code, ok := keyCode(k.Name)
	if !ok {
		return phone.Report{}, fmt.Errorf("android: %w: %q", phone.ErrUnsupportedKey, k.Name)
	}
	return b.deliver(ctx, "key", func(in phone.Input) (phone.Report, error) { return in.Key(ctx, k) },
		func(dev device, _ phone.Geometry) ([]string, error) {
			if k.Mods == phone.Ctrl {
				switch k.Name {
				case "c":
					return []string{"input keyevent KEYCODE_COPY"}, nil
				case "x":
					return []string{"input keyevent KEYCODE_CUT"}, nil
				case "v":
					return []string{"input keyevent KEYCODE_PASTE"}, nil
				}
			}
			if k.Mods == 0 {
				return []string{"input keyevent " + code}, nil
			}
			if dev.SDK < 33 {
				return nil, &phone.StepError{Err: fmt.Errorf("android: %w: keys with modifiers need `input keycombination`, which Android %s lacks (it came with Android 13)", phone.ErrUnsupported, dev.Release),
					Steps: []string{"Press the key without modifiers, or use ctrl+c, ctrl+x or ctrl+v, which the phone has keys for."}}
			}
			var combo []string
			for _, m := range []struct {
				mod  phone.Modifier
				code string
			}{{phone.Ctrl, "KEYCODE_CTRL_LEFT"}, {phone.Shift, "KEYCODE_SHIFT_LEFT"}, {phone.Alt, "KEYCODE_ALT_LEFT"}, {phone.Cmd, "KEYCODE_META_LEFT"}} {
				if k.Mods&m.mod != 0 {
					combo = append(combo, m.code)
				}
			}
			return []string{"input keycombination " + strings.Join(append(combo, code), " ")}, nil
		})
}

// wordKeys are the keycodes of the keys with a word for a name.
var wordKeys = map[string]string{
	"enter": "KEYCODE_ENTER", "escape": "KEYCODE_ESCAPE", "backspace": "KEYCODE_DEL", "tab": "KEYCODE_TAB",
	"space": "KEYCODE_SPACE", "up": "KEYCODE_DPAD_UP", "down": "KEYCODE_DPAD_DOWN", "left": "KEYCODE_DPAD_LEFT",
	"right": "KEYCODE_DPAD_RIGHT", "delete": "KEYCODE_FORWARD_DEL", "home": "KEYCODE_MOVE_HOME", "end": "KEYCODE_MOVE_END",
	"pageup": "KEYCODE_PAGE_UP", "pagedown": "KEYCODE_PAGE_DOWN",
}

// keyCode is the KEYCODE_ name of a key of api.KeyNames.
func keyCode(name string) (string, bool) {
	if c, ok := wordKeys[name]; ok {
		return c, true
	}
	if len(name) == 1 && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= '0' && name[0] <= '9') {
		return "KEYCODE_" + strings.ToUpper(name), true
	}
	if n, ok := strings.CutPrefix(name, "f"); ok {
		for i := 1; i <= 12; i++ {
			if n == fmt.Sprint(i) {
				return "KEYCODE_F" + n, true
			}
		}
	}
	return "", false
}

// buttonCodes are the keycodes of the buttons.
var buttonCodes = map[phone.Button]string{
	phone.Home: "KEYCODE_HOME", phone.Back: "KEYCODE_BACK", phone.AppSwitch: "KEYCODE_APP_SWITCH",
	phone.VolumeUp: "KEYCODE_VOLUME_UP", phone.VolumeDown: "KEYCODE_VOLUME_DOWN", phone.Mute: "KEYCODE_VOLUME_MUTE",
	phone.Lock: "KEYCODE_POWER",
}

// Press presses a button with `input keyevent` (lock is the power key).
func (b *Backend) Press(ctx context.Context, btn phone.Button) (phone.Report, error) {
	code, ok := buttonCodes[btn]
	if !ok {
		return phone.Report{}, fmt.Errorf("android: %w: %q", phone.ErrUnsupportedButton, btn)
	}
	return b.deliver(ctx, "button", func(in phone.Input) (phone.Report, error) { return in.Press(ctx, btn) },
		func(device, phone.Geometry) ([]string, error) {
			return []string{"input keyevent " + code}, nil
		})
}

// ReleaseAll releases what the injected input path holds; each shell
// `input` command releases what it pressed before it returns.
func (b *Backend) ReleaseAll(ctx context.Context) error {
	if b.o.Input == nil {
		return nil
	}
	return b.o.Input.ReleaseAll(ctx)
}
