package sim

import (
	"context"
	"fmt"

	"github.com/openlolo/openlolo/hw/phone"
)

// pendingDriver stands in until hw/input's Driver exists: every input
// fails with ErrUnsupported, so nothing pretends to work.
type pendingDriver struct{}

func newDriver(p *Phone, opts Options) driver { return pendingDriver{} }

var errNoDriver = fmt.Errorf("sim: input: hw/input is not wired yet: %w", phone.ErrUnsupported)

func (pendingDriver) Touch(context.Context, phone.Gesture) (phone.Report, error) {
	return phone.Report{}, errNoDriver
}
func (pendingDriver) Type(context.Context, string) (phone.Report, error) {
	return phone.Report{}, errNoDriver
}
func (pendingDriver) Key(context.Context, phone.Key) (phone.Report, error) {
	return phone.Report{}, errNoDriver
}
func (pendingDriver) Press(context.Context, phone.Button) (phone.Report, error) {
	return phone.Report{}, errNoDriver
}
func (pendingDriver) ReleaseAll(context.Context) error { return errNoDriver }
