// Package tls holds the box's LAN certificate and the pins clients use to
// trust it. Callers import it as boxtls:
//
//	import boxtls "github.com/openlolo/openlolo/tls"
//
// # The certificate
//
// [Load] makes an ECDSA P-256 key and a self-signed certificate on the first
// start (SANs: <name>.local, <name>, localhost and the box's IP addresses;
// ten years; random serial) and stores both in the state directory (the key
// with mode 0600, each file written to a temporary name, synced and renamed).
// Later starts reuse them, so the fingerprint never changes by itself;
// [Options].Rotate makes a new pair on purpose.
//
// # Pins
//
// A pin names one certificate. Three spellings are accepted by [ParsePin]:
// the leaf certificate's SHA-256 as hex, the same as colon-separated hex
// (what browsers show), and the SPKI pin "sha256//<base64>" that
// curl --pinnedpubkey takes. [ClientConfig] returns a *tls.Config that
// accepts exactly the pinned certificate: chain and hostname are not
// consulted, and any other certificate fails the handshake with a
// [*PinMismatchError] that names both fingerprints.
package tls
