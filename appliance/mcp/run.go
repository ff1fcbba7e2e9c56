package mcp

import (
	"github.com/openlolo/openlolo/api"
)

// status adds to openlolo_status's result (control's part) what mcp
// knows about the box and the caller.
func (h *Handler) status(c call, st *api.StatusResult) {
	st.Box = h.info()
	st.You = api.You{ClientID: c.caller.ClientID, ClientName: c.caller.ClientName, Scopes: c.caller.Scopes, Entry: c.caller.Entry}
	if !c.caller.GrantExpires.IsZero() {
		st.You.GrantExpiresMS = c.caller.GrantExpires.UnixMilli()
	}
	st.Remote = api.RemoteEntry{State: "off", Reason: "the box runs no remote entry (serve --tailnet, or the Settings page)"}
	if r := h.remote(); r != nil {
		st.Remote = *r
	}
}
