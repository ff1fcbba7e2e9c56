package update

import (
	"os"
	"syscall"
	"unsafe"
)

// blkflsbuf is BLKFLSBUF, _IO(0x12, 97): flush a block device's buffers.
const blkflsbuf = 0x1261

// dropCache drops the kernel's cached pages of a block device, so a read
// back comes from the card and not from memory (a no-op on files).
func dropCache(f *os.File) {
	syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), blkflsbuf, 0)
}

// restart syncs the filesystems and restarts the machine with arg
// ("0 tryboot" sets the Pi firmware's one-shot flag; the Raspberry Pi
// kernel hands the argument to the firmware).
func restart(arg string) error {
	syscall.Sync()
	if arg == "" {
		return os.NewSyscallError("reboot", syscall.Reboot(syscall.LINUX_REBOOT_CMD_RESTART))
	}
	p, err := syscall.BytePtrFromString(arg)
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall6(syscall.SYS_REBOOT, syscall.LINUX_REBOOT_MAGIC1, syscall.LINUX_REBOOT_MAGIC2,
		syscall.LINUX_REBOOT_CMD_RESTART2, uintptr(unsafe.Pointer(p)), 0, 0)
	if e != 0 {
		return os.NewSyscallError("reboot", e)
	}
	return nil
}
