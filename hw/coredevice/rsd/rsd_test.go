package rsd

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"testing"

	"github.com/openlolo/openlolo/hw/coredevice/remotexpc"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// fromJSON turns decoded JSON into the XPC values a device sends.
func fromJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		d := xpc.Dict{}
		for k, e := range x {
			d = append(d, xpc.Entry{Key: k, Value: fromJSON(e)})
		}
		return d
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = fromJSON(e)
		}
		return a
	case float64:
		return uint64(x)
	}
	return v
}

func golden(t *testing.T) xpc.Dict {
	b, err := os.ReadFile("testdata/handshake-ios17.0.3.json")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return fromJSON(v).(xpc.Dict)
}

// TestGoldenOverRemoteXPC sends the captured handshake from a device side
// and reads it with Read.
func TestGoldenOverRemoteXPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	body := golden(t)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		d, err := remotexpc.Accept(t.Context(), c)
		if err != nil {
			return
		}
		d.SendOn(t.Context(), remotexpc.RootStream, xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent, ID: 1, Body: body})
		d.Receive(t.Context()) // hold until the client is gone
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c, err := remotexpc.Dial(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Read(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if h.UDID != "00008020-001950CC01EA002E" || h.ProductType != "iPhone11,6" || h.OSVersion != "17.0.3" || h.DeviceClass != "iPhone" {
		t.Errorf("properties %+v", h)
	}
	if len(h.Services) != 67 {
		t.Errorf("%d services, want 67", len(h.Services))
	}
	di, ok := h.Service("com.apple.coredevice.deviceinfo")
	if !ok || di.Port != 50333 || !di.UsesRemoteXPC || di.Version != 1 || !di.HasFeature("com.apple.coredevice.feature.getlockstate") {
		t.Errorf("deviceinfo = %+v", di)
	}
	if di.HasFeature("com.apple.coredevice.feature.capturescreenshot") {
		t.Error("deviceinfo claims a feature it does not list")
	}
	shim, ok := h.Service("com.apple.GPUTools.MobileService.shim.remote")
	if !ok || shim.UsesRemoteXPC || shim.Port != 50358 {
		t.Errorf("shim = %+v", shim)
	}
}

func TestParseMalformed(t *testing.T) {
	set := func(f func(d xpc.Dict) xpc.Dict) xpc.Dict { return f(golden(t)) }
	for name, d := range map[string]xpc.Dict{
		"not a handshake": set(func(d xpc.Dict) xpc.Dict { return d.Set("MessageType", "Other") }),
		"no udid":         set(func(d xpc.Dict) xpc.Dict { return d.Set("Properties", xpc.Dict{}) }),
		"bad port": set(func(d xpc.Dict) xpc.Dict {
			return d.Set("Services", xpc.Dict{{Key: "s", Value: xpc.Dict{{Key: "Port", Value: "x"}}}})
		}),
		"port 0": set(func(d xpc.Dict) xpc.Dict {
			return d.Set("Services", xpc.Dict{{Key: "s", Value: xpc.Dict{{Key: "Port", Value: "0"}}}})
		}),
		"service not a dict": set(func(d xpc.Dict) xpc.Dict { return d.Set("Services", xpc.Dict{{Key: "s", Value: "x"}}) }),
	} {
		if _, err := Parse(d); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Parse = %v, want ErrMalformed", name, err)
		}
	}
}
