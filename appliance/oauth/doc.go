// Package oauth is the box's OAuth 2.1 authorization server and the bearer
// check in front of /mcp.
//
// Scripts and headless agents use the device authorization grant (RFC 8628):
// they ask /oauth/device_authorization for a user code, the owner approves it
// on the box page's Access list, and the client polls /token. client_id
// identifies the client (§3.1): one registered, one issued earlier, or an
// unknown fixed id, which becomes a new public client; client_name alone gets
// an id issued. A request changes nothing about an existing client until the
// owner approves it. Browser-based
// MCP clients register themselves (RFC 7591, public clients only) and use the
// authorization code grant with PKCE S256; the owner package renders the
// consent page and calls ParseAuthorize, ApproveAuthorize and DenyAuthorize.
// Metadata is published per RFC 8414 and RFC 9728, revocation per RFC 7009.
//
// Tokens are 256-bit random strings; only their SHA-256 is stored. Access
// tokens live 15 minutes and never beyond their grant. Refresh tokens rotate
// on every use, and presenting a used one revokes the whole grant, except
// the one just used, again within [RefreshRetryWindow] while the pair it got
// is unused: that is a retry after a lost answer, answered with the same
// pair (sealed in the store under the used token). A grant lives 24 hours,
// 30 days renewed on each refresh, or until removed. Tokens are bound to the
// entry (LAN or tailnet) that issued them.
//
// Middleware checks the bearer token on every request (cached in memory for
// one credential generation of the store, so a revoke, a rotation or a reset
// takes effect on the very next request) and puts a [Caller] into the
// request context. It
// refuses tokens in the query string and requests with two credentials
// (two Authorization headers, or a bearer token beside the box page's
// session cookie) with RFC 6750 errors.
//
// # Limits
//
// At most 5 device requests wait for the owner and 10 device requests and
// 10 registrations are accepted per minute, per box (counted in the store,
// across entries); beyond them the answer is 429 slow_down with Retry-After.
// Registered clients that never get a grant are pruned after 10 minutes.
//
// # Owner side
//
// The box page lists [Server.PendingRequests] and [Server.Clients] and calls
// [Server.Approve], [Server.Deny] and [Server.RevokeClient]; a grant's
// [Life] is chosen at approval. Approving a client again revokes its
// earlier grant, so each client has one line under Access.
package oauth
