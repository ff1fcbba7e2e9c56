package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/input"
	"github.com/openlolo/openlolo/phone"
)

// TestPhonePasteUnicode: the clipboard the sim keeps reaches the focused
// field only through cmd+V on the keyboard function, whole, in Notes,
// Spotlight and Safari's address field; phone.Paste drives it.
func TestPhonePasteUnicode(t *testing.T) {
	ctx := context.Background()
	p := newVirtualPhone(t, input.IOS)
	if !p.Info().Can.Clipboard {
		t.Fatal("the sim does not report a clipboard")
	}
	const text = "héllo ✓ 日本"
	tapApp(t, p, "Notes")
	typeText(t, p, "Note: ")
	if err := p.SetClipboard(ctx, text); err != nil {
		t.Fatal(err)
	}
	if got := p.NoteText(); got != "Note: " {
		t.Fatalf("setting the clipboard changed the note to %q", got)
	}
	before := shot(t, p, "notes-before-paste")
	key(t, p, "v", phone.Cmd)
	if got := p.NoteText(); got != "Note: "+text {
		t.Fatalf("after cmd+V the note is %q", got)
	}
	if after := shot(t, p, "notes-pasted"); after.Seq == before.Seq {
		t.Error("the paste did not change the picture")
	}
	// v without cmd types a v; ctrl+v is not the iOS paste.
	key(t, p, "v", phone.Ctrl)
	if got := p.NoteText(); got != "Note: "+text {
		t.Fatalf("ctrl+V pasted on iOS: %q", got)
	}
	if got, err := p.Clipboard(ctx); err != nil || got != text {
		t.Fatalf("Clipboard() = %q, %v", got, err)
	}

	rep, err := phone.Paste(ctx, p, " again")
	if err != nil || rep.Reports == 0 {
		t.Fatalf("phone.Paste: %+v, %v", rep, err)
	}
	if got := p.NoteText(); got != "Note: "+text+" again" {
		t.Fatalf("phone.Paste left %q", got)
	}

	press(t, p, phone.Home)
	key(t, p, "space", phone.Cmd)
	paste(t, p, "Saf")
	if q := p.Query(); q != "Saf" {
		t.Fatalf("paste into Spotlight: %q", q)
	}
	key(t, p, "enter", 0)
	paste(t, p, "example.com/ü")
	key(t, p, "enter", 0)
	if u := p.URL(); u != "https://example.com/ü" {
		t.Fatalf("paste into Safari's address field loaded %q", u)
	}
	p.Close()
	if err := p.SetClipboard(ctx, "x"); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("SetClipboard after Close: %v", err)
	}
	if _, err := p.Clipboard(ctx); !errors.Is(err, phone.ErrUnavailable) {
		t.Errorf("Clipboard after Close: %v", err)
	}
}

// longNote is a note of n numbered lines, each different.
func longNote(n int) string {
	var b strings.Builder
	b.WriteString("Shopping list")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\nLine %d: item %d", i, i*7)
	}
	return b.String()
}

// TestPhoneNoteScrolls: a note taller than the screen follows its caret
// while typing, scrolls to the top on a tap of the status bar, and a drag
// moves it by exactly the drag's length (no momentum) until its end, where
// another drag changes nothing.
func TestPhoneNoteScrolls(t *testing.T) {
	p := newVirtualPhone(t, input.IOS)
	dragPx := int(0.4*float64(p.Info().Native.Y) + 0.5)
	tapApp(t, p, "Notes")
	if s, m := p.NoteScroll(); s != 0 || m != 0 {
		t.Fatalf("an empty note scrolls: %d of %d", s, m)
	}
	paste(t, p, longNote(60))
	s, limit := p.NoteScroll()
	if limit <= DefaultHeight || s != limit {
		t.Fatalf("a 60-line note: scroll %d of %d, want at the end of more than a screen", s, limit)
	}
	end := shot(t, p, "note-end")
	tap(t, p, pt(0.5, 0.01))
	if s, _ := p.NoteScroll(); s != 0 {
		t.Fatalf("a tap on the status bar scrolled to %d, want 0", s)
	}
	top := shot(t, p, "note-top")
	if top.Seq == end.Seq {
		t.Fatal("scrolling to the top did not change the picture")
	}
	prev := top
	for i := 1; ; i++ {
		was, _ := p.NoteScroll()
		swipe(t, p, pt(0.5, 0.7), pt(0.5, 0.3))
		now, _ := p.NoteScroll()
		f := shot(t, p, "note-dragged")
		want := min(was+dragPx, limit)
		if d := now - want; d < -2 || d > 2 {
			t.Fatalf("drag %d scrolled from %d to %d, want about %d", i, was, now, want)
		}
		if was == limit {
			if f.Seq != prev.Seq || !bytes.Equal(pixels(t, f), pixels(t, prev)) {
				t.Fatal("a drag at the end changed the picture")
			}
			break
		}
		if f.Seq == prev.Seq {
			t.Fatalf("drag %d did not change the picture", i)
		}
		if i > 10 {
			t.Fatal("10 drags did not reach the end")
		}
		prev = f
	}
	// Typing goes back to the caret.
	typeText(t, p, "!")
	if s, m := p.NoteScroll(); s != m {
		t.Errorf("after typing the note is at %d of %d", s, m)
	}
}

func paste(t *testing.T, p *Phone, text string) {
	t.Helper()
	r, err := phone.Paste(context.Background(), p, text)
	must(t, r, err)
}
