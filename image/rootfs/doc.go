// Package rootfs holds no code: its tests run the card's shell scripts
// (buildroot/board/openlolo: the rootfs overlay and the stage-1 init, shared
// by the offline and the Buildroot builds) on the host with sh, for the
// parts that need no kernel: wifi.txt parsing, log rotation, the box id,
// the MBR arithmetic that grows the data partition, and the Buildroot
// post-image script with mkcard.sh on fake Buildroot outputs (no Buildroot
// build can run here). The QEMU boot test (image/boottest) covers the rest.
package rootfs
