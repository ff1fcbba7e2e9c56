// Package gadget makes the box a USB HID device for the phone: it builds
// the composite gadget through configfs, binds it to the USB device
// controller, writes HID reports to /dev/hidgN, and joins those writers
// with a V4L2 capture device into a [phone.Phone] (the "gadget" backend).
//
// # Layout
//
// One composite gadget with one HID interface per function, in a fixed
// order: keyboard (boot protocol), consumer control, then the pointer
// last, chosen by the platform: a multitouch digitizer for Android, an
// absolute mouse for iOS (AssistiveTouch), or a relative mouse as the iOS
// fallback. The device is self-powered and declares at most 100 mA.
//
// [Reconciler] applies a [Layout] idempotently: it writes only attributes
// that differ, recreates function links in order when they change,
// unbinds before changing a bound gadget, and writes optional attributes
// (no_out_endpoint) only where the kernel offers them. Its root is
// injectable so tests run against a temporary folder.
//
// # Writes
//
// [Writer] opens each /dev/hidgN with O_WRONLY|O_NONBLOCK and writes one
// report at a time with poll(POLLOUT) and a deadline. A host that takes
// no report in time is ErrInputFailed with the sentence [NotReading];
// ESHUTDOWN/ENODEV/EPIPE mean the gadget went away: the writer closes the
// node, waits for the UDC state "configured" and reopens once. Nothing is
// written unless the UDC is configured.
//
// # The backend
//
// [Open] applies the platform's layout ([LayoutFor]: android, ios,
// ios-relative; each with its own bcdDevice), binds it, opens the capture
// device (hw/capture) and returns a [Phone]: hw/input's driver encodes
// the gestures phone.Player plays over the writers, and events go out
// through a phone.Broadcaster. Phone.State reports "no_udc",
// "not_configured", "no_video" or "ready" with a sentence saying what to
// do; a monitor retries what is missing, releases every key and contact
// when the phone (re)configures the device, and keeps the screen geometry
// current. Open fails only where no gadget can exist (no configfs) or on
// bad options.
package gadget
