package startup_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/openlolo/openlolo/appliance/startup"
)

// printed is what serve prints, byte for byte: the people who read it and
// the programs that parse it see this.
const printed = `LAN URL:      https://127.0.0.1:8443/
Fingerprint:  ab12
SPKI pin:     sha256//q80=
Setup code:   K7Q2M9XD
`

func TestWriteRead(t *testing.T) {
	tests := []struct {
		name  string
		lines startup.Lines
		want  string
	}{
		{"unclaimed", startup.Lines{URL: "https://127.0.0.1:8443/", Fingerprint: "ab12", SPKIPin: "sha256//q80=", SetupCode: "K7Q2M9XD"}, printed},
		{"claimed", startup.Lines{URL: "https://127.0.0.1:8443/", Fingerprint: "ab12", SPKIPin: "sha256//q80="},
			strings.Replace(printed, "K7Q2M9XD", "none (the box is claimed; the owner logs in with the passphrase)", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.lines.Write(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Fatalf("Write printed\n%s\nwant\n%s", buf.String(), tt.want)
			}
			// What follows the lines (the log, a factory reset) is not read.
			got, err := startup.Read(strings.NewReader("some other line\n" + buf.String() + "LAN URL: later\n"))
			if err != nil || got != tt.lines {
				t.Errorf("Read = %+v, %v; want %+v", got, err, tt.lines)
			}
		})
	}
}

func TestWriteLine(t *testing.T) {
	var buf bytes.Buffer
	if err := startup.WriteLine(&buf, startup.LabelSetupCode, "K7Q2M9XD"); err != nil {
		t.Fatal(err)
	}
	if want := "Setup code:   K7Q2M9XD\n"; buf.String() != want {
		t.Errorf("WriteLine printed %q, want %q", buf.String(), want)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ends early", "LAN URL:      https://127.0.0.1:8443/\nFingerprint:  ab12\n", "ended before the setup code line"},
		{"empty", "", "ended before the setup code line"},
		{"lacks values", "Fingerprint:  ab12\nSetup code:   \n", "lack LAN URL, SPKI pin, Setup code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := startup.Read(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want an error saying %q", err, tt.want)
			}
		})
	}
	broke := errors.New("pipe broke")
	broken := io.MultiReader(strings.NewReader("LAN URL: x\n"), iotest.ErrReader(broke))
	if _, err := startup.Read(broken); !errors.Is(err, broke) {
		t.Errorf("Read of a failing stream = %v, want its error", err)
	}
}
