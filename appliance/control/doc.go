// Package control holds the rules every phone input obeys, whoever sends
// it: the per-client rate window, the control lease (one holder, lapsing
// after 90 s without a control call), pause and resume, the input queue,
// each client's own latest frame (touches must name it), the operation
// journal (each operation id runs at most once, replays return the stored
// answer, also across a restart) and the event log that openlolo_watch
// reads.
//
// It knows clients only as [Client] values and answers in the shape of
// docs/wire.md's Answers ([Answer], [Error]); it knows nothing about HTTP or MCP. The
// mcp package decodes tool arguments and calls a [Service]; the box page
// calls Pause, Resume, Lease and Recent through an adapter.
package control
