package aoa_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/hw/aoa"
	"github.com/openlolo/openlolo/hw/aoa/aoatest"
	"github.com/openlolo/openlolo/phone"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestTranscriptGolden pins the bytes on ep0 for Open, a tap and Close:
// each request's 8-byte setup packet and its data stage, as the QEMU
// FunctionFS fake will read them. go test -update rewrites the file.
func TestTranscriptGolden(t *testing.T) {
	p := &aoatest.Phone{}
	in, err := aoa.Open(t.Context(), aoa.Options{Controller: p, Sleep: noWait, Settle: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Touch(t.Context(), phone.Tap(phone.Point{X: 0.5, Y: 0.25}, phone.TapHold)); err != nil {
		t.Fatal(err)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range p.Requests() {
		setup := r.Setup.Bytes()
		fmt.Fprintf(&b, "% x", setup)
		if len(r.Data) > 0 {
			fmt.Fprintf(&b, " | % x", r.Data)
		}
		if r.Err != nil {
			b.WriteString(" | stall")
		}
		fmt.Fprintf(&b, " # %s\n", aoa.RequestName(r.Setup.Request))
	}
	path := filepath.Join("testdata", "open_tap_close.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("ep0 transcript differs from %s:\n%s", path, got)
	}
}
