package phone

import (
	"slices"
	"testing"

	"github.com/openlolo/openlolo/api"
)

func TestProblemCodes(t *testing.T) {
	seen := map[string]bool{}
	for p := Problem(1); p <= lastProblem; p++ {
		code := p.String()
		if code == "" || code == "unknown" || seen[code] {
			t.Errorf("Problem(%d).String() = %q: empty, unknown or repeated", p, code)
		}
		seen[code] = true
		if got, ok := ParseProblem(code); !ok || got != p {
			t.Errorf("ParseProblem(%q) = %v, %v; want %v", code, got, ok, p)
		}
		if p.Summary() == "" || p.Summary() == Problem(0).Summary() {
			t.Errorf("Problem %s has no summary", code)
		}
	}
	if _, ok := ParseProblem("ready"); ok {
		t.Error(`ParseProblem("ready") found a problem`)
	}
	if got := Problem(0).String(); got != "unknown" {
		t.Errorf("Problem(0) = %q, want unknown", got)
	}
}

func TestProblemsSet(t *testing.T) {
	tests := []struct {
		in   []Problem
		want []Problem
		str  string
	}{
		{nil, []Problem{}, ""},
		{[]Problem{InputNeedsIOS27, DeveloperModeOff}, []Problem{DeveloperModeOff, InputNeedsIOS27}, "developer_mode_off,ios_below_27"},
		{[]Problem{NotTrusted, NotTrusted}, []Problem{NotTrusted}, "not_trusted"},
		{[]Problem{0, lastProblem + 1, NoVideo}, []Problem{NoVideo}, "no_video"},
	}
	for _, tt := range tests {
		s := ProblemSet(tt.in...)
		if got := s.List(); !slices.Equal(got, tt.want) {
			t.Errorf("ProblemSet(%v).List() = %v, want %v", tt.in, got, tt.want)
		}
		if got := s.String(); got != tt.str {
			t.Errorf("ProblemSet(%v).String() = %q, want %q", tt.in, got, tt.str)
		}
	}
	s := ProblemSet(DiskImageNotMounted)
	if !s.Has(DiskImageNotMounted) || s.Has(DeveloperModeOff) || s.Has(0) {
		t.Errorf("Has on %v is wrong", s)
	}
	// State with problems stays comparable (backends compare states to
	// decide whether to publish an event).
	a, b := State{Code: "x", Problems: s}, State{Code: "x", Problems: s}
	if a != b {
		t.Error("equal states compare unequal")
	}
}

// The problems' codes are the contract's, in its order.
func TestProblemCodesAreTheContracts(t *testing.T) {
	var codes []api.Problem
	for p := Problem(1); p <= lastProblem; p++ {
		codes = append(codes, p.Code())
	}
	if !slices.Equal(codes, api.Problems()) {
		t.Errorf("phone's problems are %v; api lists %v", codes, api.Problems())
	}
}
