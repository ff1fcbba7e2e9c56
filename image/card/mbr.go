package card

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// SectorSize is the sector size an SD card's MBR counts in.
const SectorSize = 512

// Partition is one primary MBR partition.
type Partition struct {
	// Number is the partition number, 1 to 4 (PARTUUID suffix and the
	// kernel's pN name).
	Number int
	// Type is the MBR partition type byte (0x0C FAT32 LBA, 0x83 Linux).
	Type byte
	// Bootable is the active flag.
	Bootable bool
	// Start and Sectors are the first sector and the length, in sectors.
	Start, Sectors uint64
}

// Offset is the partition's first byte in the image.
func (p Partition) Offset() int64 { return int64(p.Start) * SectorSize }

// Size is the partition's length in bytes.
func (p Partition) Size() int64 { return int64(p.Sectors) * SectorSize }

// Table is a parsed MBR.
type Table struct {
	// Signature is the disk signature at byte 440; Linux names partitions
	// PARTUUID=<signature as 8 hex digits>-<2-digit number>.
	Signature uint32
	// Partitions holds the used entries in table order.
	Partitions []Partition
}

// PartUUID returns the PARTUUID Linux gives partition n of this disk.
func (t *Table) PartUUID(n int) string { return fmt.Sprintf("%08x-%02d", t.Signature, n) }

// Partition returns partition n (1-4), or an error naming what the table holds.
func (t *Table) Partition(n int) (Partition, error) {
	for _, p := range t.Partitions {
		if p.Number == n {
			return p, nil
		}
	}
	return Partition{}, fmt.Errorf("card: no partition %d (the table has %d)", n, len(t.Partitions))
}

// ErrNoMBR is returned for a sector 0 without the 0x55AA boot signature.
var ErrNoMBR = errors.New("card: sector 0 has no MBR boot signature (0x55AA); this is not a disk image")

// ParseMBR parses sector 0 of a disk. size is the disk's length in bytes;
// a partition that reaches past it is an error (a truncated image).
func ParseMBR(sector []byte, size int64) (*Table, error) {
	if len(sector) < SectorSize {
		return nil, fmt.Errorf("card: read MBR: got %d bytes, want %d; the image is truncated", len(sector), SectorSize)
	}
	if sector[510] != 0x55 || sector[511] != 0xAA {
		return nil, ErrNoMBR
	}
	t := &Table{Signature: binary.LittleEndian.Uint32(sector[440:444])}
	for i := 0; i < 4; i++ {
		e := sector[446+16*i : 446+16*(i+1)]
		p := Partition{
			Number:   i + 1,
			Type:     e[4],
			Bootable: e[0] == 0x80,
			Start:    uint64(binary.LittleEndian.Uint32(e[8:12])),
			Sectors:  uint64(binary.LittleEndian.Uint32(e[12:16])),
		}
		if p.Type == 0 && p.Sectors == 0 {
			continue
		}
		if p.Type == 0xEE {
			return nil, fmt.Errorf("card: partition %d is a GPT protective entry; openlolo cards use an MBR table", p.Number)
		}
		if e[0] != 0 && e[0] != 0x80 {
			return nil, fmt.Errorf("card: partition %d: boot flag 0x%02x is neither 0x00 nor 0x80; the table is damaged", p.Number, e[0])
		}
		if p.Start == 0 || p.Sectors == 0 {
			return nil, fmt.Errorf("card: partition %d: start %d, %d sectors; the table is damaged", p.Number, p.Start, p.Sectors)
		}
		if end := int64(p.Start+p.Sectors) * SectorSize; end > size {
			return nil, fmt.Errorf("card: partition %d ends at byte %d, past the image's %d bytes; the image is truncated", p.Number, end, size)
		}
		t.Partitions = append(t.Partitions, p)
	}
	if len(t.Partitions) == 0 {
		return nil, errors.New("card: the MBR has no partitions")
	}
	return t, nil
}

// ReadTable parses the MBR of the image file at path.
func ReadTable(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("card: open image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("card: stat image: %w", err)
	}
	buf := make([]byte, SectorSize)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("card: read MBR of %s: %w", path, err)
	}
	t, err := ParseMBR(buf[:n], st.Size())
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return t, nil
}
