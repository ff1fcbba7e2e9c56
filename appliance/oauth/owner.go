package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

// Pending is a device authorization request waiting for the owner.
type Pending struct {
	Handle   string
	ClientID string
	// ClientName is the name the request asked in (the client's name when
	// it gave none).
	ClientName string
	// KnownAs is the name of the approved client whose client_id the
	// request carries, "" when that client holds no active grant. Such a
	// request is "a new request in the name of KnownAs": client_id is no
	// secret, so the owner must see that approving it replaces the grant
	// the client holds now.
	KnownAs  string
	UserCode string // XXXX-XXXX
	Scopes   []string
	Entry    string
	Created  time.Time
	Expires  time.Time
	// LastPoll is when the client last asked for its tokens; zero before
	// its first poll.
	LastPoll time.Time
	// Stopped is set once the client has polled and then not polled for
	// StoppedPolls intervals: it most likely gave up (a person stopped
	// the script), and approving would give access nobody collects. A
	// request never polled is not stopped: a person with curl polls
	// after approving.
	Stopped bool
}

// StoppedPolls is how many polling intervals a device request may go
// without a poll before Access marks it as stopped ([Pending.Stopped]).
const StoppedPolls = 2

// Client is an approved client: one line of Access.
type Client struct {
	ClientID string
	Name     string
	Scopes   []string
	Entry    string
	Life     Life
	Created  time.Time // when the grant was approved
	LastUsed time.Time // zero: never used
	Expires  time.Time // zero: until removed
	GrantID  string
	// FirstSeen is when the client first asked (registered, or sent its
	// first device request); RedirectHost the host (and port) its
	// browser sign-in returns to, "" for a client that signed in with a
	// code. Two clients of one name ("MCP CLI Proxy") differ in these.
	FirstSeen    time.Time
	RedirectHost string
	// Phones are the ids of the phones the grant reaches; nil reaches
	// every phone of the box.
	Phones []string
}

// PendingRequests returns the device requests waiting for the owner, oldest
// first, from every entry.
func (s *Server) PendingRequests(ctx context.Context) ([]Pending, error) {
	now := s.nowUTC()
	var out []Pending
	err := s.st.View(ctx, func(tx *store.Tx) error {
		reqs, err := tx.PendingDeviceRequests(now)
		if err != nil {
			return err
		}
		for _, d := range reqs {
			p, err := pendingOf(tx, d, now)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("oauth: pending requests: %w", err)
	}
	return out, nil
}

func pendingOf(tx *store.Tx, d store.DeviceRequest, now time.Time) (Pending, error) {
	c, err := tx.OAuthClient(d.ClientID)
	if err != nil {
		return Pending{}, err
	}
	p := Pending{Handle: d.Handle, ClientID: d.ClientID, ClientName: c.Name, UserCode: formatUserCode(d.UserCode),
		Scopes: d.Scopes, Entry: d.Entry, Created: d.Created, Expires: d.Expires, LastPoll: d.LastPoll,
		Stopped: !d.LastPoll.IsZero() && now.Sub(d.LastPoll) > StoppedPolls*d.Interval+pollLeeway}
	if d.Name != "" {
		p.ClientName = d.Name
	}
	known, err := tx.ClientHasActiveGrant(d.ClientID, now)
	if err != nil {
		return Pending{}, err
	}
	if known {
		p.KnownAs = c.Name
	}
	return p, nil
}

// Pending returns the pending request named handle, or ErrNoRequest when it
// is unknown, decided, replaced or expired.
func (s *Server) Pending(ctx context.Context, handle string) (Pending, error) {
	now := s.nowUTC()
	var p Pending
	err := s.st.View(ctx, func(tx *store.Tx) error {
		d, err := tx.DeviceRequestByHandle(handle)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (d.Status != "pending" || !now.Before(d.Expires))) {
			return ErrNoRequest
		}
		if err != nil {
			return err
		}
		p, err = pendingOf(tx, d, now)
		return err
	})
	if err != nil && !errors.Is(err, ErrNoRequest) {
		return Pending{}, fmt.Errorf("oauth: pending %q: %w", handle, err)
	}
	return p, err
}

// Approve grants the pending request named handle for life. A client that
// is approved again keeps one Access entry: its earlier grants are revoked,
// its other pending requests replaced, and it takes the name the approved
// request asked in.
func (s *Server) Approve(ctx context.Context, handle string, life Life) error {
	return s.ApproveOn(ctx, handle, life, nil)
}

// ApproveOn is [Server.Approve] of a grant that reaches only the phones
// with the ids in phones (nil: every phone of the box).
func (s *Server) ApproveOn(ctx context.Context, handle string, life Life, phones []string) error {
	if !life.valid() {
		return ErrBadLife
	}
	now := s.nowUTC()
	var d store.DeviceRequest
	g := store.OAuthGrant{GrantID: newID(), Life: string(life), Created: now, Expires: life.expiry(now), Phones: phones}
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		d, err = tx.DeviceRequestByHandle(handle)
		if errors.Is(err, store.ErrNotFound) {
			return ErrNoRequest
		}
		if err != nil {
			return err
		}
		g.ClientID, g.Scopes, g.Entry = d.ClientID, d.Scopes, d.Entry
		if err := tx.InsertGrant(g); err != nil {
			return err
		}
		if err := tx.DecideDeviceRequest(handle, "approved", g.GrantID, now); errors.Is(err, store.ErrNotFound) {
			return ErrNoRequest
		} else if err != nil {
			return err
		}
		if d.Name != "" {
			if err := tx.RenameOAuthClient(d.ClientID, d.Name); err != nil {
				return err
			}
		}
		if err := tx.ReplacePendingDeviceRequests(d.ClientID, handle); err != nil {
			return err
		}
		_, err = tx.RevokeClientGrants(d.ClientID, g.GrantID, now)
		return err
	})
	if errors.Is(err, ErrNoRequest) {
		return err
	}
	if err != nil {
		return fmt.Errorf("oauth: approve %q: %w", handle, err)
	}
	s.log.Info("oauth: owner approved device request", "handle", handle, "client_id", d.ClientID,
		"grant_id", g.GrantID, "life", life, "scopes", d.Scopes)
	return nil
}

