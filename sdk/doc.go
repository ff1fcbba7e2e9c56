// Package sdk is the Go client of the openlolo phone box: it pairs with a
// box through the OAuth device grant, keeps the grant in a per-user token
// store shared with the Python SDK, pins the LAN certificate, refreshes
// tokens safely across processes, and calls the box's MCP tools with typed
// helpers and typed errors.
//
// The `openlolo pair`, `call`, `mcp` and `boxes` commands are thin over it.
package sdk
