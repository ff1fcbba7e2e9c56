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
// # Pointer
//
// With the iOS absolute mouse (the default profile) a press of the left
// button is a touch at the pointer, movement with the button held is a
// drag, and the release lifts the finger; the Android digitizer's Tip
// Switch and the relative mouse work the same way, since the host decodes
// whatever the descriptors declare. A tap is a contact released within
// 300 ms that moved less than 10 points; a longer or farther contact is a
// swipe.
//
// # Determinism
//
// Under a fixed clock ([FixedClock]: the status bar always shows the same
// minute and the driver never waits, see Options.Sleep) the same inputs give byte-identical
// frames. A frame's Seq increases only when the picture changes (a screen
// change, typed text, a scroll, the status bar's minute); the geometry
// epoch changes only with [Phone.SetSize].
//
// # Layout for tests
//
// Tests find things without hard-coded pixels: [Phone.IconCenter] gives an
// app icon's centre as screen fractions, [Phone.Screen] names the screen
// shown, [Phone.NoteText], [Phone.Query], [Phone.URL] and
// [Phone.SettingsScroll] read the apps' state, and [Phone.ReportCount]
// counts the HID reports the host decoded per function, so a test can
// prove the phone saw an input once. The tests' -sim.png DIR flag saves
// the frames they look at.
package sim
