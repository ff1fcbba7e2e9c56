package coredevicetest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sync"

	"github.com/openlolo/openlolo/hw/coredevice/xpc"
)

// State is what the standard fake services serve and remember.
type State struct {
	mu sync.Mutex
	// Screen is what screenshots show (nil: a 1179×2556 gradient).
	Screen image.Image
	// Apps are the installed apps: bundle id → name.
	Apps map[string]string
	// Stream makes appservice advertise streamapplist (and its listapps
	// never answer, as on such phones).
	Stream bool
	// Launched records the bundle ids launched, in order; Opened the same
	// launches with their payload URL and whether a running instance was
	// terminated first.
	Launched []string
	Opened   []Open
	// Input, if set, adds DisplayService, universal HID and Indigo
	// (iOS 27+ input) backed by it.
	Input *Input
	// Clipboard is the general pasteboard's text; KeepOldClipboard makes
	// SET answer but change nothing (seen on real phones).
	Clipboard        string
	changes          uint64
	KeepOldClipboard bool
}

// Open is one launch as the fake saw it.
type Open struct {
	BundleID   string
	URL        string
	Terminated bool
}

// Opens returns the launches so far.
func (s *State) Opens() []Open {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Open{}, s.Opened...)
}

// SetKeepOldClipboard makes later SETs keep (or again replace) the text.
func (s *State) SetKeepOldClipboard(keep bool) {
	s.mu.Lock()
	s.KeepOldClipboard = keep
	s.mu.Unlock()
}

// Launches returns the bundle ids launched so far.
func (s *State) Launches() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.Launched...)
}

func feature(req xpc.Dict) string { return req.String("CoreDevice.featureIdentifier") }

func out(v any) xpc.Dict { return xpc.Dict{{Key: "CoreDevice.output", Value: v}} }

func invokeError(desc string) xpc.Dict {
	return xpc.Dict{{Key: "CoreDevice.error", Value: xpc.Dict{
		{Key: "domain", Value: "com.apple.dt.CoreDeviceError"}, {Key: "code", Value: int64(1000)}, {Key: "description", Value: desc},
	}}}
}

