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
	name := form.Get("client_name")
	if oe := checkClientName(name); oe != nil {
		return nil, oe
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
		Scopes:     scopes,
		Entry:      s.entry,
		Status:     "pending",
		Interval:   DevicePollInterval,
		Created:    now,
		Expires:    now.Add(DeviceCodeLife),
	}
	reused := false
	err := s.st.Update(r.Context(), func(tx *store.Tx) error {
		n, oldest, err := tx.DeviceRequestsSince(now.Add(-time.Minute))
		if err != nil {
			return err
		}
		if n >= DeviceRequestsLimit {
			return errSlowDown("the box had 10 device authorization requests in the last minute; wait and ask again",
				oldest.Add(time.Minute).Sub(now))
		}
		if id := form.Get("client_id"); id != "" {
			c, err := tx.OAuthClient(id)
			switch {
			case err == nil && c.Kind == "device" && c.Entry == s.entry:
				req.ClientID, reused = id, true
			case err != nil && !errors.Is(err, store.ErrNotFound):
				return err
			}
			// An unknown client_id (removed, or from another entry) starts
			// a new Access entry; the answer carries the new client_id.
		}
		n, err = tx.CountPendingDeviceRequests(now, req.ClientID)
		if err != nil {
			return err
		}
		if n >= MaxPendingRequests {
			return errSlowDown("5 requests are already waiting for the owner on the box page (Access); ask again once they are approved, denied or expired", DevicePollInterval)
		}
		if reused {
			if err := tx.ReplacePendingDeviceRequests(req.ClientID); err != nil {
				return err
			}
			if err := tx.RenameOAuthClient(req.ClientID, name); err != nil {
				return err
			}
		} else {
			req.ClientID = newID()
			if err := tx.InsertOAuthClient(store.OAuthClient{ClientID: req.ClientID, Name: name, Kind: "device",
				Entry: s.entry, Created: now}); err != nil {
				return err
			}
		}
		if err := tx.PruneOAuth(now); err != nil {
			return err
		}
		return tx.InsertDeviceRequest(req)
	})
	if err != nil {
		return nil, err
	}
	s.log.Info("oauth: device authorization requested", "client_id", req.ClientID, "client_name", name,
		"scopes", scopes, "handle", req.Handle, "reused_client", reused)
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
