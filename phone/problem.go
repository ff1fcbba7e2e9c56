package phone

import (
	"math/bits"
	"strings"

	"github.com/openlolo/openlolo/api"
)

// Problem is one thing the owner can fix that keeps the phone from doing
// all it could: the USB cable in the wrong port, an iPhone that has not
// trusted the box yet, Developer Mode off. Backends report them in
// [State.Problems]; the box page shows each with a walkthrough.
type Problem uint8

// Problems a backend reports, in the order of [api.Problems]. Codes (see
// [Problem.Code]) are the contract's: the box page keys on them.
const (
	// NoUDC: the box has no USB device controller (gadget).
	NoUDC Problem = iota + 1
	// NotConfigured: the phone has not set up the box's USB device
	// (gadget: wrong port, charge-only cable, phone locked).
	NotConfigured
	// NoVideo: no capture device (gadget: the HDMI capture adapter is
	// missing or the phone sends no picture).
	NoVideo
	// NotTrusted: the iPhone has not trusted the box yet: it shows (or
	// is about to show, once unlocked) Trust This Computer?, or its
	// owner tapped Don't Trust.
	NotTrusted
	// DeveloperModeOff: the iPhone's Developer Mode is off, so the
	// developer disk image cannot be mounted.
	DeveloperModeOff
	// DiskImageNotMounted: the iPhone's personalized developer disk
	// image is not mounted (after every restart of the phone it must be
	// mounted again, which needs Apple's signing server).
	DiskImageNotMounted
	// InputNeedsIOS27: the iPhone runs an iOS below 27, which takes no
	// touch or keys over the CoreDevice cable; screenshots and apps still
	// work. Input needs the gadget backend (or iOS 27).
	InputNeedsIOS27
	// USBDebuggingOff: the Android phone's ADB cannot be reached: USB
	// debugging is off (or, over TCP, the phone is not in `adb tcpip`
	// mode at the address the box dials).
	USBDebuggingOff
	// ADBNotAllowed: the Android phone shows (or is about to show, once
	// unlocked) "Allow USB debugging?" for the box's key, or its owner
	// tapped Deny.
	ADBNotAllowed

	lastProblem = ADBNotAllowed
)

var problemCodes = [...]api.Problem{
	NoUDC:               api.ProblemNoUDC,
	NotConfigured:       api.ProblemNotConfigured,
	NoVideo:             api.ProblemNoVideo,
	NotTrusted:          api.ProblemNotTrusted,
	DeveloperModeOff:    api.ProblemDeveloperModeOff,
	DiskImageNotMounted: api.ProblemDiskImageNotMounted,
	InputNeedsIOS27:     api.ProblemIOSBelow27,
	USBDebuggingOff:     api.ProblemUSBDebuggingOff,
	ADBNotAllowed:       api.ProblemADBNotAllowed,
}

// String returns the problem's stable code, e.g. "developer_mode_off".
func (p Problem) String() string { return string(p.Code()) }

// Code returns the problem's code in the contract ("unknown" for none).
func (p Problem) Code() api.Problem {
	if p == 0 || p > lastProblem {
		return "unknown"
	}
	return problemCodes[p]
}

// Summary is one sentence saying what is wrong, for a person.
func (p Problem) Summary() string { return p.Code().Summary() }

// ParseProblem returns the problem with code s.
func ParseProblem(s string) (Problem, bool) {
	for p := Problem(1); p <= lastProblem; p++ {
		if string(problemCodes[p]) == s {
			return p, true
		}
	}
	return 0, false
}

// Problems is a set of [Problem]s. It is a bit set so that [State] stays
// comparable with ==.
type Problems uint32

// ProblemSet returns the set of ps.
func ProblemSet(ps ...Problem) Problems {
	var s Problems
	for _, p := range ps {
		s = s.With(p)
	}
	return s
}

// With returns s with p added.
func (s Problems) With(p Problem) Problems {
	if p == 0 || p > lastProblem {
		return s
	}
	return s | 1<<(p-1)
}

// Has reports whether p is in s.
func (s Problems) Has(p Problem) bool { return p != 0 && p <= lastProblem && s&(1<<(p-1)) != 0 }

// List returns the problems in s, in the order the owner fixes them
// (the order of the constants).
func (s Problems) List() []Problem {
	out := make([]Problem, 0, bits.OnesCount32(uint32(s)))
	for p := Problem(1); p <= lastProblem; p++ {
		if s.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// String lists the codes, comma-separated ("" for none).
func (s Problems) String() string {
	var b strings.Builder
	for i, p := range s.List() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.String())
	}
	return b.String()
}
