// Package entry holds the box's doors to the network: the LAN HTTPS server
// ([Listen] with a TLS config), the plain-HTTP server that only redirects to
// HTTPS ([Redirect]), and the middleware every entry puts in front of the
// box's handlers: [HostCheck] (DNS rebinding protection) and
// [SecurityHeaders].
//
// Each server binds its address when it is made, so tests pass
// "127.0.0.1:0" and read the port back with [Server.Addr].
//
// # Host check
//
// A web page from another origin can make a browser send requests to the
// box by pointing its own DNS name at the box's address (DNS rebinding).
// Such requests carry the attacker's name in the Host header, so an entry
// answers only to the names in its certificate and to IP literals (a page
// can only be served under an IP literal if the user opened that address
// itself). When the box listens on loopback only (development), any Host is
// accepted.
package entry
