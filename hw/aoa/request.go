package aoa

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Controller makes one USB control transfer on the phone's control
// endpoint: the setup packet (requestType, request, value, index, and
// len(data) as the length), then data sent for host-to-device requests or
// filled for device-to-host ones. It returns the bytes moved. hw/usb's
// device implements it; hw/aoa/aoatest fakes the phone behind it. It must
// honour ctx.
type Controller interface {
	Control(ctx context.Context, requestType, request uint8, value, index uint16, data []byte) (int, error)
}

// Request types (bmRequestType) of AOA requests: vendor requests to the
// device, host-to-device (Out) or device-to-host (In).
const (
	RequestOut uint8 = 0x40
	RequestIn  uint8 = 0xc0
)

// Request numbers (bRequest) of AOA v1 and v2. The box sends only
// GetProtocol and the four HID requests.
const (
	GetProtocol      uint8 = 51
	SendString       uint8 = 52
	Start            uint8 = 53
	RegisterHID      uint8 = 54
	UnregisterHID    uint8 = 55
	SetHIDReportDesc uint8 = 56
	SendHIDEvent     uint8 = 57
	SetAudioMode     uint8 = 58
)

// HIDProtocol is the AOA version that brings HID (Android 4.1 and later).
const HIDProtocol = 2

// ErrUnsupported is wrapped when the phone cannot take AOA HID: it did
// not answer GET_PROTOCOL, or answered a version older than 2. Input then
// has to take another path (the android backend's `input` commands).
var ErrUnsupported = errors.New("aoa: the phone does not offer AOA v2 HID input")

// TransferTimeout bounds each control transfer the box makes: USB 2.0
// §9.2.6.4 gives a device 5 s to complete a request with a data stage.
// A phone that takes longer is not answering (its accessory function
// wedged, or the cable half out), and waiting longer would hold the
// input, and the agent's call, until the call's own deadline.
const TransferTimeout = 5 * time.Second

// ErrNoAnswer is wrapped when a control transfer did not complete within
// [TransferTimeout].
var ErrNoAnswer = fmt.Errorf("the phone did not answer the control request within %v (unplug the phone and plug it in again)", TransferTimeout)

// SetupLen is the length of a setup packet on the wire.
const SetupLen = 8

// Setup is a control request's setup packet (USB 2.0 §9.3).
type Setup struct {
	RequestType, Request uint8
	Value, Index, Length uint16
}

// In reports whether the data stage goes device-to-host.
func (s Setup) In() bool { return s.RequestType&0x80 != 0 }

// Bytes returns the packet as sent on the wire (little-endian fields).
func (s Setup) Bytes() [SetupLen]byte {
	var b [SetupLen]byte
	b[0], b[1] = s.RequestType, s.Request
	binary.LittleEndian.PutUint16(b[2:], s.Value)
	binary.LittleEndian.PutUint16(b[4:], s.Index)
	binary.LittleEndian.PutUint16(b[6:], s.Length)
	return b
}

// ParseSetup reads a setup packet from its 8 wire bytes (what a
// FunctionFS ep0 read delivers as struct usb_ctrlrequest).
func ParseSetup(b []byte) (Setup, error) {
	if len(b) != SetupLen {
		return Setup{}, fmt.Errorf("aoa: a setup packet is %d bytes, got %d", SetupLen, len(b))
	}
	return Setup{
		RequestType: b[0], Request: b[1],
		Value:  binary.LittleEndian.Uint16(b[2:]),
		Index:  binary.LittleEndian.Uint16(b[4:]),
		Length: binary.LittleEndian.Uint16(b[6:]),
	}, nil
}

// String names the request and its fields, for errors and logs.
func (s Setup) String() string {
	return fmt.Sprintf("%s (bmRequestType %#02x, value %d, index %d, length %d)", RequestName(s.Request), s.RequestType, s.Value, s.Index, s.Length)
}

// RequestName returns the AOA name of request number r.
func RequestName(r uint8) string {
	switch r {
	case GetProtocol:
		return "GET_PROTOCOL"
	case SendString:
		return "SEND_STRING"
	case Start:
		return "START"
	case RegisterHID:
		return "REGISTER_HID"
	case UnregisterHID:
		return "UNREGISTER_HID"
	case SetHIDReportDesc:
		return "SET_HID_REPORT_DESC"
	case SendHIDEvent:
		return "SEND_HID_EVENT"
	case SetAudioMode:
		return "SET_AUDIO_MODE"
	}
	return fmt.Sprintf("request %d", r)
}

