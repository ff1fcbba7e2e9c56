package coredevice

// StreamPackets is the live media stream's packet count (0 without one),
// so tests know when the stream's video has all arrived.
func StreamPackets(b *Backend) uint64 {
	in, err := b.currentInput()
	if err != nil {
		return 0
	}
	return in.streamPackets()
}
