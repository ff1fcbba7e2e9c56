package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// OAuthClient is one client of the authorization server (a row of
// oauth_clients).
type OAuthClient struct {
	ClientID     string
	Name         string
	Kind         string // "device" or "registered"
	RedirectURIs []string
	Entry        string
	Created      time.Time
}

// OAuthGrant is what the owner approved for a client.
type OAuthGrant struct {
	GrantID  string
	ClientID string
	Scopes   []string
	Entry    string
	Life     string // "24h", "30d", "forever"
	Created  time.Time
	Expires  time.Time // zero: until revoked
	Revoked  time.Time // zero: active
	LastUsed time.Time // zero: never
	// Phones are the ids of the phones the grant reaches; nil reaches
	// every phone of the box.
	Phones []string
}

// Reaches reports whether the grant reaches the phone with id.
func (g OAuthGrant) Reaches(id string) bool { return g.Phones == nil || slices.Contains(g.Phones, id) }

// Active reports whether the grant is neither revoked nor expired at now.
func (g OAuthGrant) Active(now time.Time) bool {
	return g.Revoked.IsZero() && (g.Expires.IsZero() || now.Before(g.Expires))
}

// DeviceRequest is one device authorization request (RFC 8628).
type DeviceRequest struct {
	Handle     string
	DeviceHash string
	UserCode   string
	ClientID   string
	// Name is the client_name the request asked in; "" when it gave none.
	// The client is renamed to it only when the owner approves.
	Name     string
	Scopes   []string
	Entry    string
	Status   string // "pending", "approved", "denied", "replaced", "used"
	GrantID  string // set once approved
	Interval time.Duration
	LastPoll time.Time
	Created  time.Time
	Expires  time.Time
}

// OAuthToken is an access or refresh token, by the SHA-256 of its value.
type OAuthToken struct {
	Hash    string
	GrantID string
	Kind    string // "access" or "refresh"
	Created time.Time
	Expires time.Time // zero: as long as the grant
	Used    time.Time // refresh tokens: when it was exchanged
	// Successor is the hash of the refresh token this one's rotation
	// issued, and RetryBlob that pair sealed under this token (see
	// UseRefreshToken); both empty until used.
	Successor string
	RetryBlob []byte
}

// AuthCode is an authorization code of the browser flow.
type AuthCode struct {
	Hash        string
	GrantID     string
	RedirectURI string
	// RedirectSent reports whether the authorization request carried
	// redirect_uri; the token request must repeat it only then.
	RedirectSent  bool
	CodeChallenge string
	Created       time.Time
	Expires       time.Time
	Used          time.Time
}

// oauthMS converts t to unix milliseconds; the zero time is 0.
func oauthMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// oauthTime converts unix milliseconds to a UTC time; 0 is the zero time.
func oauthTime(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func joinOAuthScopes(s []string) string  { return strings.Join(s, " ") }
func splitOAuthScopes(s string) []string { return strings.Fields(s) }

// InsertOAuthClient adds a client.
func (t *Tx) InsertOAuthClient(c OAuthClient) error {
	_, err := t.tx.Exec(`INSERT INTO oauth_clients(client_id, name, kind, redirect_uris, entry, created_ms)
		VALUES(?, ?, ?, ?, ?, ?)`, c.ClientID, c.Name, c.Kind, strings.Join(c.RedirectURIs, "\n"), c.Entry, oauthMS(c.Created))
	if err != nil {
		return fmt.Errorf("store: insert oauth client: %w", err)
	}
	return nil
}

// OAuthClient returns the client clientID, or ErrNotFound.
func (t *Tx) OAuthClient(clientID string) (OAuthClient, error) {
	var c OAuthClient
	var uris string
	var created int64
	err := t.tx.QueryRow(`SELECT client_id, name, kind, redirect_uris, entry, created_ms
		FROM oauth_clients WHERE client_id = ?`, clientID).Scan(&c.ClientID, &c.Name, &c.Kind, &uris, &c.Entry, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthClient{}, ErrNotFound
	}
	if err != nil {
		return OAuthClient{}, fmt.Errorf("store: oauth client: %w", err)
	}
	if uris != "" {
		c.RedirectURIs = strings.Split(uris, "\n")
	}
	c.Created = oauthTime(created)
	return c, nil
}

// ClientHasActiveGrant reports whether clientID holds a grant neither
// revoked nor expired at now.
func (t *Tx) ClientHasActiveGrant(clientID string, now time.Time) (bool, error) {
	var ok bool
	err := t.tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM oauth_grants WHERE client_id = ? AND revoked_ms = 0
		AND (expires_ms = 0 OR expires_ms > ?))`, clientID, oauthMS(now)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: client has active grant: %w", err)
	}
	return ok, nil
}

// ClientEverApproved reports whether the owner ever approved clientID (it
// has or had a grant).
func (t *Tx) ClientEverApproved(clientID string) (bool, error) {
	var ok bool
	if err := t.tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM oauth_grants WHERE client_id = ?)`, clientID).Scan(&ok); err != nil {
		return false, fmt.Errorf("store: client ever approved: %w", err)
	}
	return ok, nil
}

