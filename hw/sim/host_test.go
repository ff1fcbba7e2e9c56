package sim

import (
	"testing"

	"github.com/openlolo/openlolo/hw/hid"
)

// TestScreens walks through every screen with raw HID reports and saves
// each frame (see -sim.png).
func TestScreens(t *testing.T) {
	p := newTestPhone(t, Options{})
	shot(t, p, "home")
	c, _ := p.IconCenter("Notes")
	mouseTap(t, p, c)
	typeKeys(t, p, "Hello, box!")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	typeKeys(t, p, "A long line that has to wrap because it is wider than the screen of the phone.")
	shot(t, p, "notes")
	chord(t, p, hid.LeftGUI, hid.KeySpace)
	typeKeys(t, p, "s")
	shot(t, p, "spotlight")
	chord(t, p, hid.LeftGUI, 0x0b)
	c, _ = p.IconCenter("Settings")
	mouseTap(t, p, c)
	shot(t, p, "settings")
	mouseDrag(t, p, pt(0.5, 0.8), pt(0.5, 0.3), 10)
	shot(t, p, "settings-scrolled")
	button(t, p, hid.ConsumerHome)
	c, _ = p.IconCenter("Safari")
	mouseTap(t, p, c)
	shot(t, p, "safari-start")
	typeKeys(t, p, "example.com/hello")
	write(t, p, hid.KindKeyboard, hid.Keyboard(0, hid.KeyEnter))
	shot(t, p, "safari-page")
	button(t, p, hid.ConsumerVolumeUp)
	shot(t, p, "volume")
	button(t, p, hid.ConsumerHome)
	c, _ = p.IconCenter("Maps")
	mouseTap(t, p, c)
	shot(t, p, "maps")
	button(t, p, hid.ConsumerPower)
	shot(t, p, "locked")
}
