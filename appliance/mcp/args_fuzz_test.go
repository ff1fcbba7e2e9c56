package mcp

import (
	"testing"

	"github.com/openlolo/openlolo/api"
)

// FuzzDecodeArgs feeds arbitrary bytes to the strict decoding of every
// input tool's arguments: no panic, and a refusal always has a code and a
// message. (The checks after decoding are fuzzed in appliance/control.)
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"x":0.5,"y":0.5,"frame_id":"a-1","geometry_epoch":"1"}`,
		`{"x":1e309}`, `{"x":-0,"y":1,"frame_id":"f","geometry_epoch":7}`, `{"text":"Hello, box!"}`,
		`{"key":"F12","modifiers":["cmd","shift"]}`, `{"a":1}{"b":2}`, `{"geometry_epoch":{"x":1}}`,
		`{"kinds":["frame","nope"]}`, `{"max_size":"big"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, v := range []any{&api.SwipeArgs{}, &api.TypeTextArgs{}, &api.KeyArgs{}, &api.ScreenshotArgs{},
			&api.WatchArgs{}, &api.OpenURLArgs{}, &api.ControlArgs{}} {
			if e := decodeArgs(raw, v); e != nil && (e.Code != api.CodeInvalidArguments || e.Message == "") {
				t.Fatalf("decode refusal without code or message: %+v", e)
			}
		}
	})
}
