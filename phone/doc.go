// Package phone defines what the box needs from an attached phone: the
// [Phone] interface that every backend implements (the simulated phone in
// hw/sim, the USB gadget with a capture device in hw/gadget, the iPhone
// over CoreDevice in hw/coredevice, an Android phone over ADB and AOA in
// hw/android), the [Frame] that a screenshot
// returns, the [Gesture] that touch input follows, and the [Event]s a
// backend reports when the phone comes, goes or changes shape.
//
// # What every backend shares
//
// This package owns the parts of input and events that do not depend on
// the wire, so each backend writes only its encoding:
//
//   - the timing table (the consts in timing.go: [TapHold], [PointHold],
//     [SwipeDwell], [PointerSettle], [KeyHold], [ButtonHold],
//     [ReleaseGap], …), the one place each hold and wait is stated;
//   - the gesture [Player], which turns a tap, a long press, a swipe or a
//     drag path into contact samples on an injected clock, skipping stale
//     points when the phone is slow; a backend implements [Contact]
//     (down, move, up: one sample each): hw/input as HID reports for the
//     gadget and the simulated phone, hw/coredevice as remote HID touches;
//   - the [Broadcaster], the one Subscribe/Publish fan-out every backend's
//     events go through;
//   - [Registration], the registration through which the binary lists, opens
//     and auto-detects backends (a new backend is one package plus one
//     line in cmd/openlolo's table).
//
// # Clocks
//
// Every clock in hw is a field Now func() time.Time (nil: time.Now).
// Waits are real timers ([Sleep]) that testing/synctest fakes; only the
// input pacing of hw/input and hw/sim may be given its own Sleep, for
// tests that move a clock by hand.
//
// Nothing here knows about HTTP, clients or OAuth: the appliance calls a
// Phone on behalf of a client and maps the errors below to stable codes.
//
// # Coordinates
//
// Every position is a fraction of the phone's screen in [0,1], with (0,0)
// the top-left corner of the content as the phone shows it now (after
// rotation). Backends turn fractions into their own units (HID logical
// range 0..32767 for the digitizer and the absolute mouse).
//
// # Its room
//
// The package is the contract between the box's services and the phone
// drivers, so it lives beside them, not among them: the backends under
// hw/ implement it, and appliance/ drives phones through it without
// importing any hw/ package. It imports only api.
package phone
