// Package entry holds the box's doors to the network: the LAN HTTPS server
// ([Listen] with a TLS config), the plain-HTTP server that only redirects to
// HTTPS ([Redirect]), and the middleware every entry puts in front of the
// box's handlers: [HostCheck] (DNS rebinding protection) and
// [SecurityHeaders].
//
// [AdvertiseMDNS] announces the LAN entry as _openlolo._tcp (TXT v, fp,
// spki, path, name) and _https._tcp with <name>.local, re-announces when
// addresses change and says goodbye on shutdown.
//
// # mDNS responder
//
// The responder (RFC 6762) answers on the mDNS groups of the interfaces
// it advertises on. It answers a query sent to the group, or one whose
// source is on the link it came in on (a link-local address or one in a
// subnet of that interface); a unicast reply (legacy resolver, QU
// question, query sent to the box's address) goes only to an on-link
// source. A legacy resolver (source port not 5353) gets its ID and
// questions back, no cache-flush bit and TTLs of 10 s (§6.7). A reply
// holds each record once, reads at most 32 questions of a query and fits
// 1,400 bytes. Shutdown stops the readers and the announcer before the
// goodbyes (TTL 0) go out.
//
// It does not probe for its names nor detect conflicts (§8.1, §9): the
// box's name carries its own random suffix. It does not suppress known
// answers (§7.1), delay multicast replies, nor limit a record to one
// multicast a second per interface (§6).
//
// [Tailnet] is the remote entry: a tsnet node named after the box that
// serves the box's routes over HTTPS with the tailnet certificate (a
// [CertSource], so tests use a local CA), puts the sender's WhoIs
// [Visitor] in each request's context, optionally publishes the
// [FunnelAllowed] paths through Funnel, and reports in
// [Tailnet.Status] why it is not running. It never holds up the LAN entry.
// The offline tests of it run an in-process coordination server and DERP
// in a private network namespace: go test -tags tailnet -run Tailnet.
//
// Each server binds its address when it is made, so tests pass
// "127.0.0.1:0" and read the port back with [Server.Addr].
//
// # Connection limits
//
// Every listener ([Listen], and the tailnet's) counts its connections
// ([Limits]: 256 open, 64 without a first request yet, i.e. TLS
// handshakes in flight and silent sockets). It never stops accepting: a
// connection beyond a cap closes an older one, the longest idle keep-alive
// connection first, then the oldest still in its handshake, then the
// oldest in a request. The owner pages call [Trust] once a request's
// session is checked; a trusted connection (at most 32) is shed only for
// another trusted one. So a flood of idle or slow clients costs at most a
// few MiB, the owner's open page and live view keep their connections, and
// the owner's next page always gets in (the flood's older sockets make
// room for it).
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
