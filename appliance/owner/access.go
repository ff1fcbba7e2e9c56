package owner

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/openlolo/openlolo/appliance/oauth"
)

// accessPage is the Access page.
type accessPage struct {
	basePage
	Focus   string // the handle from ?r=, shown first
	Gone    bool   // ?r= named a request that is no longer waiting
	Pending []oauth.Pending
	Clients []oauth.Client
	Lives   []oauth.Life
	Calls   map[string]int // calls today by client id
	Done    string
	// Asks are the asks waiting for the owner; AskMarks each client's
	// marks by client id (and by request handle for the approve forms).
	Asks     askBlock
	AskMarks map[string]clientMarksView
	// Phones are the box's phones when it has several: an approval
	// picks those the grant reaches, and each client shows its own, as
	// Names labels them.
	Phones []namedPhone
	Names  phoneNames
}

func (p *Pages) accessPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	ctx := r.Context()
	ap := &accessPage{
		basePage: basePage{Title: "Access", Nav: "access", CSRF: s.csrf, LoggedIn: true, Script: true, Reload: 10},
		Lives:    []oauth.Life{oauth.Life24h, oauth.Life30d, oauth.LifeForever},
		Phones:   p.namedPhones(ctx),
	}
	if ap.Phones != nil {
		ap.Names = p.phoneNames(ctx)
	}
	pending, err := p.cfg.OAuth.PendingRequests(ctx)
	if err != nil {
		p.internal(w, r, "list the waiting requests", err)
		return
	}
	// Requests whose client stopped polling go after the live ones.
	slices.SortStableFunc(pending, func(a, b oauth.Pending) int {
		switch {
		case a.Stopped == b.Stopped:
			return 0
		case b.Stopped:
			return -1
		}
		return 1
	})
	if h := r.URL.Query().Get("r"); h != "" {
		ap.Focus, ap.Gone = h, true
		for i, pr := range pending {
			if pr.Handle == h {
				// The linked request first.
				pending[0], pending[i] = pending[i], pending[0]
				ap.Gone = false
				break
			}
		}
	}
	ap.Pending = pending
	if ap.Clients, err = p.cfg.OAuth.Clients(ctx); err != nil {
		p.internal(w, r, "list the clients", err)
		return
	}
	if ap.Calls, err = p.callsToday(r); err != nil {
		p.internal(w, r, "count the calls", err)
		return
	}
	ap.Asks = p.pendingAsks(r, s.csrf, "/access")
	ap.AskMarks = p.accessMarks(ap.Pending, ap.Clients)
	ap.Done = askDone(r.URL.Query().Get("done"))
	switch r.URL.Query().Get("done") {
	case "asks":
		ap.Done = "Saved. The client's next calls follow the new asks."
	case "approved":
		ap.Done = "Approved. The client gets its tokens on its next poll."
	case "denied":
		ap.Done = "Denied. The client is told on its next poll."
	case "life":
		ap.Done = "Changed. The new time counts from now."
	case "revoked":
		ap.Done = "Revoked. The client's tokens stopped working."
	}
	p.render(w, r, http.StatusOK, "access", ap)
}

func (p *Pages) approve(w http.ResponseWriter, r *http.Request) {
	handle, life := r.PostFormValue("handle"), oauth.Life(r.PostFormValue("life"))
	name := p.requestName(r.Context(), handle)
	client := p.requestClient(r.Context(), handle)
	phones, bad := p.grantPhones(r.PostForm["phone"], r.PostFormValue("phones_shown") != "")
	if bad != "" {
		p.message(w, r, http.StatusBadRequest, "Not approved", bad, "Access", "/access")
		return
	}
	err := p.cfg.OAuth.ApproveOn(r.Context(), handle, life, phones)
	if p.accessFailed(w, r, err) {
		return
	}
	p.approveMarks(r, client, name)
	p.log.Info("owner: approved request", "handle", handle, "life", life, "phones", phones)
	detail := "approved " + quoted(name) + " (" + string(life) + ")"
	if phones != nil {
		detail += " for phones " + strings.Join(phones, ", ")
	}
	p.record(r.Context(), actApprove, detail)
	http.Redirect(w, r, "/access?done=approved", http.StatusSeeOther)
}

func (p *Pages) deny(w http.ResponseWriter, r *http.Request) {
	handle := r.PostFormValue("handle")
	name := p.requestName(r.Context(), handle)
	if p.accessFailed(w, r, p.cfg.OAuth.Deny(r.Context(), handle)) {
		return
	}
	p.log.Info("owner: denied request", "handle", handle)
	p.record(r.Context(), actDeny, "denied "+quoted(name))
	http.Redirect(w, r, "/access?done=denied", http.StatusSeeOther)
}

func (p *Pages) revoke(w http.ResponseWriter, r *http.Request) {
	id := r.PostFormValue("client_id")
	if r.PostFormValue("confirm") != "yes" {
		p.confirmRevoke(w, r, id)
		return
	}
	name := p.clientName(r.Context(), id)
	if p.accessFailed(w, r, p.cfg.OAuth.RevokeClient(r.Context(), id)) {
		return
	}
	p.log.Info("owner: revoked client", "client_id", id)
	p.record(r.Context(), actRevoke, "revoked "+quoted(name))
	http.Redirect(w, r, "/access?done=revoked", http.StatusSeeOther)
}

// accessFailed answers for an Access action's error and reports whether
// there was one.
func (p *Pages) accessFailed(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, oauth.ErrNoRequest):
		p.message(w, r, http.StatusNotFound, "Request not waiting",
			"That request is no longer waiting: it was approved, denied, replaced by a newer one, or it expired. The client can ask again.", "Access", "/access")
	case errors.Is(err, oauth.ErrBadLife):
		p.message(w, r, http.StatusBadRequest, "Choose how long",
			"Choose how long the access lasts: 24 hours, 30 days renewed on use, or until you remove it.", "Access", "/access")
	case errors.Is(err, oauth.ErrNoClient):
		p.message(w, r, http.StatusNotFound, "No such client",
			"The box knows no client with that id; it may have been removed already.", "Access", "/access")
	default:
		p.internal(w, r, "change access", err)
	}
	return true
}

// grantPhones are the phones an approval's grant reaches from the form's
// ticked phone boxes: nil (every phone, those the box gets later too) on
// a box of one phone, with every phone ticked, or from a form that showed
// no phones (shown false: one sent by a script). bad says what is wrong.
func (p *Pages) grantPhones(ticked []string, shown bool) (phones []string, bad string) {
	ids := p.phoneIDs()
	if ids == nil || (!shown && len(ticked) == 0) {
		return nil, ""
	}
	for _, id := range ticked {
		if !slices.Contains(ids, id) {
			return nil, "The box has no phone " + quoted(id) + ". Reload the page and approve again."
		}
		if !slices.Contains(phones, id) {
			phones = append(phones, id)
		}
	}
	switch len(phones) {
	case 0:
		return nil, "Tick at least one phone the client may use, or deny the request."
	case len(ids):
		return nil, ""
	}
	return phones, ""
}
