// Package sdk is the Go client of the openlolo phone box: it pairs with a
// box through the OAuth device grant, keeps the grant in a per-user token
// store shared with the Python SDK, pins the LAN certificate, refreshes
// tokens safely across processes, and calls the box's MCP tools with typed
// helpers and typed errors.
//
// A refresh rotates the grant's tokens, and the new pair is stored before
// it is used. When a refresh's answer is lost (the connection dropped after
// sending), the client retries once at once with the same refresh token:
// the box accepts it again for 60 s while the new pair is unused and
// answers with that same pair (docs/wire.md, "Refresh and the retry
// window"); any other reuse of a used refresh token revokes the grant.
//
// The `openlolo pair`, `call`, `mcp` and `boxes` commands are thin over it.
package sdk