// RenameOAuthClient sets the display name of a client.
func (t *Tx) RenameOAuthClient(clientID, name string) error {
	t.credChanged = true
	if _, err := t.tx.Exec(`UPDATE oauth_clients SET name = ? WHERE client_id = ?`, name, clientID); err != nil {
		return fmt.Errorf("store: rename oauth client: %w", err)
	}
	return nil
}

// PruneUnapprovedRegistrations deletes registered clients created before
// cutoff that never got a grant, and returns how many it deleted.
func (t *Tx) PruneUnapprovedRegistrations(cutoff time.Time) (int64, error) {
	res, err := t.tx.Exec(`DELETE FROM oauth_clients WHERE kind = 'registered' AND created_ms < ?1
		AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.client_id)
		AND NOT EXISTS (SELECT 1 FROM oauth_device_requests d WHERE d.client_id = oauth_clients.client_id
			AND d.status = 'pending' AND d.expires_ms > ?1)`, oauthMS(cutoff))
	if err != nil {
		return 0, fmt.Errorf("store: prune registrations: %w", err)
	}
	return res.RowsAffected()
}

// InsertGrant adds a grant.
func (t *Tx) InsertGrant(g OAuthGrant) error {
	_, err := t.tx.Exec(`INSERT INTO oauth_grants(grant_id, client_id, scopes, entry, life, created_ms, expires_ms, revoked_ms, last_used_ms, phones)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, g.GrantID, g.ClientID, joinOAuthScopes(g.Scopes), g.Entry, g.Life,
		oauthMS(g.Created), oauthMS(g.Expires), oauthMS(g.Revoked), oauthMS(g.LastUsed), strings.Join(g.Phones, " "))
	if err != nil {
		return fmt.Errorf("store: insert grant: %w", err)
	}
	return nil
}

const grantCols = `g.grant_id, g.client_id, g.scopes, g.entry, g.life, g.created_ms, g.expires_ms, g.revoked_ms, g.last_used_ms, g.phones`

type oauthRow interface{ Scan(dest ...any) error }

func scanGrant(row oauthRow, extra ...any) (OAuthGrant, error) {
	var g OAuthGrant
	var scopes, phones string
	var created, expires, revoked, used int64
	dest := append([]any{&g.GrantID, &g.ClientID, &scopes, &g.Entry, &g.Life, &created, &expires, &revoked, &used, &phones}, extra...)
	if err := row.Scan(dest...); err != nil {
		return OAuthGrant{}, err
	}
	g.Scopes = splitOAuthScopes(scopes)
	if phones != "" {
		g.Phones = strings.Fields(phones)
	}
	g.Created, g.Expires, g.Revoked, g.LastUsed = oauthTime(created), oauthTime(expires), oauthTime(revoked), oauthTime(used)
	return g, nil
}

// GrantByID returns the grant grantID, or ErrNotFound.
func (t *Tx) GrantByID(grantID string) (OAuthGrant, error) {
	g, err := scanGrant(t.tx.QueryRow(`SELECT `+grantCols+` FROM oauth_grants g WHERE g.grant_id = ?`, grantID))
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthGrant{}, ErrNotFound
	}
	if err != nil {
		return OAuthGrant{}, fmt.Errorf("store: grant: %w", err)
	}
	return g, nil
}

// ActiveGrants returns the grants neither revoked nor expired at now, with
// their clients, oldest first.
func (t *Tx) ActiveGrants(now time.Time) ([]OAuthGrant, []OAuthClient, error) {
	rows, err := t.tx.Query(`SELECT `+grantCols+`, c.name, c.kind, c.created_ms, c.redirect_uris
		FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
		WHERE g.revoked_ms = 0 AND (g.expires_ms = 0 OR g.expires_ms > ?)
		ORDER BY g.created_ms, g.grant_id`, oauthMS(now))
	if err != nil {
		return nil, nil, fmt.Errorf("store: active grants: %w", err)
	}
	defer rows.Close()
	var grants []OAuthGrant
	var clients []OAuthClient
	for rows.Next() {
		var c OAuthClient
		var created int64
		var uris string
		g, err := scanGrant(rows, &c.Name, &c.Kind, &created, &uris)
		if err != nil {
			return nil, nil, fmt.Errorf("store: active grants: %w", err)
		}
		c.ClientID, c.Entry, c.Created = g.ClientID, g.Entry, oauthTime(created)
		if uris != "" {
			c.RedirectURIs = strings.Split(uris, "\n")
		}
		grants = append(grants, g)
		clients = append(clients, c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: active grants: %w", err)
	}
	return grants, clients, nil
}

// RevokeGrant marks the grant revoked at now and deletes its access tokens.
// Revoking a revoked grant keeps the first time. It returns ErrNotFound for
// an unknown grant.
func (t *Tx) RevokeGrant(grantID string, now time.Time) error {
	t.credChanged = true
	res, err := t.tx.Exec(`UPDATE oauth_grants SET revoked_ms = CASE WHEN revoked_ms = 0 THEN ? ELSE revoked_ms END
		WHERE grant_id = ?`, oauthMS(now), grantID)
	if err != nil {
		return fmt.Errorf("store: revoke grant: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return t.DeleteAccessTokens(grantID)
}

// RevokeClientGrants revokes every active grant of clientID except keep
// (which may be empty) and returns how many it revoked.
func (t *Tx) RevokeClientGrants(clientID, keep string, now time.Time) (int64, error) {
	t.credChanged = true
	if _, err := t.tx.Exec(`DELETE FROM oauth_tokens WHERE kind = 'access' AND grant_id IN
		(SELECT grant_id FROM oauth_grants WHERE client_id = ? AND grant_id != ? AND revoked_ms = 0)`, clientID, keep); err != nil {
		return 0, fmt.Errorf("store: revoke client grants: %w", err)
	}
	res, err := t.tx.Exec(`UPDATE oauth_grants SET revoked_ms = ? WHERE client_id = ? AND grant_id != ? AND revoked_ms = 0`,
		oauthMS(now), clientID, keep)
	if err != nil {
		return 0, fmt.Errorf("store: revoke client grants: %w", err)
	}
	return res.RowsAffected()
}

// SetGrantExpiry sets when the grant ends (a sliding grant on refresh).
func (t *Tx) SetGrantExpiry(grantID string, expires time.Time) error {
	t.credChanged = true
	if _, err := t.tx.Exec(`UPDATE oauth_grants SET expires_ms = ? WHERE grant_id = ?`, oauthMS(expires), grantID); err != nil {
		return fmt.Errorf("store: set grant expiry: %w", err)
	}
	return nil
}

// TouchGrant records that the grant was used at now.
func (t *Tx) TouchGrant(grantID string, now time.Time) error {
	if _, err := t.tx.Exec(`UPDATE oauth_grants SET last_used_ms = ? WHERE grant_id = ?`, oauthMS(now), grantID); err != nil {
		return fmt.Errorf("store: touch grant: %w", err)
	}
	return nil
}

// InsertDeviceRequest adds a device authorization request.
func (t *Tx) InsertDeviceRequest(d DeviceRequest) error {
	var grant any
	if d.GrantID != "" {
		grant = d.GrantID
	}
	_, err := t.tx.Exec(`INSERT INTO oauth_device_requests(handle, device_hash, user_code, client_id, client_name, scopes, entry,
		status, grant_id, interval_s, last_poll_ms, created_ms, expires_ms) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.Handle, d.DeviceHash, d.UserCode, d.ClientID, d.Name, joinOAuthScopes(d.Scopes), d.Entry, d.Status, grant,
		int64(d.Interval/time.Second), oauthMS(d.LastPoll), oauthMS(d.Created), oauthMS(d.Expires))
	if err != nil {
		return fmt.Errorf("store: insert device request: %w", err)
	}
	return nil
}

