package input

import (
	"context"
	"fmt"

	"github.com/openlolo/openlolo/hw/hid"
	"github.com/openlolo/openlolo/phone"
)

// Writer delivers one HID report to the phone through the function of
// kind k. It returns when the report has been taken (or failed); it should
// honour ctx. hw/gadget writes /dev/hidgN; hw/sim decodes the report.
type Writer interface {
	WriteReport(ctx context.Context, k hid.Kind, report []byte) error
}

// Profile chooses the pointer function for the phone's platform.
type Profile uint8

// Profiles. The zero value is IOS.
const (
	// IOS drives an iPhone or iPad through an absolute mouse
	// (AssistiveTouch pointer).
	IOS Profile = iota
	// Android drives an Android phone through a multitouch touchscreen
	// digitizer.
	Android
	// IOSRelative drives an iPhone through a relative mouse: each gesture
	// first homes the pointer in the top-left corner, then moves by
	// calibrated steps. A fallback for iOS versions that ignore absolute
	// coordinates.
	IOSRelative
)

// String returns "ios", "android" or "ios-relative".
func (p Profile) String() string {
	switch p {
	case IOS:
		return "ios"
	case Android:
		return "android"
	case IOSRelative:
		return "ios-relative"
	}
	return fmt.Sprintf("profile(%d)", uint8(p))
}

// ParseProfile parses the names String returns.
func ParseProfile(s string) (Profile, error) {
	for _, p := range []Profile{IOS, Android, IOSRelative} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("input: unknown profile %q: use ios, android or ios-relative", s)
}

func (p Profile) valid() bool { return p <= IOSRelative }

// Platform is the phone platform the profile drives.
func (p Profile) Platform() phone.Platform {
	if p == Android {
		return phone.Android
	}
	return phone.IOS
}

// Pointer is the kind of the profile's pointer function.
func (p Profile) Pointer() hid.Kind {
	switch p {
	case Android:
		return hid.KindTouch
	case IOSRelative:
		return hid.KindRelMouse
	}
	return hid.KindAbsMouse
}

// Kinds lists the functions the gadget must offer for the profile, in
// link order: keyboard, consumer control, then the pointer last.
func (p Profile) Kinds() []hid.Kind {
	return []hid.Kind{hid.KindKeyboard, hid.KindConsumer, p.Pointer()}
}

// Buttons lists the buttons [Driver.Press] accepts with this profile.
func (p Profile) Buttons() []phone.Button {
	bs := []phone.Button{phone.Home, phone.Lock, phone.VolumeUp, phone.VolumeDown, phone.Mute}
	if p == Android {
		bs = append(bs, phone.Back, phone.AppSwitch)
	}
	return bs
}