// Deny refuses the pending request named handle; the client's next poll
// gets access_denied.
func (s *Server) Deny(ctx context.Context, handle string) error {
	now := s.nowUTC()
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		return tx.DecideDeviceRequest(handle, "denied", "", now)
	})
	if errors.Is(err, store.ErrNotFound) {
		return ErrNoRequest
	}
	if err != nil {
		return fmt.Errorf("oauth: deny %q: %w", handle, err)
	}
	s.log.Info("oauth: owner denied device request", "handle", handle)
	return nil
}

// Clients returns the approved clients with an active grant, from every
// entry, oldest grant first.
func (s *Server) Clients(ctx context.Context) ([]Client, error) {
	now := s.nowUTC()
	var out []Client
	err := s.st.View(ctx, func(tx *store.Tx) error {
		grants, clients, err := tx.ActiveGrants(now)
		for i, g := range grants {
			out = append(out, Client{ClientID: g.ClientID, Name: clients[i].Name, Scopes: g.Scopes, Entry: g.Entry,
				Life: Life(g.Life), Created: g.Created, LastUsed: g.LastUsed, Expires: g.Expires, GrantID: g.GrantID,
				FirstSeen: clients[i].Created, RedirectHost: redirectHost(clients[i].RedirectURIs), Phones: g.Phones})
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("oauth: clients: %w", err)
	}
	return out, nil
}

// RevokeClient revokes every grant of clientID (its tokens stop working on
// the next request) and drops its pending requests.
func (s *Server) RevokeClient(ctx context.Context, clientID string) error {
	now := s.nowUTC()
	var n int64
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.OAuthClient(clientID); errors.Is(err, store.ErrNotFound) {
			return ErrNoClient
		} else if err != nil {
			return err
		}
		var err error
		if n, err = tx.RevokeClientGrants(clientID, "", now); err != nil {
			return err
		}
		return tx.ReplacePendingDeviceRequests(clientID, "")
	})
	if errors.Is(err, ErrNoClient) {
		return err
	}
	if err != nil {
		return fmt.Errorf("oauth: revoke client %q: %w", clientID, err)
	}
	s.log.Info("oauth: owner revoked client", "client_id", clientID, "grants", n)
	return nil
}

// GrantActive reports whether grantID is neither revoked nor expired; an
// unknown grant is not active.
func (s *Server) GrantActive(ctx context.Context, grantID string) (bool, error) {
	now := s.nowUTC()
	var active bool
	err := s.st.View(ctx, func(tx *store.Tx) error {
		g, err := tx.GrantByID(grantID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		active = err == nil && g.Active(now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("oauth: grant active: %w", err)
	}
	return active, nil
}

// redirectHost is the host (with port) of a client's first redirect URI,
// or its scheme for a private-use one (com.example.app:/callback); ""
// when it has none.
func redirectHost(uris []string) string {
	if len(uris) == 0 {
		return ""
	}
	u, err := url.Parse(uris[0])
	switch {
	case err != nil:
		return ""
	case u.Host != "":
		return u.Host
	default:
		return u.Scheme + ":"
	}
}
