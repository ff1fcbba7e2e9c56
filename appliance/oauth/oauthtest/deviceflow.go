// Package oauthtest holds test journeys against a running box's OAuth
// endpoints that need only HTTP, so tests in other packages (the box with
// its real Access page) can run the same checks as the oauth package.
package oauthtest

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

// FixedClientID is the client_id DeviceFlow configures, as a CLI ships a
// fixed one; the box names the new client by it.
const FixedClientID = "openlolo-e2e-cli"

// DeviceFlow is the whole script journey against box (its base URL) with
// golang.org/x/oauth2 as the client, used as its documentation shows: a
// fixed client_id (FixedClientID), no box-specific field, DeviceAuth then
// DeviceAccessToken (RFC 8628 §3.1: the box makes an unknown client_id a
// new public client). approve must then approve the request named handle
// the way the owner would (the user code is what the client shows).
// Then it polls with DeviceAccessToken, calls protected, refreshes, replays
// the old refresh token and checks that the grant is gone.
//
// It needs only HTTP, so a box-level test can pass an approve that logs in
// and presses Approve on the Access page. protected is a path behind the
// bearer check, fetched with GET: any status but 401 counts as accepted (so
// /mcp, which answers GET with 405 once authorized, works too).
func DeviceFlow(t testing.TB, box, protected string, hc *http.Client,
	approve func(ctx context.Context, handle, userCode string) error) {
	t.Helper()
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cfg := &oauth2.Config{
		ClientID: FixedClientID,
		Endpoint: oauth2.Endpoint{
			TokenURL:      box + "/token",
			DeviceAuthURL: box + "/oauth/device_authorization",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
		Scopes: []string{"phone:read", "phone:control"},
	}
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		t.Fatalf("DeviceAuth: %v", err)
	}
	u, err := url.Parse(da.VerificationURI)
	if err != nil || u.Query().Get("r") == "" || da.Interval != 5 {
		t.Fatalf("DeviceAuth answer %+v", da)
	}
	if err := approve(ctx, u.Query().Get("r"), da.UserCode); err != nil {
		t.Fatalf("approve: %v", err)
	}
	tok, err := cfg.DeviceAccessToken(ctx, da)
	if err != nil {
		t.Fatalf("DeviceAccessToken: %v", err)
	}
	if tok.RefreshToken == "" || time.Until(tok.Expiry) > 15*time.Minute {
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
