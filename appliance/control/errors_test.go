package control_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/phone"
)

// TestPhoneErrorSteps: a backend's own next steps (phone.StepError, e.g.
// the gadget backend for an iPhone below iOS 27) lead the answer's, and
// the code's guidance follows.
func TestPhoneErrorSteps(t *testing.T) {
	err := fmt.Errorf("coredevice: touch: %w", &phone.StepError{Err: fmt.Errorf("%w: iOS 26", phone.ErrUnsupported), Steps: []string{"use --phone gadget"}})
	e := control.PhoneError(err)
	_, guide := api.CodeUnsupported.Guide()
	if e.Code != api.CodeUnsupported || !slices.Equal(e.NextSteps, append([]string{"use --phone gadget"}, guide...)) {
		t.Errorf("PhoneError = %+v", e)
	}
	plain := control.PhoneError(errors.New("x"))
	if _, g := api.CodeInternal.Guide(); !slices.Equal(plain.NextSteps, g) {
		t.Errorf("no steps added to %+v", plain)
	}
}
