// Package input turns the phone's inputs (touch gestures, text, named
// keys, buttons) into timed HID report writes. It is shared by the
// simulated phone (hw/sim decodes the reports) and the USB gadget backend
// (hw/gadget writes them to /dev/hidgN): both implement [Writer] and use a
// [Driver] for the input half of phone.Phone.
//
// # Profiles
//
// A [Profile] picks the pointer the phone gets: [Android] a touchscreen
// digitizer, [IOS] an absolute mouse (AssistiveTouch), [IOSRelative] a
// relative mouse homed in the top-left corner before each gesture. The
// keyboard and consumer control are always there.
//
// # Timing
//
// The defaults come from phone's timing table (see [Timing]), and
// gestures are played by phone.Player: a [Driver] only encodes each
// contact sample as the profile's report. A gesture of a single point
// holds the contact phone.PointHold (70 ms); gestures follow their own timeline on the
// driver's clock (Options.Now), and when the writer falls behind, points
// that are already stale are skipped rather than sent in a burst; an iOS
// pointer moves, settles 80 ms, then presses; keys are held 50 ms, chords
// with modifiers 120 ms; every release is written 3 times 15 ms apart so a
// lost report cannot leave a key or a finger down.
//
// # Failures
//
// The driver's idea of what is held advances only after a write succeeds.
// When a write fails it tries to release everything and returns an error
// wrapping phone.ErrInputFailed (and the writer's error); when ctx ends
// mid-input it releases everything and returns an error wrapping
// ctx.Err().
package input
