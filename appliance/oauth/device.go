package oauth

import (
	"errors"
	"net/http"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// deviceAuthorization is the answer of /oauth/device_authorization (RFC 8628
// §3.2, plus client_id, which the box adds).
type deviceAuthorization struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval"`
	ClientID                string `json:"client_id"`
}

func (s *Server) serveDeviceAuthorization(w http.ResponseWriter, r *http.Request) {
	resp, err := s.deviceAuthorization(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) deviceAuthorization(w http.ResponseWriter, r *http.Request) (*deviceAuthorization, error) {
	now := s.nowUTC()
	form, oe := readForm(w, r)
	if oe != nil {
		return nil, oe
	}
	// RFC 8628 §3.1: client_id identifies the client. client_name (the
	// box's addition; docs/wire.md) names it, or asks for a new one.
	id, name := form.Get("client_id"), form.Get("client_name")
	if id == "" && name == "" {
		return nil, errInvalidRequest("send client_id (RFC 8628 §3.1), or client_name to get a client_id issued, e.g. client_name=nightly.py+on+mac-mini")
	}
	if name != "" {
		if oe := checkClientName(name); oe != nil {
			return nil, oe
		}
	}
	if id != "" {
		if oe := checkClientID(id); oe != nil {
			return nil, oe
		}
	}
	scopes, oe := parseScope(form.Get("scope"))
	if oe != nil {
		return nil, oe
	}
	deviceCode, userCode := newSecret(), newUserCode()
	req := store.DeviceRequest{
		Handle:     newID(),
		DeviceHash: hashSecret(deviceCode),
		UserCode:   userCode,
		Name:       name,
		Scopes:     scopes,
		Entry:      s.entry,
		Status:     "pending",
		Interval:   DevicePollInterval,
		Created:    now,
		Expires:    now.Add(DeviceCodeLife),
	}
	how := "issued"
	err := s.st.Update(r.Context(), func(tx *store.Tx) error {
		n, oldest, err := tx.DeviceRequestsSince(now.Add(-time.Minute))
		if err != nil {
			return err
		}
		if n >= DeviceRequestsLimit {
			return errSlowDown("the box had 10 device authorization requests in the last minute; wait and ask again",
				oldest.Add(time.Minute).Sub(now))
		}
		n, err = tx.CountPendingDeviceRequests(now, "")
		if err != nil {
			return err
		}
		if n >= MaxPendingRequests {
			return errSlowDown("5 requests are already waiting for the owner on the box page (Access); ask again once they are approved, denied or expired", DevicePollInterval)
		}
		if err := tx.PruneOAuth(now); err != nil {
			return err
		}
		req.ClientID, how, err = s.deviceClient(tx, id, name, now)
		if err != nil {
			return err
		}
		return tx.InsertDeviceRequest(req)
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("oauth: device authorization requested", "client_id", req.ClientID, "client_name", name,
		"scopes", scopes, "handle", req.Handle, "client", how)
	uri := s.verifyFn(r, req.Handle)
	return &deviceAuthorization{
		DeviceCode:              deviceCode,
		UserCode:                formatUserCode(userCode),
		VerificationURI:         uri,
		VerificationURIComplete: uri,
		ExpiresIn:               int(DeviceCodeLife.Seconds()),
		Interval:                int(DevicePollInterval.Seconds()),
		ClientID:                req.ClientID,
	}, nil
}

// deviceClient returns the client a device request is for, and how it was
// found: "known" (registered, or issued earlier, on this entry: nothing
// about it changes until the owner approves), "new" (an unknown client_id,
// such as a CLI's fixed id: a new public client by that id, named by name
// or else by the id) or "issued" (no usable client_id: a new id).
func (s *Server) deviceClient(tx *store.Tx, id, name string, now time.Time) (string, string, error) {
	if id != "" {
		c, err := tx.OAuthClient(id)
		switch {
		case err == nil && c.Entry == s.entry:
			return id, "known", nil
		case errors.Is(err, store.ErrNotFound):
			if name == "" {
				name = id
			}
			return id, "new", tx.InsertOAuthClient(store.OAuthClient{ClientID: id, Name: name, Kind: "device",
				Entry: s.entry, Created: now})
		case err != nil:
			return "", "", err
		}
		// A client of the other entry: clients are bound to the entry
		// that made them, so this one gets its own id (in the answer).
		if name == "" {
			name = c.Name
		}
	}
	id = newID()
	return id, "issued", tx.InsertOAuthClient(store.OAuthClient{ClientID: id, Name: name, Kind: "device",
		Entry: s.entry, Created: now})
}
