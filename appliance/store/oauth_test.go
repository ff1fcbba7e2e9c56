package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestOAuthRows(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	now := time.UnixMilli(1_800_000_000_000).UTC()
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.InsertOAuthClient(OAuthClient{ClientID: "c1", Name: "nightly", Kind: "device", Entry: "lan", Created: now}); err != nil {
			return err
		}
		if err := tx.InsertOAuthClient(OAuthClient{ClientID: "r1", Name: "reg", Kind: "registered", Entry: "lan",
			RedirectURIs: []string{"https://a.example/cb", "http://127.0.0.1/cb"}, Created: now}); err != nil {
			return err
		}
		if err := tx.InsertGrant(OAuthGrant{GrantID: "g1", ClientID: "c1", Scopes: []string{"phone:read"}, Entry: "lan",
			Life: "24h", Created: now, Expires: now.Add(24 * time.Hour)}); err != nil {
			return err
		}
		if err := tx.InsertToken(OAuthToken{Hash: "rt", GrantID: "g1", Kind: "refresh", Created: now}); err != nil {
			return err
		}
		if err := tx.InsertToken(OAuthToken{Hash: "at", GrantID: "g1", Kind: "access", Created: now, Expires: now.Add(time.Minute)}); err != nil {
			return err
		}
		return tx.InsertDeviceRequest(DeviceRequest{Handle: "h1", DeviceHash: "dh", UserCode: "BCDFGHJK", ClientID: "c1",
			Scopes: []string{"phone:read"}, Entry: "lan", Status: "pending", Interval: 5 * time.Second, Created: now,
			Expires: now.Add(10 * time.Minute)})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		c, err := tx.OAuthClient("r1")
		if err != nil {
			return err
		}
		if len(c.RedirectURIs) != 2 || c.RedirectURIs[1] != "http://127.0.0.1/cb" || !c.Created.Equal(now) {
			t.Errorf("OAuthClient(r1) = %+v", c)
		}
		if _, err := tx.OAuthClient("nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("OAuthClient(nope) err = %v, want ErrNotFound", err)
		}
		// Single use: the second UseRefreshToken loses.
		for i, want := range []bool{true, false} {
			ok, err := tx.UseRefreshToken("rt", now, "", nil)
			if err != nil || ok != want {
				t.Errorf("UseRefreshToken #%d = %v, %v; want %v", i, ok, err, want)
			}
		}
		k, g, c, err := tx.AccessTokenGrant("at")
		if err != nil || g.GrantID != "g1" || c.Name != "nightly" || c.Kind != "device" || !k.Expires.Equal(now.Add(time.Minute)) {
			t.Errorf("AccessTokenGrant(at) = %+v %+v %+v %v", k, g, c, err)
		}
		if _, _, _, err := tx.AccessTokenGrant("rt"); !errors.Is(err, ErrNotFound) {
			t.Errorf("AccessTokenGrant(refresh token) err = %v, want ErrNotFound", err)
		}
		if n, oldest, err := tx.DeviceRequestsSince(now.Add(-time.Minute)); err != nil || n != 1 || !oldest.Equal(now) {
			t.Errorf("DeviceRequestsSince = %d, %v, %v; want 1, %v", n, oldest, err, now)
		}
		if n, oldest, err := tx.RegistrationsSince(now); err != nil || n != 0 || !oldest.IsZero() {
			t.Errorf("RegistrationsSince(now) = %d, %v, %v; want 0 (only later ones count)", n, oldest, err)
		}
		if n, _, err := tx.RegistrationsSince(now.Add(-time.Millisecond)); err != nil || n != 1 {
			t.Errorf("RegistrationsSince(just before) = %d, %v; want 1 (the device client is not counted)", n, err)
		}
		if n, err := tx.CountPendingDeviceRequests(now, ""); err != nil || n != 1 {
			t.Errorf("CountPendingDeviceRequests = %d, %v; want 1", n, err)
		}
		if n, _ := tx.CountPendingDeviceRequests(now, "c1"); n != 0 {
			t.Errorf("CountPendingDeviceRequests(except c1) = %d, want 0", n)
		}
		if err := tx.DecideDeviceRequest("h1", "approved", "g1", now.Add(11*time.Minute)); !errors.Is(err, ErrNotFound) {
			t.Errorf("DecideDeviceRequest after expiry err = %v, want ErrNotFound", err)
		}
		if err := tx.DecideDeviceRequest("h1", "approved", "g1", now); err != nil {
			t.Errorf("DecideDeviceRequest: %v", err)
		}
		if err := tx.DecideDeviceRequest("h1", "denied", "", now); !errors.Is(err, ErrNotFound) {
			t.Errorf("second DecideDeviceRequest err = %v, want ErrNotFound", err)
		}
		d, err := tx.DeviceRequestByHash("dh")
		if err != nil || d.Status != "approved" || d.GrantID != "g1" || d.Interval != 5*time.Second {
			t.Errorf("DeviceRequestByHash = %+v, %v", d, err)
		}
		for i, want := range []bool{true, false} {
			if ok, err := tx.UseDeviceRequest("h1"); err != nil || ok != want {
				t.Errorf("UseDeviceRequest #%d = %v, %v; want %v", i, ok, err, want)
			}
		}
		if err := tx.RevokeGrant("g1", now); err != nil {
			return err
		}
		if _, _, _, err := tx.AccessTokenGrant("at"); !errors.Is(err, ErrNotFound) {
			t.Errorf("access token after RevokeGrant err = %v, want ErrNotFound (deleted)", err)
		}
		if err := tx.RevokeGrant("nope", now); !errors.Is(err, ErrNotFound) {
			t.Errorf("RevokeGrant(nope) err = %v, want ErrNotFound", err)
		}
		g, err = tx.GrantByID("g1")
		if err != nil || g.Active(now) || !g.Revoked.Equal(now) {
			t.Errorf("GrantByID after revoke = %+v, %v", g, err)
		}
		// r1 never got a grant: pruned once old enough; c1 has one: kept.
		if n, err := tx.PruneUnapprovedRegistrations(now); err != nil || n != 0 {
			t.Errorf("PruneUnapprovedRegistrations(now) = %d, %v; want 0", n, err)
		}
		if n, err := tx.PruneUnapprovedRegistrations(now.Add(time.Minute)); err != nil || n != 1 {
			t.Errorf("PruneUnapprovedRegistrations(later) = %d, %v; want 1", n, err)
		}
		return tx.PruneOAuth(now.Add(31 * 24 * time.Hour))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		if _, err := tx.GrantByID("g1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("grant revoked 31 days ago still there after PruneOAuth: %v", err)
		}
		if _, err := tx.TokenByHash("rt"); !errors.Is(err, ErrNotFound) {
			t.Errorf("token of pruned grant still there: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}
