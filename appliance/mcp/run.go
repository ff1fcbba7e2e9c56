package mcp

import (
	"context"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
)

// status is openlolo_status: control's part, and what mcp knows about the
// box and the caller.
func (h *Handler) status(ctx context.Context, c call, a api.StatusArgs) control.Reply[api.StatusResult] {
	rep := h.ctl.Status(ctx, c.client, a)
	if rep.Result == nil {
		return rep
	}
	box := h.info()
	st := rep.Result
	st.Box = api.BoxInfo{Name: box.Name, Version: box.Version}
	st.You = api.You{ClientID: c.caller.ClientID, ClientName: c.caller.ClientName, Scopes: c.caller.Scopes, Entry: c.caller.Entry}
	if !c.caller.GrantExpires.IsZero() {
		st.You.GrantExpiresMS = c.caller.GrantExpires.UnixMilli()
	}
	st.Remote = api.RemoteEntry{State: "off", Reason: "the box runs no remote entry (serve --tailnet, or the Settings page)"}
	if r := box.Remote; r != nil {
		st.Remote = api.RemoteEntry{State: r.State, Reason: r.Reason, URL: r.URL}
	}
	return rep
}
