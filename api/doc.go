// Package api is the box's wire contract, in one place: the name, the
// arguments and the result of every MCP tool as Go types, the members
// every answer shares ([Outcome]), the stable error codes ([Code]) with
// the guidance each carries, the OAuth scopes, the vocabularies (keys,
// modifiers, buttons, platforms, event kinds, image formats, control
// commands) and the table of argument bounds and defaults ([BoundOf]).
//
// The tools' JSON Schemas are generated from these types ([InputSchema],
// [OutputSchema]): a field's json tag names it (a member without
// omitempty is required), its Go type gives its JSON type (a type with an
// Enum method lists its values), and [BoundOf] gives its range, length and
// default. The argument checks read the same table, so a number is stated
// once. An argument's desc tag is its short description in the input
// schema; its doc tag (or desc) and a result member's describe them in
// the reference ([Members], docs/tools.md). tools/list stays within
// [ToolsListBudget], so the schemas say only what a caller needs.
//
// The box (appliance/mcp, appliance/control) and the Go SDK (sdk) use
// these types; the golden files in testdata pin the wire they produce,
// and the Python SDK's tests read the same files. It imports only the
// standard library.
package api
