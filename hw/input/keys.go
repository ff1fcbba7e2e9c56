package input

import (
	"context"
	"fmt"
	"time"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// Type types text on the keyboard, one key tap per character (shifted
// characters press Left Shift first, then Shift with the key), each held
// Timing.KeyHold. Every character is checked before anything is sent: text
// with a character outside printable US ASCII (0x20..0x7e; no newlines or
// tabs) returns an error wrapping phone.ErrUnsupportedText and writes
// nothing. The length limit is the caller's rule.
func (d *Driver) Type(ctx context.Context, text string) (phone.Report, error) {
	pos := 0
	for _, r := range text {
		if r > 0x7e || r < 0x20 {
			return phone.Report{}, fmt.Errorf("input: type: character %q at position %d is not printable US ASCII, which is all the keyboard can type: %w", r, pos, phone.ErrUnsupportedText)
		}
		pos++
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.begin("type")
	for i := range len(text) {
		k, shift, _ := hid.CharKey(text[i])
		var m hid.Modifiers
		if shift {
			m = hid.LeftShift
		}
		if err := d.tap(ctx, o, m, k, d.t.KeyHold); err != nil {
			return d.report(o), d.fail(ctx, o, err)
		}
	}
	return d.report(o), nil
}

// Key presses and releases one named key (see phone.Key for the names)
// with its modifiers: the modifiers first, then the key with them, held
// Timing.KeyHold, or Timing.ChordHold with modifiers. An unknown name or
// modifier returns an error wrapping phone.ErrUnsupportedKey and writes
// nothing.
func (d *Driver) Key(ctx context.Context, k phone.Key) (phone.Report, error) {
	key, ok := hid.NamedKey(k.Name)
	if !ok {
		return phone.Report{}, fmt.Errorf("input: key: %q is not a key name (a-z, 0-9, enter, escape, backspace, tab, space, up, down, left, right, delete, home, end, pageup, pagedown, f1-f12): %w", k.Name, phone.ErrUnsupportedKey)
	}
	m, ok := hid.PhoneModifiers(k.Mods)
	if !ok {
		return phone.Report{}, fmt.Errorf("input: key: modifier bits %#x are not ctrl, shift, alt or cmd: %w", uint8(k.Mods), phone.ErrUnsupportedKey)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.begin("key")
	hold := d.t.KeyHold
	if m != 0 {
		hold = d.t.ChordHold
	}
	if err := d.tap(ctx, o, m, key, hold); err != nil {
		return d.report(o), d.fail(ctx, o, err)
	}
	return d.report(o), nil
}

// tap writes [mods] (when any), [mods+key], waits hold, and releases.
func (d *Driver) tap(ctx context.Context, o *op, m hid.Modifiers, k hid.Key, hold time.Duration) error {
	if m != 0 {
		if err := d.write(ctx, o, hid.KindKeyboard, hid.Keyboard(m), true); err != nil {
			return err
		}
	}
	if err := d.write(ctx, o, hid.KindKeyboard, hid.Keyboard(m, k), true); err != nil {
		return err
	}
	if err := d.sleep(ctx, hold); err != nil {
		return err
	}
	return d.releaseKind(ctx, o, hid.KindKeyboard)
}

// Press presses and releases button b. Lock is consumer Power, the volume
// buttons and mute are their consumer usages. Home is consumer AC Home on
// Android and cmd+h on the keyboard on iOS (iOS has no consumer Home; the
// other way home there is a swipe up from the bottom edge, which callers
// can send with Touch). Back (AC Back) and AppSwitch exist on Android
// only: on iOS they, like unknown buttons, return an error wrapping
// phone.ErrUnsupportedButton and write nothing.
func (d *Driver) Press(ctx context.Context, b phone.Button) (phone.Report, error) {
	var u uint16
	switch b {
	case phone.Home:
		u = hid.ConsumerHome
	case phone.Lock:
		u = hid.ConsumerPower
	case phone.VolumeUp:
		u = hid.ConsumerVolumeUp
	case phone.VolumeDown:
		u = hid.ConsumerVolumeDown
	case phone.Mute:
		u = hid.ConsumerMute
	case phone.Back:
		u = hid.ConsumerBack
	case phone.AppSwitch:
		u = hid.ConsumerAppSwitch
	default:
		return phone.Report{}, fmt.Errorf("input: press: %q is not a button (home, lock, volume_up, volume_down, mute, back, app_switch): %w", b, phone.ErrUnsupportedButton)
	}
	if (b == phone.Back || b == phone.AppSwitch) && d.profile != Android {
		return phone.Report{}, fmt.Errorf("input: press: the %s button exists on Android only, not on %s: %w", b, d.profile.Platform(), phone.ErrUnsupportedButton)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.begin("press " + string(b))
	var err error
	if b == phone.Home && d.profile != Android {
		err = d.tap(ctx, o, hid.LeftGUI, hid.KeyA+('h'-'a'), d.t.ChordHold)
	} else {
		err = d.button(ctx, o, u)
	}
	if err != nil {
		return d.report(o), d.fail(ctx, o, err)
	}
	return d.report(o), nil
}

// button writes consumer usage u, waits Timing.ButtonHold, and releases.
func (d *Driver) button(ctx context.Context, o *op, u uint16) error {
	if err := d.write(ctx, o, hid.KindConsumer, hid.Consumer(u), true); err != nil {
		return err
	}
	if err := d.sleep(ctx, d.t.ButtonHold); err != nil {
		return err
	}
	return d.releaseKind(ctx, o, hid.KindConsumer)
}
