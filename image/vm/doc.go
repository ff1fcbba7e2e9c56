// Package vm boots a Debian arm64 kernel under QEMU for tests: it fetches
// the kernel and busybox from apt into a cache folder (at pinned versions,
// through a private apt configuration, when asked), builds a cpio
// initramfs holding busybox, the kernel modules a test needs (with their
// dependencies resolved from modules.dep) and any test files, boots it
// with qemu-system-aarch64 -M virt, and returns the serial console log.
// A small raw virtio disk carries files back out of the guest as a tar
// stream (the guest needs the modules virtio_mmio and virtio_blk for it).
//
// # Typical use
//
//	pins, err := vm.ReadPins("image/debian/packages.lock")
//	f := vm.Fetcher{Cache: cacheDir, Pins: pins,
//		Apt: vm.Apt{SourceList: "/abs/image/debian/sources.list", Dir: cacheDir + "/apt"}}
//	k, err := f.Kernel(ctx)   // the pinned linux-image-*-arm64, depmod'ed
//	bb, err := f.Busybox(ctx) // busybox-static:arm64
//	err = vm.BuildInitramfs(vm.Initramfs{
//		Kernel:  k,
//		Busybox: bb,
//		Modules: []string{"configfs", "dummy_hcd"},
//		Files:   map[string]string{"/bin/guest": hostPath},
//		Run:     "/bin/guest",
//	}, initrdPath)
//	res, err := vm.Run(ctx, vm.Config{Kernel: k.Image, Initrd: initrdPath, Disk: diskPath})
//
// The generated /init mounts proc, sysfs, devtmpfs, tmpfs (/tmp) and
// configfs, loads the modules in dependency order with insmod, runs the
// Run command, prints [DoneMarker] with the command's exit status and
// powers off. [Run] stops at that marker.
//
// # Host requirements
//
// qemu-system-aarch64 (Debian qemu-system-arm, with the ipxe-qemu it
// only recommends: -M virt adds a PCI network card whose option ROM that
// package brings), dpkg-deb, apt-get, depmod (kmod), and apt sources for
// arm64 (scripts/deps.sh installs all of it). A missing command or QEMU
// data file is reported with the package that brings it. A private apt
// configuration needs only Debian's archive keyring; the host's apt
// sources need arm64 added:
//
//	dpkg --add-architecture arm64 && apt-get update
//
// Nothing is installed on the host: packages are fetched with
// apt-get download and unpacked with dpkg-deb -x into the cache.
package vm
