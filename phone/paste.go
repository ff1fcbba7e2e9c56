package phone

import (
	"context"
	"fmt"
	"time"
)

// PasteKey is the key that pastes on platform p with a hardware keyboard:
// cmd+v on iOS, ctrl+v on Android.
func PasteKey(p Platform) Key {
	if p == Android {
		return Key{Name: "v", Mods: Ctrl}
	}
	return Key{Name: "v", Mods: Cmd}
}

// CanPaste reports whether [Paste] works on a backend described by info:
// it must set the clipboard natively ([Capabilities.Clipboard]) and type
// on a keyboard. When it cannot, why says so in a sentence.
func CanPaste(info Info) (ok bool, why string) {
	switch {
	case !info.Can.Clipboard:
		return false, fmt.Sprintf("the %s backend cannot set the phone's clipboard (a USB keyboard and pointer cannot reach it)", info.Backend)
	case !info.Keyboard:
		return false, fmt.Sprintf("the %s backend has no keyboard input to paste with", info.Backend)
	}
	return true, ""
}

// Paste puts text on p's clipboard and pastes it into the focused field
// with the platform's paste key ([PasteKey]), so any Unicode text arrives
// whole, which typing on a US keyboard cannot do. It replaces what the
// clipboard held. A backend that cannot ([CanPaste]) fails with
// [ErrUnsupported] before anything is sent.
func Paste(ctx context.Context, p Phone, text string) (Report, error) {
	info := p.Info()
	if ok, why := CanPaste(info); !ok {
		return Report{}, fmt.Errorf("phone: paste: %s: %w", why, ErrUnsupported)
	}
	c, ok := p.(Clipboard)
	if !ok {
		return Report{}, fmt.Errorf("phone: paste: the backend reports a clipboard but has none: %w", ErrUnsupported)
	}
	start := time.Now()
	if err := c.SetClipboard(ctx, text); err != nil {
		return Report{}, fmt.Errorf("phone: paste: set the clipboard: %w", err)
	}
	// The phone's pasteboard takes the new text before the key arrives:
	// a real phone gets a moment (a quarter of its step delay) for it.
	if d := info.StepDelay / 4; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Report{}, fmt.Errorf("phone: paste: %w", ctx.Err())
		}
	}
	rep, err := p.Key(ctx, PasteKey(info.Platform))
	rep.Took = time.Since(start)
	if err != nil {
		return rep, fmt.Errorf("phone: paste: %w", err)
	}
	return rep, nil
}
