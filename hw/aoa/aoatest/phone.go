// Package aoatest fakes the phone side of AOA v2 HID: a [Phone] answers
// the vendor control requests as Android's accessory function does
// (protocol 2 by default), reassembles the report descriptors the box
// registers, checks ids, lengths and offsets, and records every event per
// HID device, decoding them with hw/hid's parser so tests assert what the
// phone would see (touch contacts, keys, buttons).
//
// [Phone.Control] makes it an aoa.Controller for tests in-process;
// [Phone.Handle] takes a setup packet and its data, so a FunctionFS ep0
// loop (the QEMU fake device) can answer the same requests.
//
// The fake is stricter than Android where strictness catches a box bug:
// it stalls START (the box must never switch the phone to accessory
// mode), descriptor chunks longer than MaxChunk, and events its
// descriptor cannot decode.
package aoatest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// ErrStall is wrapped by every refusal: the phone stalled the request, as
// Android's accessory function does for one it rejects (usbdevfs reports
// it as EPIPE).
var ErrStall = errors.New("aoatest: the phone stalled the request")

// DefaultMaxChunk is Phone.MaxChunk's zero value: the control endpoint's
// max packet size at high speed.
const DefaultMaxChunk = 64

// Phone is a fake Android phone's accessory function. Set its fields
// before the first request; its methods are safe for concurrent use.
type Phone struct {
	// Protocol is the AOA version GET_PROTOCOL answers; 0 means 2.
	Protocol uint16
	// NoAOA makes GET_PROTOCOL stall, as a phone without an accessory
	// function does.
	NoAOA bool
	// MaxChunk is the most bytes one SET_HID_REPORT_DESC may carry; 0
	// means DefaultMaxChunk.
	MaxChunk int
	// Fail, when set, is asked before each request; an error it returns
	// is the transfer's error and the request is not handled (a
	// disconnect, a stall, a timeout).
	Fail func(s aoa.Setup) error

	mu       sync.Mutex
	devices  map[uint16]*device
	requests []Request
}

// Request is one request the fake received, with its outcome.
type Request struct {
	Setup aoa.Setup
	// Data is the host-to-device data stage (nil for none or In).
	Data []byte
	// Err is nil when the request was answered.
	Err error
}

// Device is one HID device registered on the fake.
type Device struct {
	ID uint16
	// Length is the descriptor length REGISTER_HID announced.
	Length int
	// Descriptor is what SET_HID_REPORT_DESC delivered so far.
	Descriptor []byte
	// Reports are the events SEND_HID_EVENT delivered, in order.
	Reports [][]byte
}

// Complete reports whether the whole descriptor arrived (Android then
// creates the input device and takes events).
func (d Device) Complete() bool { return len(d.Descriptor) == d.Length }

type device struct {
	Device
	parsed *hid.Descriptor
}

// Control answers one control transfer as the phone would: it is an
// aoa.Controller. For In requests data is filled with the answer.
func (p *Phone) Control(ctx context.Context, requestType, request uint8, value, index uint16, data []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if len(data) > 0xffff {
		return 0, fmt.Errorf("aoatest: a control transfer carries at most 65535 bytes, got %d", len(data))
	}
	s := aoa.Setup{RequestType: requestType, Request: request, Value: value, Index: index, Length: uint16(len(data))}
	if s.In() {
		reply, err := p.Handle(s, nil)
		if err != nil {
			return 0, err
		}
		return copy(data, reply), nil
	}
	if _, err := p.Handle(s, data); err != nil {
		return 0, err
	}
	return len(data), nil
}

// Handle answers setup packet s with its host-to-device data (nil for an
// In request) and returns the device-to-host answer (at most s.Length
// bytes; nil for Out). An error wraps ErrStall (or is Fail's) and means
// the request stalls.
func (p *Phone) Handle(s aoa.Setup, data []byte) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var reply []byte
	err := p.fail(s)
	if err == nil {
		reply, err = p.handle(s, data)
	}
	if err != nil {
		err = fmt.Errorf("aoatest: %s: %w", s, err)
	}
	p.requests = append(p.requests, Request{Setup: s, Data: slices.Clone(data), Err: err})
	return reply, err
}

func (p *Phone) fail(s aoa.Setup) error {
	if p.Fail == nil {
		return nil
	}
	return p.Fail(s)
}

func stall(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrStall}, args...)...)
}

func (p *Phone) handle(s aoa.Setup, data []byte) ([]byte, error) {
	if !s.In() && len(data) != int(s.Length) {
		return nil, stall("the data stage is %d bytes, the setup packet says %d", len(data), s.Length)
	}
	switch s.RequestType {
	case aoa.RequestIn:
		if s.Request != aoa.GetProtocol {
			return nil, stall("no such device-to-host request")
		}
		if p.NoAOA {
			return nil, stall("this phone has no accessory function")
		}
		v := p.Protocol
		if v == 0 {
			v = aoa.HIDProtocol
		}
		reply := binary.LittleEndian.AppendUint16(nil, v)
		return reply[:min(len(reply), int(s.Length))], nil
	case aoa.RequestOut:
	default:
		return nil, stall("bmRequestType %#02x is not a vendor request to the device (0x40 or 0xc0)", s.RequestType)
	}
	if p.devices == nil {
		p.devices = map[uint16]*device{}
	}
	switch s.Request {
	case aoa.RegisterHID:
		if s.Index == 0 || s.Length != 0 {
			return nil, stall("REGISTER_HID needs the descriptor length in index (got %d) and no data (got %d bytes)", s.Index, s.Length)
		}
		p.devices[s.Value] = &device{Device: Device{ID: s.Value, Length: int(s.Index)}}
		return nil, nil
	case aoa.UnregisterHID:
		if _, ok := p.devices[s.Value]; !ok {
			return nil, stall("no HID device with id %d is registered", s.Value)
		}
		delete(p.devices, s.Value)
		return nil, nil
	case aoa.SetHIDReportDesc:
		return nil, p.setDesc(s, data)
	case aoa.SendHIDEvent:
		return nil, p.event(s, data)
	case aoa.Start:
		return nil, stall("START would switch the phone to accessory mode and re-enumerate it (ADB would drop); the box must not send it")
	}
	return nil, stall("not an AOA request the phone answers")
}