// Services returns deviceinfo, screencaptureservice, appservice and
// pasteboardservice backed by s, for Phone.Services.
func (s *State) Services(p *Phone) map[string]Service {
	const f = "com.apple.coredevice.feature."
	appFeatures := []string{f + "launchapplication", f + "listapps"}
	if s.Stream {
		appFeatures = append(appFeatures, f+"streamapplist")
	}
	m := map[string]Service{
		"com.apple.coredevice.deviceinfo": {
			Features: []string{f + "getdeviceinfo", f + "getdisplayinfo", f + "getlockstate"},
			Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
				switch feature(req) {
				case f + "getdeviceinfo":
					return out(xpc.Dict{{Key: "deviceName", Value: "Test iPhone"}, {Key: "productType", Value: p.ProductType}, {Key: "osVersion", Value: p.ProductVersion}}), nil
				case f + "getdisplayinfo":
					b := s.screen().Bounds()
					return out(xpc.Dict{{Key: "displays", Value: []any{xpc.Dict{{Key: "currentMode", Value: xpc.Dict{{Key: "size", Value: []any{float64(b.Dx()), float64(b.Dy())}}}}}}}}), nil
				}
				return invokeError("unknown feature " + feature(req)), nil
			},
		},
		"com.apple.coredevice.screencaptureservice": {
			Features: []string{f + "capturescreenshot"},
			Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
				if feature(req) != f+"capturescreenshot" || req.String("CoreDevice.actionIdentifier") != "com.apple.coredevice.action.capturescreenshot" ||
					req.Dict("CoreDevice.input").String("requestedFormat") != "png" {
					return invokeError("bad screenshot request"), nil
				}
				var b bytes.Buffer
				if err := png.Encode(&b, s.screen()); err != nil {
					return nil, err
				}
				return out(xpc.Dict{{Key: "image", Value: b.Bytes()}, {Key: "imageFormat", Value: "png"}, {Key: "displayUniqueID", Value: "main"}}), nil
			},
		},
		"com.apple.coredevice.appservice": {
			Features: appFeatures,
			Stream: func(ctx context.Context, req xpc.Dict) ([]xpc.Dict, bool) {
				if !s.Stream || feature(req) != f+"streamapplist" {
					return nil, false
				}
				return s.streamReplies(), true
			},
			Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
				in := req.Dict("CoreDevice.input")
				switch feature(req) {
				case f + "listapps":
					if s.Stream {
						return nil, nil // never answers
					}
					if _, ok := in.Get("requireContainerAccess"); !ok {
						return invokeError("requireContainerAccess is required"), nil
					}
					return out(s.appList()), nil
				case f + "launchapplication":
					id := in.Dict("applicationSpecifier").Dict("bundleIdentifier").String("_0")
					s.mu.Lock()
					_, ok := s.Apps[id]
					if ok {
						s.Launched = append(s.Launched, id)
						opts := in.Dict("options")
						s.Opened = append(s.Opened, Open{BundleID: id, URL: opts.Dict("payloadURL").String("relative"), Terminated: opts.Bool("terminateExisting")})
					}
					s.mu.Unlock()
					if !ok {
						return invokeError(fmt.Sprintf("The application %q is not installed.", id)), nil
					}
					return out(xpc.Dict{{Key: "processToken", Value: xpc.Dict{{Key: "processIdentifier", Value: int64(4242)}}}}), nil
				}
				return invokeError("unknown feature " + feature(req)), nil
			},
		},
		"com.apple.coredevice.pasteboardservice": {
			Handle: func(ctx context.Context, req xpc.Dict) (xpc.Dict, error) {
				s.mu.Lock()
				defer s.mu.Unlock()
				switch req.String("command") {
				case "PULL":
					item := xpc.Dict{{Key: "types", Value: []any{"public.utf8-plain-text"}},
						{Key: "data", Value: xpc.Dict{{Key: "public.utf8-plain-text", Value: xpc.Dict{{Key: "data", Value: []byte(s.Clipboard)}}}}}}
					return xpc.Dict{{Key: "command", Value: "PULL_REPLY"}, {Key: "pasteboard", Value: xpc.Dict{
						{Key: "items", Value: []any{item}},
						{Key: "metadata", Value: xpc.Dict{{Key: "changeCount", Value: uint64(s.changes)}}},
					}}}, nil
				case "SET":
					items := req.Array("items")
					if len(items) == 0 {
						return xpc.Dict{{Key: "command", Value: "ERROR"}}, nil
					}
					item, _ := items[0].(xpc.Dict)
					if !s.KeepOldClipboard {
						s.Clipboard = string(item.Dict("data").Dict("public.utf8-plain-text").Data("data"))
						s.changes++
					}
					return xpc.Dict{{Key: "command", Value: "SET_REPLY"}}, nil
				}
				return xpc.Dict{{Key: "command", Value: "ERROR"}}, nil
			},
		},
	}
	if s.Input != nil {
		s.Input.services(p, m)
	}
	return m
}

func (s *State) screen() image.Image {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Screen == nil {
		img := image.NewRGBA(image.Rect(0, 0, 1179, 2556))
		for y := 0; y < 2556; y += 4 {
			for x := 0; x < 1179; x += 4 {
				img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
			}
		}
		s.Screen = img
	}
	return s.Screen
}

func (s *State) appList() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var a []any
	for id, name := range s.Apps {
		a = append(a, xpc.Dict{{Key: "bundleIdentifier", Value: id}, {Key: "name", Value: name}, {Key: "isRemovable", Value: true}})
	}
	return a
}

// streamReplies are streamapplist's answers: an acknowledgement, the
// apps in two pushes, and the end of the stream.
func (s *State) streamReplies() []xpc.Dict {
	list := s.appList()
	mid := len(list) / 2
	return []xpc.Dict{
		{{Key: "CoreDevice.output", Value: xpc.Dict{}}},
		{{Key: "CoreDevice.XPCMessageKey.sideChannelStatus", Value: xpc.Dict{{Key: "pushing", Value: xpc.Dict{{Key: "elements", Value: list[:mid]}}}}}},
		{{Key: "CoreDevice.XPCMessageKey.sideChannelStatus", Value: xpc.Dict{{Key: "pushing", Value: xpc.Dict{{Key: "elements", Value: list[mid:]}}}}}},
		{{Key: "CoreDevice.XPCMessageKey.sideChannelStatus", Value: xpc.Dict{{Key: "finishStreaming", Value: xpc.Dict{}}}}},
	}
}
