package update

import (
	"context"
	"fmt"
	"io"
)

// Slot names a root partition of the card: A (partition 2) or B
// (partition 3).
type Slot string

// The two slots.
const (
	SlotA Slot = "A"
	SlotB Slot = "B"
)

// Other is the slot that is not s.
func (s Slot) Other() Slot {
	if s == SlotA {
		return SlotB
	}
	return SlotA
}

// Valid reports whether s is A or B.
func (s Slot) Valid() bool { return s == SlotA || s == SlotB }

// BootFile is one of a slot's boot files, its name relative to the slot's
// boot folder ("vmlinuz", "overlays/dwc2.dtbo", "cmdline.txt").
type BootFile struct {
	Name string
	Data []byte
}

// Slots is the card's two root slots and the choice of which one boots.
// [Card] is the SD card of the image; tests use a fake. Methods are called
// by one update at a time.
type Slots interface {
	// Booted returns the slot running now and the slot a plain boot takes
	// (they differ while a new version is on trial).
	Booted() (running, committed Slot, err error)
	// RootSize is the size in bytes of slot's partition.
	RootSize(slot Slot) (int64, error)
	// WriteRoot copies r to the start of slot's partition, syncs it, and
	// returns the bytes written. An error from r is returned as it is.
	WriteRoot(ctx context.Context, slot Slot, r io.Reader) (int64, error)
	// ReadRoot opens slot's partition for reading from its start.
	ReadRoot(slot Slot) (io.ReadCloser, error)
	// WriteBoot replaces slot's boot files with files. cmdline.txt is
	// written as given: the caller points it at the slot (see
	// [Card.Cmdline]).
	WriteBoot(slot Slot, files []BootFile) error
	// Cmdline turns a bundle's cmdline.txt into slot's (its root= made
	// this card's partition of slot).
	Cmdline(slot Slot, bundle []byte) ([]byte, error)
	// TryBoot arranges that the next boot, once, takes slot; a boot after
	// that takes the committed slot again.
	TryBoot(slot Slot) error
	// Commit makes slot the one every plain boot takes.
	Commit(slot Slot) error
	// Reboot restarts the box now (into the slot TryBoot armed).
	Reboot(ctx context.Context) error
}

func checkSlot(s Slot) error {
	if !s.Valid() {
		return fmt.Errorf("update: slot %q is neither A nor B", s)
	}
	return nil
}
