// Package mcp serves the box's MCP endpoint, POST /mcp: the phone tools
// over the official go-sdk's streamable HTTP transport in stateless JSON
// mode (no sessions; tools/call works without initialize).
//
// One mcp.Server holds every tool; the caller (put into the request
// context by the bearer check) is read in each call, so nothing is built
// per request. tools/list is filtered by a receiving middleware to the
// tools the caller's scopes allow, and a call to a tool outside them is
// answered SCOPE_REQUIRED. Tool arguments are decoded strictly here and
// turned into phone actions; the rules (rate window, lease, frames,
// journal, queue, pause, events) are appliance/control's.
//
// Every answer carries structuredContent in the shape of docs/wire.md
// (Answers) and a text block: one sentence for agents, or the JSON itself
// when the call carries _meta["openlolo.mcp"].structured = true.
// Screenshots add an image block.
package mcp
