// Package phone defines what the box needs from an attached phone: the
// [Phone] interface that every backend implements (the simulated phone in
// hw/sim, the USB gadget with a capture device in hw/gadget), the [Frame]
// that a screenshot returns, the [Gesture] that touch input follows, and the
// [Event]s a backend reports when the phone comes, goes or changes shape.
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
package phone
