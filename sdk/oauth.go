package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DeviceCodeGrant is the grant type of RFC 8628.
const DeviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

// Metadata is the part of the box's RFC 8414 document the client uses.
type Metadata struct {
	Issuer                      string   `json:"issuer"`
	TokenEndpoint               string   `json:"token_endpoint"`
	DeviceAuthorizationEndpoint string   `json:"device_authorization_endpoint"`
	RevocationEndpoint          string   `json:"revocation_endpoint"`
	GrantTypesSupported         []string `json:"grant_types_supported"`
	ScopesSupported             []string `json:"scopes_supported"`
}

// SupportsDeviceGrant reports whether scripts can pair with the box.
func (m *Metadata) SupportsDeviceGrant() bool {
	for _, g := range m.GrantTypesSupported {
		if g == DeviceCodeGrant {
			return true
		}
	}
	return false
}

// oauthError is an RFC 6749 error answer.
type oauthError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *oauthError) Error() string {
	if e.Description != "" {
		return fmt.Sprintf("openlolo: %s: %s", e.Code, e.Description)
	}
	return "openlolo: " + e.Code
}

// tokenAnswer is a successful /token answer.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
}

// fetchMetadata reads /.well-known/oauth-authorization-server.
func fetchMetadata(ctx context.Context, hc *http.Client, base string) (*Metadata, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/.well-known/oauth-authorization-server", nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		if pe := pinError(err); pe != nil {
			return nil, pe
		}
		return nil, fmt.Errorf("openlolo: reach %s: %w", base, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("openlolo: %s has no OAuth metadata (HTTP %d); is this an openlolo box?", base, resp.StatusCode)
	}
	var m Metadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("openlolo: %s: OAuth metadata is not JSON: %v", base, err)
	}
	return &m, nil
}

// postForm posts an application/x-www-form-urlencoded request and decodes
// a JSON answer into out, or returns *oauthError.
func postForm(ctx context.Context, hc *http.Client, endpoint string, form url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		if pe := pinError(err); pe != nil {
			return pe
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &errTransport{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return &errTransport{err}
	}
	if resp.StatusCode != http.StatusOK {
		oe := &oauthError{Status: resp.StatusCode}
		if json.Unmarshal(body, oe) != nil || oe.Code == "" {
			oe.Code = "http_" + fmt.Sprint(resp.StatusCode)
			oe.Description = strings.TrimSpace(string(body))
		}
		return oe
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("openlolo: %s answered non-JSON: %v", endpoint, err)
	}
	return nil
}

// refresh exchanges cur's refresh token for a new pair. The caller holds
// the token store's lock and writes the result before using it.
//
// When the answer is lost (the connection dropped after the request went
// out), the box may have rotated already, and the refresh token in hand is
// used. The box accepts it once more for a short window (60 s) while the
// new pair is unused and answers with that same pair, so refresh retries
// once, at once, with the same token; any other reuse of a used refresh
// token revokes the grant.
func (c *Client) refresh(ctx context.Context, cur Box) (Box, error) {
	if cur.RefreshToken == "" {
		return Box{}, ErrGrantRevoked
	}
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {cur.RefreshToken},
		"client_id":     {cur.ClientID},
	}
	var ans tokenAnswer
	err := postForm(ctx, c.hc, c.url+"/token", form, &ans)
	var te *errTransport
	if errors.As(err, &te) {
		err = postForm(ctx, c.hc, c.url+"/token", form, &ans)
	}
	if err != nil {
		return Box{}, mapTokenError(err)
	}
	cur.AccessToken = ans.AccessToken
	cur.RefreshToken = ans.RefreshToken
	cur.Expiry = c.now().Add(time.Duration(ans.ExpiresIn) * time.Second)
	if ans.Scope != "" {
		cur.Scope = ans.Scope
	}
	return cur, nil
}

// mapTokenError turns /token errors into the SDK's sentinels.
func mapTokenError(err error) error {
	var oe *oauthError
	if !errors.As(err, &oe) {
		return err
	}
	switch oe.Code {
	case "invalid_grant":
		if strings.Contains(oe.Description, "another entry") {
			return fmt.Errorf("%w (%s)", ErrWrongEntry, oe.Description)
		}
		return fmt.Errorf("%w (%s)", ErrGrantRevoked, oe.Error())
	case "invalid_client":
		return fmt.Errorf("%w (%s)", ErrGrantRevoked, oe.Error())
	case "authorization_pending":
		return ErrAuthorizationPending
	case "slow_down":
		return ErrSlowDown
	case "access_denied":
		return ErrAccessDenied
	case "expired_token":
		return ErrExpiredToken
	}
	return err
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