func (p *Phone) setDesc(s aoa.Setup, data []byte) error {
	d, ok := p.devices[s.Value]
	switch {
	case !ok:
		return stall("no HID device with id %d is registered", s.Value)
	case d.Complete():
		return stall("device %d already has its whole descriptor (%d bytes)", s.Value, d.Length)
	case int(s.Index) != len(d.Descriptor):
		return stall("chunk offset %d, but %d bytes arrived so far (chunks must come in order)", s.Index, len(d.Descriptor))
	case int(s.Index)+len(data) > d.Length:
		return stall("chunk %d..%d runs past the %d bytes REGISTER_HID announced", s.Index, int(s.Index)+len(data), d.Length)
	case len(data) > p.maxChunk():
		return stall("chunk of %d bytes is longer than the control endpoint's %d", len(data), p.maxChunk())
	}
	d.Descriptor = append(d.Descriptor, data...)
	if d.Complete() {
		parsed, err := hid.Parse(d.Descriptor)
		if err != nil {
			return stall("device %d: %v", s.Value, err)
		}
		d.parsed = parsed
	}
	return nil
}

func (p *Phone) maxChunk() int {
	if p.MaxChunk > 0 {
		return p.MaxChunk
	}
	return DefaultMaxChunk
}

func (p *Phone) event(s aoa.Setup, data []byte) error {
	d, ok := p.devices[s.Value]
	switch {
	case !ok:
		return stall("no HID device with id %d is registered", s.Value)
	case d.parsed == nil:
		return stall("device %d has %d of %d descriptor bytes; it takes no events yet", s.Value, len(d.Descriptor), d.Length)
	}
	if _, err := d.parsed.Decode(data); err != nil {
		return stall("device %d: %v", s.Value, err)
	}
	d.Reports = append(d.Reports, slices.Clone(data))
	return nil
}

// Requests returns every request received so far, in order.
func (p *Phone) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// Transfers returns how many requests the fake received.
func (p *Phone) Transfers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// Device returns a copy of the device registered with id; ok is false
// when there is none.
func (p *Phone) Device(id uint16) (d Device, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	dev, ok := p.devices[id]
	if !ok {
		return Device{}, false
	}
	d = dev.Device
	d.Descriptor = slices.Clone(d.Descriptor)
	d.Reports = slices.Clone(d.Reports)
	return d, true
}

// IDs returns the ids of the registered devices, ascending.
func (p *Phone) IDs() []uint16 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []uint16
	for id := range p.devices {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Decoded returns the events of device id decoded by its descriptor.
func (p *Phone) Decoded(id uint16) ([]hid.Decoded, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.devices[id]
	if !ok || d.parsed == nil {
		return nil, fmt.Errorf("aoatest: no complete HID device with id %d", id)
	}
	out := make([]hid.Decoded, 0, len(d.Reports))
	for i, r := range d.Reports {
		dec, err := d.parsed.Decode(r)
		if err != nil {
			return nil, fmt.Errorf("aoatest: device %d event %d: %w", id, i, err)
		}
		out = append(out, dec)
	}
	return out, nil
}

// Touch is one digitizer event as the phone reads it.
type Touch struct {
	// Contact is the tip switch: true while the finger is down.
	Contact bool
	// ID is the contact identifier.
	ID int32
	// X and Y are the logical coordinates (0..hid.MaxCoord).
	X, Y int32
}

// Point returns the position as fractions of the screen.
func (t Touch) Point() phone.Point {
	return phone.Point{X: float64(t.X) / hid.MaxCoord, Y: float64(t.Y) / hid.MaxCoord}
}

// Touches returns the events of digitizer id as contacts; an event
// without X, Y or the tip switch is an error.
func (p *Phone) Touches(id uint16) ([]Touch, error) {
	evs, err := p.Decoded(id)
	if err != nil {
		return nil, err
	}
	out := make([]Touch, 0, len(evs))
	for i, e := range evs {
		tip, ok1 := e.Value(hid.PageDigitizer, hid.UsageTipSwitch)
		x, ok2 := e.Value(hid.PageGenericDesktop, hid.UsageX)
		y, ok3 := e.Value(hid.PageGenericDesktop, hid.UsageY)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("aoatest: device %d event %d has no tip switch, X and Y: not a touch", id, i)
		}
		cid, _ := e.Value(hid.PageDigitizer, hid.UsageContactID)
		out = append(out, Touch{Contact: tip != 0, ID: cid, X: x, Y: y})
	}
	return out, nil
}

// Pressed returns, for each event of device id, the usages on page that
// are down (keys with page hid.PageKeyboard, buttons with
// hid.PageConsumer); an event with none down is an empty slice.
func (p *Phone) Pressed(id uint16, page uint16) ([][]uint16, error) {
	evs, err := p.Decoded(id)
	if err != nil {
		return nil, err
	}
	out := make([][]uint16, len(evs))
	for i, e := range evs {
		out[i] = e.Pressed(page)
		if out[i] == nil {
			out[i] = []uint16{}
		}
	}
	return out, nil
}

// Phone is an aoa.Controller.
var _ aoa.Controller = (*Phone)(nil)