const deviceCols = `handle, device_hash, user_code, client_id, client_name, scopes, entry, status, COALESCE(grant_id, ''),
	interval_s, last_poll_ms, created_ms, expires_ms`

func scanDevice(row oauthRow) (DeviceRequest, error) {
	var d DeviceRequest
	var scopes string
	var interval, poll, created, expires int64
	err := row.Scan(&d.Handle, &d.DeviceHash, &d.UserCode, &d.ClientID, &d.Name, &scopes, &d.Entry, &d.Status, &d.GrantID,
		&interval, &poll, &created, &expires)
	if err != nil {
		return DeviceRequest{}, err
	}
	d.Scopes = splitOAuthScopes(scopes)
	d.Interval = time.Duration(interval) * time.Second
	d.LastPoll, d.Created, d.Expires = oauthTime(poll), oauthTime(created), oauthTime(expires)
	return d, nil
}

func (t *Tx) deviceRequest(where string, arg any) (DeviceRequest, error) {
	d, err := scanDevice(t.tx.QueryRow(`SELECT `+deviceCols+` FROM oauth_device_requests WHERE `+where+` = ?`, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return DeviceRequest{}, ErrNotFound
	}
	if err != nil {
		return DeviceRequest{}, fmt.Errorf("store: device request: %w", err)
	}
	return d, nil
}

// DeviceRequestByHandle returns the request named handle, or ErrNotFound.
func (t *Tx) DeviceRequestByHandle(handle string) (DeviceRequest, error) {
	return t.deviceRequest("handle", handle)
}

// DeviceRequestByHash returns the request whose device_code hashes to hash,
// or ErrNotFound.
func (t *Tx) DeviceRequestByHash(hash string) (DeviceRequest, error) {
	return t.deviceRequest("device_hash", hash)
}

// PendingDeviceRequests returns the requests still pending and not expired
// at now, oldest first.
func (t *Tx) PendingDeviceRequests(now time.Time) ([]DeviceRequest, error) {
	rows, err := t.tx.Query(`SELECT `+deviceCols+` FROM oauth_device_requests
		WHERE status = 'pending' AND expires_ms > ? ORDER BY created_ms, handle`, oauthMS(now))
	if err != nil {
		return nil, fmt.Errorf("store: pending device requests: %w", err)
	}
	defer rows.Close()
	var out []DeviceRequest
	for rows.Next() {
		d, err := scanDevice(rows)
		if err != nil {
			return nil, fmt.Errorf("store: pending device requests: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending device requests: %w", err)
	}
	return out, nil
}

// CountPendingDeviceRequests counts the requests pending and unexpired at
// now, leaving out those of exceptClient (which may be empty).
func (t *Tx) CountPendingDeviceRequests(now time.Time, exceptClient string) (int, error) {
	var n int
	err := t.tx.QueryRow(`SELECT count(*) FROM oauth_device_requests
		WHERE status = 'pending' AND expires_ms > ? AND client_id != ?`, oauthMS(now), exceptClient).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count pending device requests: %w", err)
	}
	return n, nil
}

// DeviceRequestsSince counts the device requests created after since, on
// every entry, and returns when the oldest of them was created.
func (t *Tx) DeviceRequestsSince(since time.Time) (int, time.Time, error) {
	return t.countSince(`SELECT count(*), COALESCE(min(created_ms), 0) FROM oauth_device_requests WHERE created_ms > ?`, since)
}

// RegistrationsSince counts the clients registered (RFC 7591) after since,
// on every entry, and returns when the oldest of them was created.
func (t *Tx) RegistrationsSince(since time.Time) (int, time.Time, error) {
	return t.countSince(`SELECT count(*), COALESCE(min(created_ms), 0) FROM oauth_clients
		WHERE kind = 'registered' AND created_ms > ?`, since)
}

func (t *Tx) countSince(query string, since time.Time) (int, time.Time, error) {
	var n int
	var oldest int64
	if err := t.tx.QueryRow(query, oauthMS(since)).Scan(&n, &oldest); err != nil {
		return 0, time.Time{}, fmt.Errorf("store: count since: %w", err)
	}
	return n, oauthTime(oldest), nil
}

// ReplacePendingDeviceRequests marks clientID's pending requests replaced,
// except the one named keep (which may be empty).
func (t *Tx) ReplacePendingDeviceRequests(clientID, keep string) error {
	if _, err := t.tx.Exec(`UPDATE oauth_device_requests SET status = 'replaced'
		WHERE client_id = ? AND status = 'pending' AND handle != ?`, clientID, keep); err != nil {
		return fmt.Errorf("store: replace pending device requests: %w", err)
	}
	return nil
}

// DecideDeviceRequest moves a pending, unexpired request to status
// ("approved" with grantID, or "denied"). It returns ErrNotFound when no
// such request is pending.
func (t *Tx) DecideDeviceRequest(handle, status, grantID string, now time.Time) error {
	var grant any
	if grantID != "" {
		grant = grantID
	}
	res, err := t.tx.Exec(`UPDATE oauth_device_requests SET status = ?, grant_id = ?
		WHERE handle = ? AND status = 'pending' AND expires_ms > ?`, status, grant, handle, oauthMS(now))
	if err != nil {
		return fmt.Errorf("store: decide device request: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RecordDevicePoll stores the time of a poll and the interval now in force.
func (t *Tx) RecordDevicePoll(handle string, now time.Time, interval time.Duration) error {
	if _, err := t.tx.Exec(`UPDATE oauth_device_requests SET last_poll_ms = ?, interval_s = ? WHERE handle = ?`,
		oauthMS(now), int64(interval/time.Second), handle); err != nil {
		return fmt.Errorf("store: record device poll: %w", err)
	}
	return nil
}

// UseDeviceRequest marks an approved request used; it reports false when the
// request was not in the approved state (already used).
func (t *Tx) UseDeviceRequest(handle string) (bool, error) {
	res, err := t.tx.Exec(`UPDATE oauth_device_requests SET status = 'used' WHERE handle = ? AND status = 'approved'`, handle)
	if err != nil {
		return false, fmt.Errorf("store: use device request: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// InsertToken adds an access or refresh token.
func (t *Tx) InsertToken(k OAuthToken) error {
	_, err := t.tx.Exec(`INSERT INTO oauth_tokens(hash, grant_id, kind, created_ms, expires_ms, used_ms)
		VALUES(?, ?, ?, ?, ?, ?)`, k.Hash, k.GrantID, k.Kind, oauthMS(k.Created), oauthMS(k.Expires), oauthMS(k.Used))
	if err != nil {
		return fmt.Errorf("store: insert token: %w", err)
	}
	return nil
}

// TokenByHash returns the token whose value hashes to hash, or ErrNotFound.
func (t *Tx) TokenByHash(hash string) (OAuthToken, error) {
	var k OAuthToken
	var created, expires, used int64
	err := t.tx.QueryRow(`SELECT hash, grant_id, kind, created_ms, expires_ms, used_ms, successor, retry_blob
		FROM oauth_tokens WHERE hash = ?`, hash).Scan(&k.Hash, &k.GrantID, &k.Kind, &created, &expires, &used,
		&k.Successor, &k.RetryBlob)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthToken{}, ErrNotFound
	}
	if err != nil {
		return OAuthToken{}, fmt.Errorf("store: token: %w", err)
	}
	k.Created, k.Expires, k.Used = oauthTime(created), oauthTime(expires), oauthTime(used)
	return k, nil
}

// AccessTokenGrant looks up an access token with its grant and the client's
// name and kind in one query, for the bearer check. It returns ErrNotFound
// when no access token hashes to hash.
func (t *Tx) AccessTokenGrant(hash string) (OAuthToken, OAuthGrant, OAuthClient, error) {
	var k OAuthToken
	var c OAuthClient
	var created, expires, used int64
	g, err := scanGrant(t.tx.QueryRow(`SELECT `+grantCols+`, k.created_ms, k.expires_ms, k.used_ms, c.name, c.kind
		FROM oauth_tokens k JOIN oauth_grants g ON g.grant_id = k.grant_id JOIN oauth_clients c ON c.client_id = g.client_id
		WHERE k.hash = ? AND k.kind = 'access'`, hash), &created, &expires, &used, &c.Name, &c.Kind)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthToken{}, OAuthGrant{}, OAuthClient{}, ErrNotFound
	}
	if err != nil {
		return OAuthToken{}, OAuthGrant{}, OAuthClient{}, fmt.Errorf("store: access token: %w", err)
	}
	c.ClientID, c.Entry = g.ClientID, g.Entry
	k.Hash, k.GrantID, k.Kind, k.Created, k.Expires, k.Used = hash, g.GrantID, "access", oauthTime(created),
		oauthTime(expires), oauthTime(used)
	return k, g, c, nil
}

// UseRefreshToken marks an unused refresh token used at now, recording the
// hash of the refresh token its rotation issues (successor) and the sealed
// pair for a retry (blob). It reports false when the token was already
// used, so of two concurrent refreshes only one can win.
func (t *Tx) UseRefreshToken(hash string, now time.Time, successor string, blob []byte) (bool, error) {
	res, err := t.tx.Exec(`UPDATE oauth_tokens SET used_ms = ?, successor = ?, retry_blob = ?
		WHERE hash = ? AND kind = 'refresh' AND used_ms = 0`, oauthMS(now), successor, blob, hash)
	if err != nil {
		return false, fmt.Errorf("store: use refresh token: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// MarkAccessTokenUsed records the first use of an access token at now: a
// refresh whose new pair was used is not a lost answer.
func (t *Tx) MarkAccessTokenUsed(hash string, now time.Time) error {
	if _, err := t.tx.Exec(`UPDATE oauth_tokens SET used_ms = ? WHERE hash = ? AND kind = 'access' AND used_ms = 0`,
		oauthMS(now), hash); err != nil {
		return fmt.Errorf("store: mark access token used: %w", err)
	}
	return nil
}

// ForgetRetries clears the sealed retry pairs of grantID's refresh tokens
// used before cutoff, and of the token whose successor is successor (once
// the successor is used, its predecessor can no longer be retried).
func (t *Tx) ForgetRetries(grantID string, cutoff time.Time, successor string) error {
	if _, err := t.tx.Exec(`UPDATE oauth_tokens SET retry_blob = NULL
		WHERE grant_id = ? AND kind = 'refresh' AND retry_blob IS NOT NULL AND (used_ms < ? OR successor = ?)`,
		grantID, oauthMS(cutoff), successor); err != nil {
		return fmt.Errorf("store: forget retries: %w", err)
	}
	return nil
}

// DeleteAccessTokens deletes every access token of grantID.
func (t *Tx) DeleteAccessTokens(grantID string) error {
	t.credChanged = true
	if _, err := t.tx.Exec(`DELETE FROM oauth_tokens WHERE grant_id = ? AND kind = 'access'`, grantID); err != nil {
		return fmt.Errorf("store: delete access tokens: %w", err)
	}
	return nil
}

// InsertAuthCode adds an authorization code.
func (t *Tx) InsertAuthCode(c AuthCode) error {
	_, err := t.tx.Exec(`INSERT INTO oauth_auth_codes(hash, grant_id, redirect_uri, redirect_sent, code_challenge, created_ms, expires_ms, used_ms)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?)`, c.Hash, c.GrantID, c.RedirectURI, c.RedirectSent, c.CodeChallenge,
		oauthMS(c.Created), oauthMS(c.Expires), oauthMS(c.Used))
	if err != nil {
		return fmt.Errorf("store: insert auth code: %w", err)
	}
	return nil
}

// AuthCodeByHash returns the code whose value hashes to hash, or
// ErrNotFound.
func (t *Tx) AuthCodeByHash(hash string) (AuthCode, error) {
	var c AuthCode
	var created, expires, used int64
	err := t.tx.QueryRow(`SELECT hash, grant_id, redirect_uri, redirect_sent, code_challenge, created_ms, expires_ms, used_ms
		FROM oauth_auth_codes WHERE hash = ?`, hash).Scan(&c.Hash, &c.GrantID, &c.RedirectURI, &c.RedirectSent, &c.CodeChallenge,
		&created, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return AuthCode{}, ErrNotFound
	}
	if err != nil {
		return AuthCode{}, fmt.Errorf("store: auth code: %w", err)
	}
	c.Created, c.Expires, c.Used = oauthTime(created), oauthTime(expires), oauthTime(used)
	return c, nil
}

// UseAuthCode marks an unused code used at now; it reports false when the
// code was already used.
func (t *Tx) UseAuthCode(hash string, now time.Time) (bool, error) {
	res, err := t.tx.Exec(`UPDATE oauth_auth_codes SET used_ms = ? WHERE hash = ? AND used_ms = 0`, oauthMS(now), hash)
	if err != nil {
		return false, fmt.Errorf("store: use auth code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PruneOAuth deletes what can no longer matter at now: access tokens and
// codes expired for a day, device requests expired for a day, and grants
// revoked or expired for 30 days (with their tokens).
func (t *Tx) PruneOAuth(now time.Time) error {
	t.credChanged = true
	day := oauthMS(now.Add(-24 * time.Hour))
	month := oauthMS(now.Add(-30 * 24 * time.Hour))
	for _, q := range []struct {
		sql string
		arg int64
	}{
		{`DELETE FROM oauth_tokens WHERE kind = 'access' AND expires_ms < ?`, day},
		{`DELETE FROM oauth_auth_codes WHERE expires_ms < ?`, day},
		{`DELETE FROM oauth_device_requests WHERE expires_ms < ?`, day},
		{`DELETE FROM oauth_grants WHERE (revoked_ms != 0 AND revoked_ms < ?1) OR (expires_ms != 0 AND expires_ms < ?1)`, month},
	} {
		if _, err := t.tx.Exec(q.sql, q.arg); err != nil {
			return fmt.Errorf("store: prune oauth: %w", err)
		}
	}
	return nil
}
