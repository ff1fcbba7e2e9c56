// Package hid holds the USB HID side of the box as pure bytes: the report
// descriptors of the functions the USB gadget offers to the phone, encoders
// that turn typed inputs into reports, the US keyboard map, and a report
// descriptor parser with a report decoder that turns bytes back into fields.
//
// Nothing here does I/O. hw/input writes the encoded reports; hw/gadget
// hands the descriptors to configfs; hw/sim is a virtual USB host that
// parses the descriptors with [Parse] and decodes every report with
// [Descriptor.Decode], exactly as a phone's HID stack would.
//
// # Functions
//
// The gadget is one composite device with one HID interface per
// [Function], none of them sharing an interface:
//
//   - [KeyboardFunction]: the boot keyboard (8-byte reports, LED output
//     report), typed text, named keys and shortcuts (cmd+h, cmd+space).
//   - [ConsumerFunction]: consumer control buttons (Home, Back, volume,
//     power) as one 16-bit usage array.
//   - [TouchFunction]: the Android touchscreen, a multitouch digitizer with
//     one finger collection; Contact Identifier makes Linux bind
//     hid-multitouch, which sets INPUT_PROP_DIRECT so Android treats it as
//     a touchscreen and not a pointer.
//   - [AbsMouseFunction]: the iOS pointer (AssistiveTouch), an absolute
//     mouse.
//   - [RelMouseFunction]: the iOS fallback pointer, a boot relative mouse.
//
// # Coordinates
//
// Absolute axes use the logical range 0..[MaxCoord] (32767); [Scale] turns
// a fraction of the screen into that range.
//
// # Parsing
//
// [Parse] reads the short items of a report descriptor (Main, Global and
// Local, with Push/Pop and extended 32-bit usages) into [Field]s and report
// lengths; [Descriptor.Decode] splits a report into [Control]s. Errors
// wrap [ErrDescriptor] or [ErrReport] and say what was wrong and where.
package hid
