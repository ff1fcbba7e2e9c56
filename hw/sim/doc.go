// Package sim is a simulated iPhone: the phone backend the box uses when no
// hardware is attached, and the phone every test drives.
//
// # A virtual USB host
//
// Input reaches the simulated phone only as HID report bytes, the very
// bytes the USB gadget would send to a real phone. [Phone] drives its own
// hw/input Driver, whose writer is the simulated host: the host parses each
// function's report descriptor with hid.Parse and decodes every report with
// the parser, never looking at how the encoders built it. A bug in a
// descriptor, an encoder, the keymap or the gesture timing therefore shows
// up as a wrong screen here, as it would on a phone.
//
// # Screens
//
// The phone renders real pixels with the Go fonts: a status bar with the
// clock, a home screen of labelled app icons and a dock, Spotlight search
// (cmd+space, AC Search, or a swipe down on the home screen), a Notes app
// that shows typed text with a caret, a scrollable Settings list, Safari
// with an address bar, and a simple titled screen for every other app. Home
// (cmd+h, consumer AC Home, or a swipe up from the bottom edge) returns to
// the home screen; the power button shows a black screen until the next
// input; the volume buttons show a volume HUD.
//
// # Determinism
//
// Under a fixed clock ([FixedClock]) the same inputs give byte-identical
// frames. A frame's Seq increases only when the picture changes (a screen
// change, typed text, a scroll, the status bar's minute).
//
// # Layout for tests
//
// Tests find things without hard-coded pixels: [Phone.IconCenter] gives an
// app icon's centre as screen fractions, [Phone.Screen] names the screen
// shown, [Phone.NoteText] returns the note, and [Phone.ReportCount] counts
// the HID reports the host decoded per function.
package sim
