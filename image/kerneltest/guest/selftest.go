package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"time"

	"github.com/openlolo/openlolo/hw/gadget"
)

// selftestCheck runs openlolo selftest --phone gadget's steps on the
// real kernel: dummy_udc configured by the same kernel's host side, the
// word and the tap read by its usbhid (held open, so it polls), a frame
// from vivid saved as PNG.
func (s *suite) selftestCheck(ctx context.Context, out map[string][]byte) {
	p, ok := s.open(ctx, gadget.Android, false)
	if !ok {
		s.report("selftest-gadget", false, "the gadget did not come up")
		return
	}
	p.Close() // stays bound: the self-test finds it as it is
	var held []*evdev
	for _, iface := range []int{ifKeyboard, ifPointer} {
		ev, err := findEvdev(iface, gadget.DeviceAndroid, 10*time.Second)
		if err != nil {
			s.report("selftest-gadget", false, "%v", err)
			return
		}
		held = append(held, ev)
	}
	defer func() {
		for _, ev := range held {
			ev.Close()
		}
	}()
	dir, _ := os.MkdirTemp("", "selftest")
	var rep bytes.Buffer
	failed := gadget.SelfTest(ctx, &rep, gadget.SelfTestOptions{
		Options: gadget.Options{Platform: gadget.Android, Serial: "kerneltest", WriteDeadline: writeDeadline},
		OutDir:  dir, Version: "kerneltest", ConfigureWait: 10 * time.Second,
	})
	text := rep.String()
	out["selftest-gadget.txt"] = rep.Bytes()
	ok = failed == 0
	for _, want := range []string{"ok      udc", "ok      gadget", "ok      configured", "ok      key", "ok      tap", "ok      capture", "skip    led", "result: 7 ok, 0 failed, 2 skipped"} {
		ok = ok && strings.Contains(text, want)
	}
	png, err := os.ReadFile(dir + "/selftest-gadget-frame.png")
	ok = ok && err == nil && bytes.HasPrefix(png, []byte("\x89PNG"))
	s.report("selftest-gadget", ok, "%d failed: %s", failed, strings.ReplaceAll(strings.TrimSpace(text), "\n", " | "))
}
