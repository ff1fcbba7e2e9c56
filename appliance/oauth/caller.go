package oauth

import (
	"context"
	"slices"
	"time"

	"github.com/openlolo/openlolo/api"
)

// Scopes a client may hold ([api.Scope], as the strings a grant stores).
// OwnerAdmin belongs to the owner's session on the box page and is never
// granted to a client.
const (
	ScopePhoneRead    = string(api.ScopePhoneRead)
	ScopePhoneControl = string(api.ScopePhoneControl)
	ScopeOwnerAdmin   = string(api.ScopeOwnerAdmin)
)

// Caller is who made a request that passed the bearer check: the client,
// its grant, the scopes granted and the entry the token is bound to.
type Caller struct {
	ClientID   string
	ClientName string
	GrantID    string
	Entry      string
	Issuer     string
	Scopes     []string
	// GrantExpires is when the grant ends; zero means until the owner
	// removes it.
	GrantExpires time.Time
	// Registered: the client registered itself (RFC 7591), an MCP client
	// of the browser flow, which can step up to a wider scope when told
	// 403 insufficient_scope (see InsufficientScope). Device-flow scripts
	// are told in the tool answer instead (SCOPE_REQUIRED).
	Registered bool
	// Phones are the ids of the phones the grant reaches (the owner's
	// choice at approval); nil reaches every phone of the box.
	Phones []string
}

// Has reports whether the caller was granted scope. A nil Caller has no
// scopes.
func (c *Caller) Has(scope string) bool {
	if c == nil {
		return false
	}
	return slices.Contains(c.Scopes, scope)
}

type callerKey struct{}

// ContextWithCaller returns a copy of ctx that carries c.
func ContextWithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller that Middleware (or ContextWithCaller) put
// into ctx, and false if there is none.
func CallerFrom(ctx context.Context) (*Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(*Caller)
	return c, ok && c != nil
}
