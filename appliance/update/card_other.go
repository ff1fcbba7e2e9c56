//go:build !linux

package update

import (
	"errors"
	"os"
)

func dropCache(*os.File) {}

func restart(string) error { return errors.New("update: restarting the machine works on Linux only") }
