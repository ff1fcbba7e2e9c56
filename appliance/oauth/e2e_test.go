package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestEndToEndDeviceFlow drives the device flow with golang.org/x/oauth2 as
// the client against the real server on a TLS listener; the owner approves
// by calling Server.Approve (the box-level test approves through the Access
// page instead: see deviceFlowE2E).
func TestEndToEndDeviceFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("polls on the RFC 8628 5-second interval")
	}
	h := newHarness(t, harnessOpt{realTime: true})
	deviceFlowE2E(t, h.ts.URL, "/whoami", h.ts.Client(), func(ctx context.Context, handle, userCode string) (string, error) {
		p, err := h.srv.Pending(ctx, handle)
		if err != nil {
			return "", err
		}
		if p.UserCode != userCode || p.ClientName != "e2e script" {
			t.Errorf("the owner sees %+v, the client shows %q", p, userCode)
		}
		return p.ClientID, h.srv.Approve(ctx, handle, Life30d)
	})
}

// deviceFlowE2E is the whole script journey against box (its base URL): ask,
// the owner approves (approve returns the request's client_id), poll,
// call, refresh, replay the old refresh token, and see the grant gone. It
// only needs HTTP, so a box-level test can pass an approve that logs in
// and presses Approve on the Access page. protected is a path behind the
// bearer check, fetched with GET: any status but 401 counts as accepted (so
// /mcp, which answers GET with 405 once authorized, works too).
func deviceFlowE2E(t *testing.T, box, protected string, hc *http.Client,
	approve func(ctx context.Context, handle, userCode string) (clientID string, err error)) {
	t.Helper()
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cfg := &oauth2.Config{
		Endpoint: oauth2.Endpoint{
			TokenURL:      box + "/token",
			DeviceAuthURL: box + "/oauth/device_authorization",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
		Scopes: []string{ScopePhoneRead, ScopePhoneControl},
	}
	da, err := cfg.DeviceAuth(ctx, oauth2.SetAuthURLParam("client_name", "e2e script"))
	if err != nil {
		t.Fatalf("DeviceAuth: %v", err)
	}
	u, err := url.Parse(da.VerificationURI)
	if err != nil || u.Query().Get("r") == "" || da.Interval != 5 {
		t.Fatalf("DeviceAuth answer %+v", da)
	}
	clientID, err := approve(ctx, u.Query().Get("r"), da.UserCode)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	cfg.ClientID = clientID
	tok, err := cfg.DeviceAccessToken(ctx, da)
	if err != nil {
		t.Fatalf("DeviceAccessToken: %v", err)
	}
	if tok.RefreshToken == "" || tok.Expiry.Sub(time.Now()) > 15*time.Minute {
		t.Fatalf("token %+v", tok)
	}
	call := func(access string) int {
		req, _ := http.NewRequestWithContext(ctx, "GET", box+protected, nil)
		req.Header.Set("Authorization", "Bearer "+access)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := call(tok.AccessToken); got == http.StatusUnauthorized {
		t.Fatalf("bearer check with the new token = %d", got)
	}
	// Refresh rotates.
	tok2, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if tok2.RefreshToken == tok.RefreshToken || tok2.AccessToken == tok.AccessToken {
		t.Fatal("refresh did not rotate the tokens")
	}
	if got := call(tok2.AccessToken); got == http.StatusUnauthorized {
		t.Fatalf("bearer check after refresh = %d", got)
	}
	// The old refresh token revokes the grant...
	_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("old refresh token: err = %v, want invalid_grant", err)
	}
	// ...so the new access token is refused.
	if got := call(tok2.AccessToken); got != http.StatusUnauthorized {
		t.Fatalf("bearer check after reuse = %d, want 401", got)
	}
}
