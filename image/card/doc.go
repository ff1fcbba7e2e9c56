// Package card reads an openlolo SD-card image from the host without
// mounting it: the MBR (disk signature and partitions), files on the FAT
// boot partition (through mtools) and files on the ext4 data partition
// (through debugfs). The QEMU boot test uses it to take the setup code off
// the boot partition and to check the SQLite file on the data partition
// after a power cut, as someone holding the card would.
package card
