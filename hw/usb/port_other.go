//go:build !linux

package usb

import (
	"errors"
	"fmt"
)

// Open is only implemented on Linux (usbdevfs).
func Open(path string) (*Device, error) {
	return nil, fmt.Errorf("usb: open %s: %w", path, errors.ErrUnsupported)
}
