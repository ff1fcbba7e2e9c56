package owner

import (
	"testing"
	"time"
)

// zoneName named UTC twice ("UTC (UTC+00:00)") in Activity's header.
func TestZoneName(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		zone *time.Location
		want string
	}{
		{time.UTC, "UTC"},
		{time.FixedZone("GMT", 0), "UTC"},
		{time.FixedZone("CET", 3600), "CET (UTC+01:00)"},
		{time.FixedZone("+03", 3*3600), "UTC+03:00"},
		{time.FixedZone("", -(3*3600 + 1800)), "UTC-03:30"},
		{time.FixedZone("IST", 5*3600+1800), "IST (UTC+05:30)"},
	} {
		if got := zoneName(at.In(tc.zone)); got != tc.want {
			t.Errorf("zoneName(%v) = %q, want %q", tc.zone, got, tc.want)
		}
	}
}

// Settings listed the logged-in browsers without saying which is which.
func TestBrowserName(t *testing.T) {
	for _, tc := range []struct{ ua, want string }{
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.7000.1 Safari/537.36", "Chrome 156 on Linux"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36", "Headless Chrome 156 on Linux"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari 18 on iPhone"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", "Safari 17 on macOS"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91", "Edge 120 on Windows"},
		{"Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0", "Firefox 130 on Linux"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36", "Chrome 124 on Android"},
		{"Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/119.0 Mobile/15E148 Safari/604.1", "Chrome 119 on iPad"},
		{"Go-http-client/2.0", "Go-http-client 2.0"},
		{"curl/8.5.0", "curl 8.5.0"},
		{"", "an unknown browser"},
	} {
		if got := browserName(tc.ua); got != tc.want {
			t.Errorf("browserName(%q) = %q, want %q", tc.ua, got, tc.want)
		}
	}
}
