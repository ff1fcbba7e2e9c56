package lockdown

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/openlolo/openlolo/hw/coredevice/plist"
)

// MaxMessage bounds one message; lockdown values are small.
const MaxMessage = 4 << 20

// ErrMalformed is wrapped by errors about bytes that are not a lockdown
// message.
var ErrMalformed = errors.New("lockdown: malformed message")

// WriteMessage writes msg with its length prefix in one Write.
func WriteMessage(w io.Writer, msg plist.Dict) error {
	body, err := plist.Marshal(msg)
	if err != nil {
		return fmt.Errorf("lockdown: encode %s: %w", msg.String("Request"), err)
	}
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	if _, err := w.Write(append(b, body...)); err != nil {
		return fmt.Errorf("lockdown: write %s: %w", msg.String("Request"), err)
	}
	return nil
}

// ReadMessage reads one length-prefixed property list.
func ReadMessage(r io.Reader) (plist.Dict, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("lockdown: read length: %w", err)
	}
	n := binary.BigEndian.Uint32(h[:])
	if n == 0 || n > MaxMessage {
		return nil, fmt.Errorf("%w: length %d", ErrMalformed, n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("lockdown: read message: %w", err)
	}
	d, err := plist.UnmarshalDict(body)
	if err != nil {
		return nil, fmt.Errorf("lockdown: %w", err)
	}
	return d, nil
}

// Error is an Error reply from lockdownd.
type Error struct {
	Request string // what was asked, e.g. "Pair"
	Name    string // lockdownd's error, e.g. "PairingDialogResponsePending"
}

func (e *Error) Error() string {
	hint := ""
	switch e.Name {
	case "PairingDialogResponsePending":
		hint = ": the phone shows Trust This Computer?; tap Trust and enter the passcode"
	case "UserDeniedPairing":
		hint = ": the phone's owner tapped Don't Trust; unplug and replug the cable to be asked again"
	case "PasswordProtected":
		hint = ": unlock the phone first"
	case "InvalidHostID":
		hint = ": the phone no longer knows this box's pair record; it must pair again"
	case "InvalidService":
		hint = ": the phone does not offer this service (too old an iOS, or no developer disk image)"
	}
	return fmt.Sprintf("lockdown: %s: %s%s", e.Request, e.Name, hint)
}

// Is makes errors.Is(err, ErrPairingPending) and the others work.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Request == "" && t.Name == e.Name
}

// Errors callers test for with errors.Is.
var (
	ErrPairingPending = &Error{Name: "PairingDialogResponsePending"}
	ErrUserDenied     = &Error{Name: "UserDeniedPairing"}
	ErrPasscode       = &Error{Name: "PasswordProtected"}
	ErrInvalidHostID  = &Error{Name: "InvalidHostID"}
)