// transfer makes one control transfer within [TransferTimeout]; an error
// past that wraps [ErrNoAnswer] (unless ctx itself ended).
func transfer(ctx context.Context, c Controller, s Setup, data []byte) (int, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, TransferTimeout, ErrNoAnswer)
	defer cancel()
	n, err := c.Control(tctx, s.RequestType, s.Request, s.Value, s.Index, data)
	if err != nil && ctx.Err() == nil && tctx.Err() != nil && !errors.Is(err, ErrNoAnswer) {
		err = fmt.Errorf("%w: %w", ErrNoAnswer, err)
	}
	return n, err
}

// control makes one transfer and checks that all of data moved; the
// error names the request.
func control(ctx context.Context, c Controller, s Setup, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", RequestName(s.Request), err)
	}
	n, err := transfer(ctx, c, s, data)
	if err != nil {
		return fmt.Errorf("%s: %w", RequestName(s.Request), err)
	}
	if n != len(data) {
		return fmt.Errorf("%s: the phone took %d of %d bytes", RequestName(s.Request), n, len(data))
	}
	return nil
}

// Protocol asks the phone's AOA version (GET_PROTOCOL). A phone that does
// not answer, answers short, or answers a version below [HIDProtocol]
// gives an error wrapping [ErrUnsupported] (and the transfer's error);
// ctx ending gives ctx.Err() without ErrUnsupported.
func Protocol(ctx context.Context, c Controller) (uint16, error) {
	buf := make([]byte, 2)
	s := Setup{RequestType: RequestIn, Request: GetProtocol, Length: 2}
	n, err := transfer(ctx, c, s, buf)
	switch {
	case ctx.Err() != nil:
		return 0, fmt.Errorf("aoa: GET_PROTOCOL: %w", ctx.Err())
	case err != nil:
		return 0, fmt.Errorf("%w: the phone refused GET_PROTOCOL (it is not an Android device, or its USB mode offers no accessory function): %w", ErrUnsupported, err)
	case n != 2:
		return 0, fmt.Errorf("%w: the phone answered GET_PROTOCOL with %d bytes, not 2", ErrUnsupported, n)
	}
	v := binary.LittleEndian.Uint16(buf)
	if v < HIDProtocol {
		return v, fmt.Errorf("%w: the phone speaks AOA version %d; HID input needs version %d (Android 4.1 or later)", ErrUnsupported, v, HIDProtocol)
	}
	return v, nil
}

// registerHID registers device id with descriptor desc: REGISTER_HID,
// then SET_HID_REPORT_DESC in order, chunk bytes at most each.
func registerHID(ctx context.Context, c Controller, id uint16, desc []byte, chunk int) error {
	if len(desc) == 0 || len(desc) > 0xffff {
		return fmt.Errorf("REGISTER_HID: a report descriptor of %d bytes cannot be registered (1..65535)", len(desc))
	}
	if err := control(ctx, c, Setup{RequestType: RequestOut, Request: RegisterHID, Value: id, Index: uint16(len(desc))}, nil); err != nil {
		return err
	}
	for off := 0; off < len(desc); off += chunk {
		end := min(off+chunk, len(desc))
		s := Setup{RequestType: RequestOut, Request: SetHIDReportDesc, Value: id, Index: uint16(off), Length: uint16(end - off)}
		if err := control(ctx, c, s, desc[off:end]); err != nil {
			return fmt.Errorf("descriptor bytes %d..%d of %d: %w", off, end, len(desc), err)
		}
	}
	return nil
}

// unregisterHID removes device id (UNREGISTER_HID).
func unregisterHID(ctx context.Context, c Controller, id uint16) error {
	return control(ctx, c, Setup{RequestType: RequestOut, Request: UnregisterHID, Value: id}, nil)
}

// sendHIDEvent sends one input report of device id (SEND_HID_EVENT).
func sendHIDEvent(ctx context.Context, c Controller, id uint16, report []byte) error {
	return control(ctx, c, Setup{RequestType: RequestOut, Request: SendHIDEvent, Value: id, Length: uint16(len(report))}, report)
}
