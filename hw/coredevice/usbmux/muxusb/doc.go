// Package muxusb speaks usbmux over USB itself: the protocol usbmuxd
// speaks to an iPhone over the bulk endpoints of its usbmux interface
// (class ff, subclass fe, protocol 02), so the box needs no daemon beside
// it.
//
// A packet is a big-endian mux header and a body. Version 1 headers are
// 8 bytes (protocol, total length); version 2 adds the magic 0xfeedface
// and 16-bit transmit and receive sequence numbers (16 bytes). The host
// opens with a VERSION packet (v1 header) asking for 2.0; the device
// answers with the version it speaks, and a v2 host then sends SETUP
// (one byte, 0x07), which restarts the sequence numbers. CONTROL packets
// carry the device's log lines.
//
// Streams to device ports ride a cut-down TCP: a 20-byte TCP header with
// ports, sequence and acknowledgement numbers, flags and a window in
// units of 256 bytes, and no checksum. The host sends SYN from a port of
// its own; the device answers SYN|ACK (or RST: nobody listens there), the
// host ACKs. Data carries ACK; each side acknowledges bytes as its reader
// consumes them, and never has more than the peer's window unacknowledged.
// Either side ends a stream with RST.
//
// A packet goes out as one bulk transfer, followed by a zero-length
// packet when its length is a multiple of the endpoint's max packet size,
// so the device sees where it ends. Packets coming in may span several IN
// transfers.
//
// The transport is a Pipe (the two bulk endpoints), so the same code runs
// over usbdevfs on the box and over an in-memory pipe in tests. Mux is one
// device's session; Host keeps the attached devices and the pair records
// behind the usbmux.Mux interface the CoreDevice backend uses. Serve is
// the device's side, for fakes.
package muxusb
