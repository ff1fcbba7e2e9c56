package api

// PhoneState is a phone's state code: a short machine word saying whether
// the phone takes input and screenshots now and, when not, why
// (openlolo_status and openlolo_device_info's state). Backends set no
// other; [PhoneStates] lists them all.
type PhoneState string

// Phone states. Every backend: ready, detached, closed; the USB gadget:
// no_udc, not_configured, no_video; an iPhone over CoreDevice: pairing,
// no_usbmuxd, no_tunnel, developer_mode_off, ddi_not_mounted.
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
)

// Backends lists the phone backends a box may run.
func Backends() []Backend { return []Backend{BackendSim, BackendGadget, BackendCoreDevice} }
