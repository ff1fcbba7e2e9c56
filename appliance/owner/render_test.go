package owner

import (
	"testing"
	"time"
)

func TestSpkiPin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc=", "sha256//abc="},
		{"sha256//abc=", "sha256//abc="},
		{"", ""},
	}
	for _, tt := range tests {
		if got := spkiPin(tt.in); got != tt.want {
			t.Errorf("spkiPin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSpan(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 s"},
		{59 * time.Second, "59 s"},
		{10 * time.Minute, "10 min"},
		{90 * time.Minute, "1 h 30 min"},
		{25 * time.Hour, "25 h"},
		{30 * 24 * time.Hour, "30 days"},
	}
	for _, tt := range tests {
		if got := span(tt.d); got != tt.want {
			t.Errorf("span(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestLocalPath(t *testing.T) {
	tests := []struct {
		next string
		want bool
	}{
		{"/status", true},
		{"/oauth/authorize?client_id=x", true},
		{"//evil.example", false},
		{"/\\evil.example", false},
		{"https://evil.example", false},
		{"status", false},
		{"", false},
		{"/a\r\nSet-Cookie: x", false},
		// Issue 13: browsers drop tabs and newlines, so these are //evil.
		{"/\t/evil.example", false},
		{"/\n/evil.example", false},
		{"/\r/evil.example", false},
		{"/ /evil.example", false},
		{"/\x00/evil.example", false},
		{"\t//evil.example", false},
		{"/%09/evil.example", true}, // stays percent-encoded: a path
		{"/status?next=//evil.example", true},
		{"/a\\b", false},
		{"/é", false},
	}
	for _, tt := range tests {
		if got := localPath(tt.next); got != tt.want {
			t.Errorf("localPath(%q) = %v, want %v", tt.next, got, tt.want)
		}
	}
}

func TestMaskID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short", "short"},
		{"0123456789abcdef", "012345…cdef"},
	}
	for _, tt := range tests {
		if got := maskID(tt.in); got != tt.want {
			t.Errorf("maskID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
