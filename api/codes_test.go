package api

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Codes lists every Code constant declared in this package, once.
func TestCodesListsEveryConstant(t *testing.T) {
	declared := constsOf(t, "codes.go", "Code")
	listed := map[Code]bool{}
	for _, c := range Codes() {
		if listed[c] {
			t.Errorf("Codes lists %s twice", c)
		}
		listed[c] = true
	}
	if len(declared) != len(listed) {
		t.Errorf("codes.go declares %d Code constants (%v), Codes lists %d", len(declared), declared, len(listed))
	}
	if !slices.Contains(Codes(), CodeGrantRevoked) || !slices.Contains(Codes(), CodeInvalidArguments) {
		t.Error("Codes misses a code")
	}
}

// Issue 22 item 11: UNSUPPORTED_TEXT's next step did not name the tool
// that sends any text, openlolo_send_text.
func TestUnsupportedTextNamesSendText(t *testing.T) {
	_, steps := CodeUnsupportedText.Guide()
	if len(steps) == 0 || !strings.Contains(steps[0], string(ToolSendText)) || !strings.Contains(steps[0], string(ToolCapabilities)) {
		t.Fatalf("UNSUPPORTED_TEXT next steps %q: want %s, and %s to check it is offered", steps, ToolSendText, ToolCapabilities)
	}
}

// TestWireDocListsEveryCode: docs/wire.md's table of codes has a row for
// every stable code (PHONE_NOT_GRANTED once shipped without one).
func TestWireDocListsEveryCode(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, line)
		}
	}
	for _, c := range Codes() {
		if !slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "`"+string(c)+"`") }) {
			t.Errorf("docs/wire.md has no row for %s in its table of codes", c)
		}
	}
}
