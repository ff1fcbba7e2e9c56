// Package aoa drives an Android phone's input over AOA v2 (Android Open
// Accessory 2.0) HID, with the box as the phone's USB host: the box
// registers its touch digitizer, keyboard and consumer keys (the report
// descriptors of hw/hid, the same bytes the USB gadget offers) on the
// phone, then sends their reports as vendor control requests. Android
// treats each registered device as a real input device, so taps, swipes
// and keys run at HID speed and work without USB debugging.
//
// # Requests
//
// Everything travels on the control endpoint (ep0) as vendor requests
// addressed to the device (bmRequestType 0x40 host-to-device, 0xC0
// device-to-host; see [Setup]):
//
//   - [GetProtocol] (51): the AOA version; HID needs 2, an older or
//     absent answer is [ErrUnsupported];
//   - [RegisterHID] (54): value = the box's id for the device, index =
//     the length of its report descriptor;
//   - [SetHIDReportDesc] (56): value = id, index = the offset of this
//     chunk, data = the chunk; chunks go in order, each at most
//     Options.Chunk bytes (64 by default, the control endpoint's max
//     packet at high speed);
//   - [SendHIDEvent] (57): value = id, data = one input report;
//   - [UnregisterHID] (55): value = id; sent on close, and at open for
//     every id the box uses, to clear devices a crashed box left behind.
//
// # No accessory mode
//
// The phone never enters accessory mode: the box sends no
// ACCESSORY_START (53), so the phone does not re-enumerate. Android's
// accessory function answers these requests on ep0 whatever USB
// configuration is active (MTP, PTP, ADB), which is how scrcpy's
// --keyboard=aoa and --mouse=aoa work while it mirrors over ADB on the
// same cable. The box's ADB connection therefore keeps its interface and
// its bulk endpoints while AOA input runs beside it; a control transfer
// to the device needs no claimed interface.
//
// # Input
//
// [Open] registers the devices and returns an [Input]: hw/input's
// [input.Driver] with the Android profile, writing its reports through
// the registered devices, so the gesture timeline (phone.Player), the
// holds and the repeated releases are the ones every HID backend uses.
//
// # Buttons
//
// Press sends consumer usages, which Linux's HID input maps to keys that
// Android's Generic.kl names: AC Home (0x223, KEY_HOMEPAGE → HOME), AC
// Back (0x224 → BACK), Volume Up/Down (0xE9/0xEA), Mute (0xE2 →
// VOLUME_MUTE) and Power (0x30 → POWER, which wakes and locks where the
// phone's policy takes it from an external device). App switch is AC
// Desktop Show All Windows (0x29F), as hw/hid states; none of this has
// been checked on a phone here.
//
// The phone side is faked by hw/aoa/aoatest, whose request handling is a
// function of (setup packet, data) so a FunctionFS ep0 loop can use it.
package aoa
