package owner_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

func TestFailuresAnswerClearly(t *testing.T) {
	ph := simPhone(t)
	ctl := &fakeControl{recentErr: errors.New("journal unreadable")}
	b, c := claimedBox(t, boxOpts{phone: ph, control: ctl})

	res, body := ownertest.Get(t, c, b.url, "/activity")
	if res.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "could not read recent operations") {
		t.Errorf("Activity with a failing journal: %d %q, want 500 saying what failed", res.StatusCode, ownertest.Text(body))
	}

	// A phone that cannot take a screenshot: 503 with the reason.
	ph.Close()
	res, body = ownertest.Get(t, c, b.url, "/status/screen.jpg")
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "could not take a screenshot") {
		t.Errorf("screen.jpg of a closed phone: %d %q, want 503", res.StatusCode, body)
	}

	// The database gone: pages say something went wrong instead of hanging
	// or showing a blank page.
	b.st.Close()
	for _, p := range []string{"/status", "/access"} {
		res, body := ownertest.Get(t, c, b.url, p)
		if res.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "Something went wrong") {
			t.Errorf("GET %s with the store closed: %d %q, want 500", p, res.StatusCode, ownertest.Text(body))
		}
	}
}
