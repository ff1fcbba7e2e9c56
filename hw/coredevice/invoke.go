package coredevice

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// The CoreDevice services this backend uses and their features.
const (
	DeviceInfoService    = "com.apple.coredevice.deviceinfo"
	ScreenCaptureService = "com.apple.coredevice.screencaptureservice"
	AppService           = "com.apple.coredevice.appservice"
	PasteboardService    = "com.apple.coredevice.pasteboardservice"

	featurePrefix = "com.apple.coredevice.feature."
	actionPrefix  = "com.apple.coredevice.action."
)

// coreDeviceVersion is the version go-ios sends and the captured launch
// request (xpc/testdata/xpc_dict.bin) carries.
func coreDeviceVersion() xpc.Dict {
	return xpc.Dict{
		{Key: "originalComponentsCount", Value: int64(2)},
		{Key: "components", Value: []any{uint64(348), uint64(1), uint64(0), uint64(0), uint64(0)}},
		{Key: "stringValue", Value: "348.1"},
	}
}

func newUUID() xpc.UUID {
	var u xpc.UUID
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// InvokeError is a CoreDevice request the device answered with an error.
type InvokeError struct {
	Feature     string
	Domain      string
	Code        int64
	Description string
}

func (e *InvokeError) Error() string {
	return fmt.Sprintf("coredevice: %s: %s (%s %d)", e.Feature, e.Description, e.Domain, e.Code)
}

// ErrNoFeature is wrapped when the phone's service does not advertise a
// feature (the device's way of saying "not supported").
var ErrNoFeature = errors.New("coredevice: the phone does not support this")

// envelope wraps input as a CoreDevice request for feature.
func (c *Conn) envelope(feature, action string, input xpc.Dict) xpc.Dict {
	d := xpc.Dict{
		{Key: "CoreDevice.coreDeviceVersion", Value: coreDeviceVersion()},
		{Key: "CoreDevice.deviceIdentifier", Value: c.deviceID.String()},
		{Key: "CoreDevice.CoreDeviceDDIProtocolVersion", Value: int64(0)},
		{Key: "CoreDevice.invocationIdentifier", Value: newUUID().String()},
		{Key: "CoreDevice.action", Value: xpc.Dict{}},
		{Key: "CoreDevice.input", Value: input},
		{Key: "CoreDevice.featureIdentifier", Value: featurePrefix + feature},
	}
	if action != "" {
		d = append(d, xpc.Entry{Key: "CoreDevice.actionIdentifier", Value: actionPrefix + action})
	}
	return d
}

// checkFeature fails when service does not advertise feature. An empty
// feature list says nothing, so it passes.
func (c *Conn) checkFeature(service, feature string) error {
	s, ok := c.RSD.Service(service)
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoService, service)
	}
	if len(s.Features) > 0 && !s.HasFeature(featurePrefix+feature) {
		return fmt.Errorf("%w: %s has no %s", ErrNoFeature, service, feature)
	}
	return nil
}

// invoke runs one CoreDevice request on its own connection and returns
// the reply's CoreDevice.output.
func (c *Conn) invoke(ctx context.Context, service, feature, action string, input xpc.Dict) (any, error) {
	if err := c.checkFeature(service, feature); err != nil {
		return nil, err
	}
	x, err := c.DialService(ctx, service)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	reply, err := x.Request(ctx, c.envelope(feature, action, input))
	if err != nil {
		return nil, fmt.Errorf("coredevice: %s: %w", feature, err)
	}
	return output(feature, reply)
}

// output returns a reply's CoreDevice.output or its error.
func output(feature string, reply xpc.Dict) (any, error) {
	if out, ok := reply.Get("CoreDevice.output"); ok {
		return out, nil
	}
	if e := reply.Dict("CoreDevice.error"); e != nil {
		ie := &InvokeError{Feature: feature, Domain: e.String("domain"), Description: e.String("description")}
		if n, ok := e.Get("code"); ok {
			ie.Code, _ = n.(int64)
		}
		if ie.Description == "" {
			ie.Description = e.Dict("userInfo").String("NSLocalizedDescription")
		}
		return nil, ie
	}
	return nil, fmt.Errorf("coredevice: %s: reply has neither output nor error (keys %v)", feature, keys(reply))
}

func keys(d xpc.Dict) []string {
	k := make([]string, len(d))
	for i, e := range d {
		k[i] = e.Key
	}
	return k
}
