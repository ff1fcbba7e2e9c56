package oauth

import (
	"context"
	"testing"

	"github.com/openlolo/openlolo/appliance/oauth/oauthtest"
)

// TestEndToEndDeviceFlow drives the device flow with golang.org/x/oauth2 as
// the client against the real server on a TLS listener; the owner approves
// by calling Server.Approve (the box-level test approves through the Access
// page instead: see oauthtest.DeviceFlow).
func TestEndToEndDeviceFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("polls on the RFC 8628 5-second interval")
	}
	h := newHarness(t, harnessOpt{realTime: true})
	oauthtest.DeviceFlow(t, h.ts.URL, "/whoami", h.ts.Client(), func(ctx context.Context, handle, userCode string) error {
		pend, err := h.srv.PendingRequests(ctx)
		if err != nil {
			return err
		}
		// One request, from the fixed client_id, named by it.
		if len(pend) != 1 || pend[0].Handle != handle || pend[0].UserCode != userCode ||
			pend[0].ClientID != oauthtest.FixedClientID || pend[0].ClientName != oauthtest.FixedClientID {
			t.Errorf("the owner sees %+v, the client shows %q for %s", pend, userCode, handle)
		}
		return h.srv.Approve(ctx, handle, Life30d)
	})
}
