// Package integration holds the end-to-end tests that cross rooms: a real
// box (appliance.Box on the simulated phone, real HTTPS on 127.0.0.1:0,
// the real SQLite file) driven by the real clients — the Go SDK, the built
// openlolo binary, an MCP client over stdio — with an owner approving on the
// real box page. It has no non-test code.
package integration
