package main

import (
	"strings"
	"testing"
)

func TestServeGPIOFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--gpio-button", "-1"}, "--gpio-button -1 is not a GPIO"},
		{[]string{"--gpio-led", "54"}, "--gpio-led 54 is not a GPIO"},
		{[]string{"--gpio-button", "27"}, "both GPIO27"},
		{[]string{"--gpio-led", "17"}, "both GPIO17"},
		{[]string{"--no-gpio", "--gpio-led", "22"}, "--gpio-led has no effect with --no-gpio"},
		{[]string{"--gpio-button", "x"}, "gpio-button"},
	}
	for _, tt := range tests {
		args := append([]string{"serve", "--state", dir, "--lan", "127.0.0.1:0"}, tt.args...)
		code, _, stderr := run(t, "", args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("serve %q = %d, stderr %q; want 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// A machine without GPIO serves as usual, with or without --no-gpio.
func TestServeWithoutGPIO(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"--no-gpio"}, {"--gpio-button", "5", "--gpio-led", "6"}} {
		s := startServe(t, append([]string{"--state", t.TempDir(), "--lan", "127.0.0.1:0"}, args...)...)
		if code := s.stop(); code != 0 {
			t.Errorf("serve %q exited %d; stderr:\n%s", args, code, s.stderr)
		}
	}
}
