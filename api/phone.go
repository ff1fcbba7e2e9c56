package api

// PhoneState is a phone's state code: a short machine word saying whether
// the phone takes input and screenshots now and, when not, why
// (openlolo_status and openlolo_device_info's state). Backends set no
// other; [PhoneStates] lists them all.
type PhoneState string

// Phone states. Every backend: ready, detached, closed; the USB gadget:
// no_udc, not_configured, no_video; an iPhone over CoreDevice: pairing,
// no_usbmuxd, no_tunnel, developer_mode_off, ddi_not_mounted; an Android
// phone over ADB: pairing (its key not allowed yet) and detached (ADB
// not reachable), with their problems saying which.
const (
	StateReady            PhoneState = "ready"
	StateNoUDC            PhoneState = "no_udc"
	StateNotConfigured    PhoneState = "not_configured"
	StateNoVideo          PhoneState = "no_video"
	StateDetached         PhoneState = "detached"
	StateClosed           PhoneState = "closed"
	StatePairing          PhoneState = "pairing"
	StateNoUSBMuxd        PhoneState = "no_usbmuxd"
	StateNoTunnel         PhoneState = "no_tunnel"
	StateDeveloperModeOff PhoneState = "developer_mode_off"
	StateDDINotMounted    PhoneState = "ddi_not_mounted"
)

// PhoneStates lists every state code a backend may report, in the order
// the contract's documents give them.
func PhoneStates() []PhoneState {
	return []PhoneState{StateReady, StateNoUDC, StateNotConfigured, StateNoVideo, StateDetached, StateClosed,
		StatePairing, StateNoUSBMuxd, StateNoTunnel, StateDeveloperModeOff, StateDDINotMounted}
}

// Problem is the stable code of one thing the owner can fix that keeps
// the phone from doing all it could (the box page keys its walkthroughs
// on it); [Problems] lists them in the order the owner fixes them.
type Problem string

// Problems a backend reports.
const (
	ProblemNoUDC               Problem = "no_udc"
	ProblemNotConfigured       Problem = "not_configured"
	ProblemNoVideo             Problem = "no_video"
	ProblemNotTrusted          Problem = "not_trusted"
	ProblemDeveloperModeOff    Problem = "developer_mode_off"
	ProblemDiskImageNotMounted Problem = "ddi_not_mounted"
	ProblemIOSBelow27          Problem = "ios_below_27"
	ProblemUSBDebuggingOff     Problem = "usb_debugging_off"
	ProblemADBNotAllowed       Problem = "adb_not_allowed"
)

// Problems lists every problem code, in the order the owner fixes them.
func Problems() []Problem {
	return []Problem{ProblemNoUDC, ProblemNotConfigured, ProblemNoVideo, ProblemNotTrusted,
		ProblemDeveloperModeOff, ProblemDiskImageNotMounted, ProblemIOSBelow27, ProblemUSBDebuggingOff, ProblemADBNotAllowed}
}

// Summary is one sentence saying what is wrong, for a person.
func (p Problem) Summary() string {
	switch p {
	case ProblemNoUDC:
		return "The box has no USB device controller, so it cannot be the phone's keyboard and touch screen."
	case ProblemNotConfigured:
		return "The phone has not set up the box's USB device."
	case ProblemNoVideo:
		return "The box sees no picture from the phone: the HDMI capture adapter is missing or gets no video."
	case ProblemNotTrusted:
		return "The iPhone has not trusted this box yet."
	case ProblemDeveloperModeOff:
		return "Developer Mode is off on the iPhone."
	case ProblemDiskImageNotMounted:
		return "The iPhone's developer disk image is not mounted."
	case ProblemIOSBelow27:
		return "This iPhone's iOS takes no touch or keys over the cable (that needs iOS 27 or later)."
	case ProblemUSBDebuggingOff:
		return "The box cannot reach the Android phone's debugging (ADB): USB debugging is off, or the phone is not listening where the box looks."
	case ProblemADBNotAllowed:
		return "The Android phone has not allowed this box's key for USB debugging yet."
	}
	return "An unknown problem."
}

// Backend names how the box reaches a phone.
type Backend string

// Backends.
const (
	// BackendSim is the simulated phone.
	BackendSim Backend = "sim"
	// BackendGadget is the box as the phone's USB keyboard and touch
	// screen, with an HDMI capture device for its screen.
	BackendGadget Backend = "gadget"
	// BackendCoreDevice is an iPhone over one USB cable through Apple's
	// CoreDevice services.
	BackendCoreDevice Backend = "coredevice"
	// BackendAndroid is an Android phone over ADB (the box's own host
	// side: USB, or TCP for a phone in `adb tcpip` mode).
	BackendAndroid Backend = "android"
)

// Backends lists the phone backends a box may run.
func Backends() []Backend {
	return []Backend{BackendSim, BackendGadget, BackendCoreDevice, BackendAndroid}
}
