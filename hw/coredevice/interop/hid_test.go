package interop

import (
	"bytes"
	"net/netip"
	"reflect"
	"testing"

	goxpc "github.com/danielpaulus/go-ios/ios/xpc"
	"github.com/google/uuid"
	howett "howett.net/plist"

	"github.com/openlolo/openlolo/hw/coredevice/mediastream"
	"github.com/openlolo/openlolo/hw/coredevice/remotehid"
	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// go-ios v1.3.2, the newest release the module proxy serves, has no
// ios/hid or ios/display: go-ios added them after it (PRs #845/#849) and
// a pseudo-version of that master is refused here (403). So these tests
// take the request maps go-ios's master builds (ios/hid/payload.go,
// ios/hid/hid.go and ios/display/display.go, MIT, Copyright (c) 2019
// danielpaulus), transcribed with our own identity strings, and run them
// through v1.3.2's XPC codec both ways against ours: the same keys,
// values and integer widths (dtuhidd rejects an int64 where it wants a
// uint64).

func goiosSend(serviceID uint64, report []byte) map[string]interface{} {
	return map[string]interface{}{
		"featureIdentifier": "com.apple.coredevice.feature.remote.universalhidservice",
		"messageType":       "Request",
		"payload":           map[string]interface{}{"send": map[string]interface{}{"_0": report, "_1": serviceID}},
	}
}

func goiosCreateKeyboard(descriptor []byte) map[string]interface{} {
	const page, usage int64 = 1, 6
	serviceID := uint64(0x100002001)
	storage := map[string]interface{}{
		"Manufacturer":     map[string]interface{}{"string": "openlolo"},
		"Product":          map[string]interface{}{"string": "openlolo Keyboard"},
		"ProductID":        map[string]interface{}{"int": int64(0x0267)},
		"VendorID":         map[string]interface{}{"int": int64(0x05AC)},
		"PrimaryUsage":     map[string]interface{}{"int": usage},
		"PrimaryUsagePage": map[string]interface{}{"int": page},
		"DeviceUsagePairs": map[string]interface{}{"array": []interface{}{map[string]interface{}{"dictionary": map[string]interface{}{
			"DeviceUsage": map[string]interface{}{"int": usage}, "DeviceUsagePage": map[string]interface{}{"int": page},
		}}}},
		"Transport":                      map[string]interface{}{"string": "USB"},
		"ReportDescriptor":               map[string]interface{}{"data": descriptor},
		"UniversalControlVirtualService": map[string]interface{}{"bool": true},
		"_ServiceID":                     map[string]interface{}{"uint": serviceID},
	}
	return map[string]interface{}{
		"featureIdentifier": "com.apple.coredevice.feature.remote.universalhidservice",
		"messageType":       "Request",
		"payload": map[string]interface{}{"createService": map[string]interface{}{"_0": map[string]interface{}{
			"DeviceUsagePairs":                   []interface{}{map[string]interface{}{"DeviceUsage": usage, "DeviceUsagePage": page}},
			"PrimaryUsage":                       uint64(usage),
			"PrimaryUsagePage":                   uint64(page),
			"Product":                            "openlolo Keyboard",
			"ProductID":                          int64(0x0267),
			"VendorID":                           int64(0x05AC),
			"_CoreDevice_codablePropertyStorage": storage,
			"_ServiceID":                         serviceID,
		}}},
	}
}

// goiosButton is the Indigo event as go-ios, idevice and appium send it.
func goiosButton(page, code, state uint64) map[string]interface{} {
	return map[string]interface{}{
		"featureIdentifier": "com.apple.coredevice.feature.remote.hid.button",
		"messageType":       "IndigoButtonEvent",
		"payload":           map[string]interface{}{"state": state, "usagePage": page, "usageCode": code},
	}
}

func goiosStart(receiverIP string, receiverPort uint64, senderIP string, session uuid.UUID, offer []byte) map[string]interface{} {
	return map[string]interface{}{
		"clientSupportedFeatures": uint64(140),
		"direction":               "output",
		"negotiatorOffer":         offer,
		"options": map[string]interface{}{
			"AVCMediaStreamNegotiatorAccessNetworkType":     map[string]interface{}{"int": int64(1)},
			"AVCMediaStreamNegotiatorTransportProtocolType": map[string]interface{}{"int": int64(2)},
			"CoreDeviceVideoDisplayMode":                    map[string]interface{}{"string": "DisplayByID"},
			"VideoStreamForDisplayID":                       map[string]interface{}{"int": int64(1)},
			"avcMediaStreamOptionClientSessionID":           map[string]interface{}{"uuid": session},
		},
		"receiverIP":   receiverIP,
		"receiverPort": receiverPort,
		"senderIP":     senderIP,
		"timeout":      uint64(20),
		"type":         "video",
	}
}

type pair struct {
	name   string
	ours   xpc.Dict
	theirs map[string]interface{}
}

func pairs(t *testing.T) []pair {
	t.Helper()
	report := remotehid.Touchscreen(remotehid.Touch{Down: true, X: 42, Y: 43, Timestamp: 0x123456789ABC})
	kb := remotehid.Keyboard([]uint8{0x19, 0xE3}, 7)
	create := remotehid.CreateKeyboard()
	desc := create.Dict("payload").Dict("createService").Dict("_0").Dict("_CoreDevice_codablePropertyStorage").Dict("ReportDescriptor").Data("data")
	session := uuid.MustParse("0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9")
	offer, err := mediastream.Offer(xpc.UUID(session), mediastream.DefaultBlob(1234))
	if err != nil {
		t.Fatal(err)
	}
	start := mediastream.Start{Receiver: netip.MustParseAddrPort("[fd35:d15d:9fa1::2]:50123"), Sender: netip.MustParseAddr("fd35:d15d:9fa1::1"),
		ClientSessionID: xpc.UUID(session), Offer: offer}
	return []pair{
		{"send touch", remotehid.Send(remotehid.MainTouchscreen, report), goiosSend(257, report)},
		{"send keyboard", remotehid.Send(0x100002042, kb), goiosSend(0x100002042, kb)},
		{"createService", create, goiosCreateKeyboard(desc)},
		{"home down", remotehid.Button(remotehid.HomeButton, remotehid.ButtonDown), goiosButton(0x0C, 0x40, 1)},
		{"volume up up", remotehid.Button(remotehid.VolumeUpButton, remotehid.ButtonUp), goiosButton(0x0C, 0xE9, 2)},
		{"startmediastream input", start.Input(), goiosStart("fd35:d15d:9fa1::2", 50123, "fd35:d15d:9fa1::1", session, offer)},
		{"stopmediastream input", mediastream.StopInput(xpc.UUID(session)),
			map[string]interface{}{"avcMediaStreamOptionClientSessionID": map[string]interface{}{"uuid": session}}},
	}
}

// TestHIDGoIOSDecodesOurs: go-ios's decoder reads our HID and
// DisplayService messages as the maps go-ios builds, types included.
func TestHIDGoIOSDecodesOurs(t *testing.T) {
	for _, p := range pairs(t) {
		b, err := xpc.Message{Flags: xpc.FlagAlwaysSet | xpc.FlagDataPresent, ID: 3, Body: p.ours}.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		m, err := goxpc.DecodeMessage(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: go-ios DecodeMessage: %v", p.name, err)
		}
		if !reflect.DeepEqual(m.Body, p.theirs) {
			t.Errorf("%s: go-ios decoded\n%#v\nwant\n%#v", p.name, m.Body, p.theirs)
		}
	}
}

// TestHIDWeDecodeGoIOS: what go-ios's encoder writes for those maps, our
// decoder and parsers read back to the same messages.
func TestHIDWeDecodeGoIOS(t *testing.T) {
	for _, p := range pairs(t) {
		var b bytes.Buffer
		if err := goxpc.EncodeMessage(&b, goxpc.Message{Flags: goxpc.AlwaysSetFlag | goxpc.DataFlag, Body: p.theirs}); err != nil {
			t.Fatal(err)
		}
		m, err := xpc.Unmarshal(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if got := toGoIOS(m.Body); !reflect.DeepEqual(got, p.theirs) {
			t.Errorf("%s: we decoded\n%#v\nwant\n%#v", p.name, got, p.theirs)
		}
		if got, want := toGoIOS(m.Body), toGoIOS(p.ours); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: go-ios's message differs from ours", p.name)
		}
	}
	// The parsers the fake phone uses take go-ios's bytes.
	var b bytes.Buffer
	report := remotehid.Touchscreen(remotehid.Touch{Down: true, X: 1, Y: 2})
	goxpc.EncodeMessage(&b, goxpc.Message{Flags: goxpc.AlwaysSetFlag | goxpc.DataFlag, Body: goiosSend(257, report)})
	m, _ := xpc.Unmarshal(b.Bytes())
	if id, r, err := remotehid.ParseSend(m.Body); err != nil || id != 257 || !bytes.Equal(r, report) {
		t.Errorf("ParseSend(go-ios) = %d, % x, %v", id, r, err)
	}
}

// negotiatorOffer is go-ios's offer struct (ios/display/offer.go),
// which it writes with howett.net/plist.
type negotiatorOffer struct {
	RemoteEndpointInfo []byte `plist:"avcMediaStreamOptionRemoteEndpointInfo"`
	NegotiatorMode     int    `plist:"avcMediaStreamNegotiatorMode"`
	MediaBlob          []byte `plist:"avcMediaStreamNegotiatorMediaBlob"`
	CallID             string `plist:"avcMediaStreamOptionCallID"`
}

// TestOfferPlist: howett.net/plist (go-ios's binary plist library) reads
// our negotiator offer, and we read the one it writes.
func TestOfferPlist(t *testing.T) {
	id := uuid.MustParse("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
	ours, err := mediastream.Offer(xpc.UUID(id), mediastream.DefaultBlob(2368635137))
	if err != nil {
		t.Fatal(err)
	}
	var got negotiatorOffer
	if _, err := howett.Unmarshal(ours, &got); err != nil {
		t.Fatalf("howett.net/plist reads our offer: %v", err)
	}
	parsed, err := mediastream.ParseOffer(ours)
	if err != nil {
		t.Fatal(err)
	}
	if got.CallID != "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE" || got.NegotiatorMode != 5 || len(got.RemoteEndpointInfo) == 0 || !bytes.HasPrefix(got.MediaBlob, []byte{0x78, 0xDA}) {
		t.Errorf("howett decoded %+v", got)
	}
	theirs, err := howett.Marshal(got, howett.BinaryFormat)
	if err != nil {
		t.Fatal(err)
	}
	back, err := mediastream.ParseOffer(theirs)
	if err != nil {
		t.Fatalf("we read howett's offer: %v", err)
	}
	if !reflect.DeepEqual(back, parsed) {
		t.Errorf("howett's offer reads as %+v, ours as %+v", back, parsed)
	}
}
