// Package remotexpc carries XPC messages over HTTP/2 framing, as the
// RemoteXPC services of iOS 17+ (RSD, CoreDevice) speak it. It is HTTP/2
// frames only, not HTTP: HEADERS frames have empty header blocks, and two
// streams carry XPC messages back to back: stream 1 (root) for requests
// and stream 3 (reply) for replies.
//
// A client connection starts with the preface, SETTINGS and a connection
// WINDOW_UPDATE, then the XPC handshake in the order devicectl uses (the
// device checks it): an empty dictionary on stream 1, HEADERS for stream
// 3 before a flags-0x201 message on stream 1, and an INIT_HANDSHAKE
// message on stream 3.
//
// Services abort when a connection carries a second request that wants a
// reply, so callers open one connection per request.
package remotexpc
