// Package startup holds the lines `openlolo serve` prints on its standard
// output once the box is up: the LAN URL, the certificate's fingerprint,
// its SPKI pin and the owner setup code. The box prints them with
// [Lines.Write]; the programs that run serve and read them (benchbox, the
// kernel test's guest, the integration tests) parse them with [Read], so
// the format has one home.
package startup

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The labels, in the order the lines are printed. A line is its label, a
// colon, spaces to align the values, and the value.
const (
	LabelURL         = "LAN URL"
	LabelFingerprint = "Fingerprint"
	LabelPin         = "SPKI pin"
	LabelSetupCode   = "Setup code"
)

// claimedPrefix starts the setup code line of a claimed box.
const claimedPrefix = "none"

// claimedLine is what a claimed box prints instead of a setup code.
const claimedLine = claimedPrefix + " (the box is claimed; the owner logs in with the passphrase)"

// Lines are the start-up lines' values.
type Lines struct {
	// URL is the LAN URL, as printed (https://host:port/).
	URL string
	// Fingerprint is the LAN certificate's SHA-256 fingerprint (hex).
	Fingerprint string
	// SPKIPin is the certificate's pin (sha256//…).
	SPKIPin string
	// SetupCode is the owner setup code; "" when the box is claimed (the
	// line then says so).
	SetupCode string
}

// Write prints l as the start-up lines.
func (l Lines) Write(w io.Writer) error {
	setup := l.SetupCode
	if setup == "" {
		setup = claimedLine
	}
	for _, kv := range [][2]string{
		{LabelURL, l.URL},
		{LabelFingerprint, l.Fingerprint},
		{LabelPin, l.SPKIPin},
		{LabelSetupCode, setup},
	} {
		if err := WriteLine(w, kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// WriteLine prints one line, label then value, aligned as the start-up
// lines are (a factory reset prints its new setup code with it).
func WriteLine(w io.Writer, label, value string) error {
	_, err := fmt.Fprintf(w, "%-14s%s\n", label+":", value)
	return err
}

// Read reads r until the setup code line and returns the values; other
// lines are skipped. It fails when r ends first or a value is missing. It
// may read past the setup code line: a caller that must keep the stream
// flowing drains r after.
func Read(r io.Reader) (Lines, error) {
	var l Lines
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		label, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch label {
		case LabelURL:
			l.URL = value
		case LabelFingerprint:
			l.Fingerprint = value
		case LabelPin:
			l.SPKIPin = value
		case LabelSetupCode:
			if !strings.HasPrefix(value, claimedPrefix) {
				l.SetupCode = value
			}
			return l, l.check(value)
		}
	}
	if err := sc.Err(); err != nil {
		return l, fmt.Errorf("startup: reading the start-up lines: %w", err)
	}
	return l, errors.New("startup: the output ended before the setup code line: serve stopped before the box was up (its log says why)")
}

// check reports the values missing when the setup code line (setup) came.
func (l Lines) check(setup string) error {
	var missing []string
	for _, f := range []struct{ label, value string }{
		{LabelURL, l.URL},
		{LabelFingerprint, l.Fingerprint},
		{LabelPin, l.SPKIPin},
		{LabelSetupCode, setup},
	} {
		if f.value == "" {
			missing = append(missing, f.label)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("startup: the start-up lines lack %s: not the output of this version's openlolo serve", strings.Join(missing, ", "))
	}
	return nil
}
