package owner

import (
	"net/http"
	"time"

	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/store"
)

// callsToday counts each client's calls since midnight in the box's time
// zone, by client id.
func (p *Pages) callsToday(r *http.Request) (map[string]int, error) {
	now := p.now()
	y, m, d := now.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	var calls map[string]int
	err := p.st.View(r.Context(), func(tx *store.Tx) (err error) { calls, err = tx.CallsSince(midnight); return err })
	return calls, err
}

// setLife changes how long a client's access lasts, counted from now.
func (p *Pages) setLife(w http.ResponseWriter, r *http.Request) {
	id, life := r.PostFormValue("client_id"), oauth.Life(r.PostFormValue("life"))
	name := p.clientName(r.Context(), id)
	if p.accessFailed(w, r, p.cfg.OAuth.SetClientLife(r.Context(), id, life)) {
		return
	}
	p.log.Info("owner: changed client's grant life", "client_id", id, "life", life)
	p.record(r.Context(), actSettings, "changed how long "+quoted(name)+" has access: "+lifeName(string(life)))
	http.Redirect(w, r, "/access?done=life", http.StatusSeeOther)
}

// revokeConfirmPage asks before a client's access is removed.
type revokeConfirmPage struct {
	basePage
	ClientID string
	Name     string
}

// confirmRevoke shows the confirmation of a revoke; the form posts back
// with confirm=yes.
func (p *Pages) confirmRevoke(w http.ResponseWriter, r *http.Request, id string) {
	s, _ := sessionFrom(r.Context())
	clients, err := p.cfg.OAuth.Clients(r.Context())
	if err != nil {
		p.internal(w, r, "list the clients", err)
		return
	}
	for _, c := range clients {
		if c.ClientID == id {
			p.render(w, r, http.StatusOK, "access_revoke", &revokeConfirmPage{
				basePage: basePage{Title: "Revoke " + c.Name, Nav: "access", CSRF: s.csrf, LoggedIn: true}, ClientID: id, Name: c.Name})
			return
		}
	}
	p.accessFailed(w, r, oauth.ErrNoClient)
}
