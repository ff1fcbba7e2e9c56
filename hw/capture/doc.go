// Package capture reads the phone's screen from a V4L2 capture device (an
// HDMI-to-USB UVC dongle or a CSI HDMI bridge) with golang.org/x/sys/unix
// ioctls and no cgo.
//
// [Open] negotiates a format (MJPEG preferred, then YUYV, then UYVY as CSI
// HDMI bridges deliver it, else an error naming what the device offers), maps 4 buffers and starts a
// reader goroutine that keeps only the newest frame. [Device.Latest]
// returns that frame; [Decode] turns its bytes into an image (MJPEG with
// image/jpeg, YUYV and UYVY converted by hand). [ContentRect] finds the phone's
// picture inside the capture (black letterbox bars removed) and
// [Tracker] gives it a geometry epoch that changes when the picture's
// shape does (rotation, resolution).
//
// # Kernel pitfalls
//
// The device is opened with a raw unix.Open fd: an *os.File registers the
// fd with Go's netpoller, whose EPOLL_CTL_ADD calls the driver's poll and
// puts vb2 drivers (vivid) into read() mode, after which S_FMT and
// REQBUFS fail with EBUSY. Every ioctl and poll retries on EINTR, which
// Go's preemption signal causes. When the device disappears (dongle
// unplugged) the reader closes it and reopens it once it is back.
package capture
