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
//
// # Button and LED
//
// [Config].Panel (a [panel.Panel]; serve adapts hw/gpio to it) is the
// box's button and status LED, also the caller's to close. While the box
// runs, a short press confirms a claim waiting on the box page for one;
// holding the button 10 s is a factory reset (see
// owner.Pages.FactoryReset: owner, sessions, clients, grants, tokens and
// the journal go, the certificate stays), after which the new setup code
// is printed on Out, logged and written to the setup-code file. The LED
// is recomputed every second and on phone and button events; the first
// that holds wins: fast blink when the store cannot be read, slow blink
// while unclaimed, fast blink when the phone is not ready, slow blink
// while a client's request waits for approval, else on. It is off before
// Run and after it.
package appliance
