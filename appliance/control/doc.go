// Package control holds the rules every phone input obeys, whoever sends
// it: the per-client rate window, the control lease (one holder, lapsing
// after 90 s without a control call), pause and resume, the input queue,
// each client's own latest frame (touches must name it), the operation
// journal (each operation id runs at most once, replays return the stored
// answer, also across a restart) and the event log that openlolo_watch
// reads.
//
// # Verbs
//
// Each tool is a verb of [Service] ([Service.Tap], [Service.Swipe],
// [Service.TypeText], [Service.Key], [Service.Button], [Service.LaunchApp],
// [Service.OpenURL], [Service.Screenshot], ...): it takes a [Client] and
// the tool's argument type from package api, applies the rules, and
// returns a [Reply] carrying the typed [Answer] (and the screenshot taken,
// which the caller encodes with [Service.Picture]: pictures reach the
// entries only through control, encoded once per frame by package
// picture; the box page's still picture and live view take theirs from
// [Service.Screen]). Mutating verbs run through [Do], which holds
// the lease, pause, queue, frame and journal rules; adding a tool that
// touches the phone is a verb built on Do, plus one line in Invoke's
// table (invoke.go). Launching apps and opening URLs use what the phone
// does natively, else phone's keyboard recipes.
//
// # One entry
//
// Every tool call enters through [Service.Invoke]: the tool, the caller
// and the typed arguments in, the verb's [Reply] out, and the call
// recorded for the box page's Activity. The mcp package decodes a call's
// arguments, invokes and renders the answer; the box page's live view
// invokes as the owner ([Owner]), a client of its own, whose touches name
// the owner's own latest frame, the picture the live view shows
// ([Service.Screen], [Service.OwnerFrame]).
//
// It knows nothing about HTTP or MCP; the box page calls Pause, Resume,
// Lease and Recent through an adapter. Time comes from
// Config.Now; the tests run in testing/synctest bubbles.
package control
