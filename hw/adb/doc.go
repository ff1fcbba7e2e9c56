// Package adb speaks the Android Debug Bridge protocol directly to a
// phone's adbd, with no adb server beside the box: the 24-byte messages,
// RSA authentication with the box's own key, streams with flow control,
// and the shell (protocol v2) and exec services on top.
//
// # Messages
//
// Every message is a 24-byte little-endian header (command, two
// arguments, data length, data checksum, command ^ 0xffffffff) followed by
// the data. [ReadMessage] and [WriteMessage] code them; the checksum (a
// byte sum) is only required below [VersionSkipChecksum].
//
// # Connections
//
// [Client] runs the host side of the handshake on any byte transport
// (a TCP connection to a phone in `adb tcpip` mode, or the USB bulk
// endpoints of the ADB interface, class ff/42/01): CNXN, then AUTH with
// the box's [Key] (a signature, and if the phone does not know the key
// yet, the public key, which makes the phone ask its owner "Allow USB
// debugging?" showing [Key.Fingerprint]). [Conn.Open] opens a stream to a
// service; [Conn.Shell] and [Conn.Exec] run commands.
//
// [Server] is the device side of the same protocol, for fakes in tests
// (package adbtest): real adb clients connect to it.
//
// The protocol facts come from AOSP's adb/protocol.txt, adb.h and
// shell_protocol.h (see ../shared/research/android.md, A3).
package adb
