package owner

import (
	"context"
	"net"
	"net/http"

	"github.com/openlolo/openlolo/appliance/store"
)

// Owner actions as Activity lists them (store.Action.Action).
const (
	actClaim       = "claim"
	actClaimFailed = "claim_failed"
	actLogin       = "login"
	actLoginFailed = "login_failed"
	actLogout      = "logout"
	actApprove     = "approve"
	actDeny        = "deny"
	actRevoke      = "revoke"
	actSettings    = "settings"
)

// record writes one of the owner's actions to the actions log for
// Activity. detail must hold no secrets. A failed write is logged, never
// the action's failure: the action has happened.
func (p *Pages) record(ctx context.Context, action, detail string) {
	err := p.st.Update(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		return tx.InsertAction(store.Action{At: p.now(), Actor: "owner", Action: action, Detail: detail})
	})
	if err != nil {
		p.log.Warn("owner: record the action", "action", action, "err", err)
	}
}

// from says where a request came from, for Activity ("from 192.0.2.7").
func from(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "from " + host
}

// requestName is the name a pending request asked in ("" when it is no
// longer waiting).
func (p *Pages) requestName(ctx context.Context, handle string) string {
	reqs, err := p.cfg.OAuth.PendingRequests(ctx)
	if err != nil {
		return ""
	}
	for _, q := range reqs {
		if q.Handle == handle {
			return q.ClientName
		}
	}
	return ""
}

// clientName is an approved client's name ("" when unknown).
func (p *Pages) clientName(ctx context.Context, id string) string {
	cs, err := p.cfg.OAuth.Clients(ctx)
	if err != nil {
		return ""
	}
	for _, c := range cs {
		if c.ClientID == id {
			return c.Name
		}
	}
	return ""
}

func quoted(name string) string {
	if name == "" {
		return "a client"
	}
	return "“" + name + "”"
}
