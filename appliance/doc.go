// Package appliance is the box: [Box] wires the state directory, the LAN
// certificate (package tls), the SQLite store and the phone to the box's
// HTTP services, and runs them behind the entries of package entry.
//
// # Lifecycle
//
// [New] prepares everything that can fail (state directory, certificate,
// database, listeners) so a misconfiguration is reported before anything
// is served; [Box.Run] prints where to find the box, serves until its
// context ends, then shuts down in order: the entries stop accepting and
// let in-flight requests finish (up to [Config].ShutdownTimeout), then the
// store closes. [Box.Close] releases a box that never ran.
//
// The phone belongs to the caller: the box uses it but does not close it.
package appliance
