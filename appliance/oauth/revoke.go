package oauth

import (
	"errors"
	"net/http"

	"github.com/openlolo/openlolo/appliance/store"
)

// errOtherClient is a token revoked in the name of a client it was not
// issued to (RFC 7009 §2.1: the request is refused).
var errOtherClient = &Error{Status: http.StatusUnauthorized, Code: "invalid_client",
	Description: "this token was issued to another client_id; nothing was revoked. Send the client_id the token was issued to, or none"}

// serveRevoke is RFC 7009: revoking an access or a refresh token revokes
// its whole grant. Unknown tokens are answered 200 as well (§2.2), so the
// answer tells nothing about a token. A client_id (form or HTTP Basic)
// other than the token's client is refused with invalid_client and
// revokes nothing (§2.1); without one, the token's holder revokes it (the
// box's clients are public: the token is the only credential).
func (s *Server) serveRevoke(w http.ResponseWriter, r *http.Request) {
	form, oe := readForm(w, r)
	if oe != nil {
		s.writeError(w, r, oe)
		return
	}
	var clientID string
	if _, _, basic := r.BasicAuth(); basic || form.Has("client_id") {
		if clientID, oe = tokenClientID(r, form); oe != nil {
			s.writeError(w, r, oe)
			return
		}
	}
	tok := form.Get("token")
	if tok == "" {
		s.writeError(w, r, errInvalidRequest("token is missing; send the access or refresh token to revoke"))
		return
	}
	if h := form.Get("token_type_hint"); h != "" && h != "access_token" && h != "refresh_token" {
		s.writeError(w, r, errBadRequest("unsupported_token_type", "token_type_hint must be access_token or refresh_token"))
		return
	}
	now := s.nowUTC()
	var grantID string
	err := s.st.Update(r.Context(), func(tx *store.Tx) error {
		k, err := tx.TokenByHash(hashSecret(tok))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		g, err := tx.GrantByID(k.GrantID)
		if err != nil {
			return err
		}
		if g.Entry != s.entry {
			return nil // another entry's token: unknown here
		}
		if clientID != "" && g.ClientID != clientID {
			return errOtherClient
		}
		grantID = g.GrantID
		return tx.RevokeGrant(g.GrantID, now)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if grantID != "" {
		s.log.Info("oauth: grant revoked by its client (RFC 7009)", "grant_id", grantID)
	}
	noStore(w)
	w.WriteHeader(http.StatusOK)
}
