// Package xpc encodes and decodes the XPC objects and message wrappers
// that RemoteXPC services on iOS 17+ exchange.
//
// A [Message] is a wrapper (magic 0x29B00B92, flags, message id) around an
// optional root [Dict]. Values are Go types with one XPC type each:
//
//	nil          null
//	bool         bool
//	int64        int64 (signedness is semantic: daemons reject int for uint)
//	uint64       uint64
//	float64      double
//	time.Time    date (nanoseconds since the Unix epoch)
//	[]byte       data
//	string       string
//	UUID         uuid
//	[]any        array
//	Dict         dictionary (keys keep their order)
//	FileTransfer file_transfer
//
// All integers are little-endian; data, strings and keys are padded to
// four bytes. Decoding never trusts a length: every count and size is
// checked against the bytes that are left, and nesting is bounded.
package xpc
