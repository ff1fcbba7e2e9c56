// Package mcp serves the box's MCP endpoint, POST /mcp: the phone tools
// over the official go-sdk's streamable HTTP transport in stateless JSON
// mode (no sessions; tools/call works without initialize).
//
// One mcp.Server holds every tool; the caller (put into the request
// context by the bearer check) is read in each call, so nothing is built
// per request. tools/list is filtered by a receiving middleware to the
// tools the caller's scopes allow, and a call to a tool outside them is
// answered SCOPE_REQUIRED.
//
// The catalog is one line per tool: its spec, the control verb, and the
// sentence for agents; the schemas are generated from the tool's argument
// and result types in package api. A call is decoded strictly into the
// argument type, handed to the verb (which applies every rule), and its
// typed answer rendered: structuredContent is the answer's JSON (in the
// shape of docs/wire.md, Answers), the text
// block one sentence built from the typed result (or the JSON itself when
// the call carries _meta["openlolo.mcp"].structured = true), and a
// screenshot or observation becomes an image block (encoded by control's
// Service.Picture, which package picture scales, encodes and caches).
package mcp
