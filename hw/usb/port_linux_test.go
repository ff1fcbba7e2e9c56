package usb

import (
	"errors"
	"testing"
)

func TestOpenMissingNode(t *testing.T) {
	_, err := Open(t.TempDir() + "/001/009")
	if !errors.Is(err, ErrDeviceGone) {
		t.Errorf("Open of a missing node: %v, want ErrDeviceGone", err)
	}
}
