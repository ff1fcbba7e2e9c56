package capture

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The layouts of the V4L2 structures the encoder speaks (64-bit: arm64 and
// amd64), offsets in bytes. TestV4L2Layout checks each against the
// kernel's own headers (linux/videodev2.h) through the C compiler.
const (
	// struct v4l2_format: the type, then the fmt union.
	fmtSize  = 208
	fmtType  = 0
	fmtUnion = 8
	// struct v4l2_pix_format, in the union (single-planar queues).
	pixWidth        = 0
	pixHeight       = 4
	pixPixelformat  = 8
	pixField        = 12
	pixBytesperline = 16
	pixSizeimage    = 20
	pixColorspace   = 24
	// struct v4l2_pix_format_mplane, in the union (multi-planar queues).
	mpWidth       = 0
	mpHeight      = 4
	mpPixelformat = 8
	mpField       = 12
	mpColorspace  = 16
	mpPlaneFmt    = 20 // struct v4l2_plane_pix_format[8]
	mpNumPlanes   = 180
	// struct v4l2_plane_pix_format.
	planeFmtSize         = 20
	planeFmtSizeimage    = 0
	planeFmtBytesperline = 4
	// struct v4l2_requestbuffers.
	reqSize   = 20
	reqCount  = 0
	reqType   = 4
	reqMemory = 8
	// struct v4l2_buffer.
	bufSize      = 88
	bufIndex     = 0
	bufType      = 4
	bufBytesused = 8
	bufMemory    = 60
	bufM         = 64 // offset (single-planar) or the planes pointer
	bufLength    = 72 // bytes (single-planar) or planes (multi-planar)
	// struct v4l2_plane.
	planeSize       = 64
	planeBytesused  = 0
	planeLength     = 4
	planeM          = 8 // mem_offset
	planeDataOffset = 16
	// struct v4l2_control.
	ctrlSize  = 8
	ctrlID    = 0
	ctrlValue = 4
)

// More ioctls and constants for memory-to-memory encoding.
const (
	vidiocSCtrl = 0xc008561c

	// cidJPEGQuality is V4L2_CID_JPEG_COMPRESSION_QUALITY.
	cidJPEGQuality = 0x009d0903
	// colorspaceJPEG is V4L2_COLORSPACE_JPEG: full-range BT.601, the
	// YCbCr of a JPEG file and of image/color.
	colorspaceJPEG = 7
)

// m2mTimeout bounds one picture's round trip through the encoder: a
// Pi's encoder takes a few milliseconds; one that takes this long is
// stuck, and the picture is encoded in software instead.
const m2mTimeout = 2 * time.Second

// node is a memory-to-memory device as the encoder drives it: the
// kernel's through a file descriptor (fdNode), or the test's fake.
type node interface {
	// ioctl issues req with arg. planes, when not nil, is the
	// v4l2_plane array a multi-planar buffer's m.planes points at.
	ioctl(req uintptr, arg, planes []byte) error
	// mmap maps length bytes of the buffer at offset.
	mmap(offset int64, length int) ([]byte, error)
	munmap(b []byte) error
	// wait blocks until events (unix.POLLIN, POLLOUT) are ready or
	// timeout passes; it reports whether they are.
	wait(events int16, timeout time.Duration) (bool, error)
	close() error
}

// fdNode is a video node opened by the encoder.
type fdNode struct{ fd int }

func (n fdNode) ioctl(req uintptr, arg, planes []byte) error {
	if planes == nil {
		return ioctl(n.fd, req, arg)
	}
	// The kernel reads the planes through the pointer in arg: pin them
	// for the call.
	var pin runtime.Pinner
	pin.Pin(&planes[0])
	defer pin.Unpin()
	le.PutUint64(arg[bufM:], uint64(uintptr(unsafe.Pointer(&planes[0]))))
	return ioctl(n.fd, req, arg)
}

func (n fdNode) mmap(offset int64, length int) ([]byte, error) {
	return unix.Mmap(n.fd, offset, length, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func (n fdNode) munmap(b []byte) error { return unix.Munmap(b) }

func (n fdNode) wait(events int16, timeout time.Duration) (bool, error) {
	pfd := []unix.PollFd{{Fd: int32(n.fd), Events: events}}
	for {
		k, err := unix.Poll(pfd, int(timeout/time.Millisecond))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("poll: %w", err)
		}
		if k > 0 && pfd[0].Revents&events == 0 && pfd[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return false, fmt.Errorf("poll: device error (revents %#x)", pfd[0].Revents)
		}
		return k > 0, nil
	}
}

func (n fdNode) close() error { return unix.Close(n.fd) }

// JPEGEncoder encodes pictures to JPEG on a hardware encoder (a V4L2
// memory-to-memory device that [FindEncoder] found): the box's pictures
// cost the CPU only their conversion to the encoder's input format.
// It is safe for concurrent use; pictures go through one at a time.
type JPEGEncoder struct {
	enc     Encoder
	timeout time.Duration // m2mTimeout; shorter in tests

	mu      sync.Mutex
	n       node
	w, h    int // the size the queues are set up for; 0 before the first
	stride  int // the input's bytes per line, as the driver set it
	inSize  int // the input plane's bytes
	quality int // the quality set; 0 before the first
	in, out []byte
}

// OpenJPEGEncoder opens e's device. Pictures go through it with
// EncodeJPEG; Close releases it.
func OpenJPEGEncoder(e Encoder) (*JPEGEncoder, error) {
	fd, err := unix.Open(e.Path, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("capture: hardware JPEG encoder: %w", err)
	}
	return &JPEGEncoder{enc: e, n: fdNode{fd}, timeout: m2mTimeout}, nil
}

// Encoder is the device the encoder drives.
func (j *JPEGEncoder) Encoder() Encoder { return j.enc }

// Close stops the device's queues and closes it.
func (j *JPEGEncoder) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n == nil {
		return nil
	}
	j.teardown()
	err := j.n.close()
	j.n = nil
	return err
}

// ErrEncoderClosed: EncodeJPEG after Close.
var ErrEncoderClosed = errors.New("capture: the hardware JPEG encoder is closed")

// EncodeJPEG encodes img at quality (1..100) on the device and returns
// the JPEG file's bytes. The device's queues are set up for img's size at
// the first picture and again whenever the size changes. Its errors
// name the device and what it refused; the caller encodes in software
// then.
func (j *JPEGEncoder) EncodeJPEG(img *image.RGBA, quality int) ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n == nil {
		return nil, ErrEncoderClosed
	}
	b, err := j.encode(img, quality)
	if err != nil {
		// A failed picture may leave buffers queued: set up afresh next
		// time.
		j.teardown()
		return nil, fmt.Errorf("capture: hardware JPEG encoder %s (%s): %w", j.enc.Path, j.enc.Card, err)
	}
	return b, nil
}

func (j *JPEGEncoder) types() (in, out uint32) {
	if j.enc.MPlane {
		return bufTypeVideoOutputMPlane, bufTypeVideoCaptureMPlane
	}
	return bufTypeVideoOutput, bufTypeVideoCapture
}

func (j *JPEGEncoder) encode(img *image.RGBA, quality int) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w != j.w || h != j.h {
		j.teardown()
		if err := j.setup(w, h); err != nil {
			return nil, err
		}
	}
	if quality != j.quality {
		c := make([]byte, ctrlSize)
		le.PutUint32(c[ctrlID:], cidJPEGQuality)
		le.PutUint32(c[ctrlValue:], uint32(quality))
		// A driver without the control encodes at its own quality.
		if err := j.n.ioctl(vidiocSCtrl, c, nil); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOTTY) {
			return nil, fmt.Errorf("S_CTRL quality %d: %w", quality, err)
		}
		j.quality = quality
	}
	fill(j.in[:j.inSize], img, j.enc.Input, j.stride)
	inT, outT := j.types()
	if err := j.queue(inT, j.inSize); err != nil {
		return nil, fmt.Errorf("QBUF picture: %w", err)
	}
	if err := j.queue(outT, 0); err != nil {
		return nil, fmt.Errorf("QBUF JPEG: %w", err)
	}
	used, off, err := j.dequeue(outT, unix.POLLIN)
	if err != nil {
		return nil, fmt.Errorf("DQBUF JPEG: %w", err)
	}
	if _, _, err := j.dequeue(inT, unix.POLLOUT); err != nil {
		return nil, fmt.Errorf("DQBUF picture: %w", err)
	}
	if used <= off || used > len(j.out) {
		return nil, fmt.Errorf("the JPEG buffer says %d bytes (from %d) of %d", used, off, len(j.out))
	}
	return append([]byte(nil), j.out[off:used]...), nil
}

// setup sets both queues' formats for w×h, asks for one buffer on each,
// maps them and starts streaming.
func (j *JPEGEncoder) setup(w, h int) error {
	inT, outT := j.types()
	stride, size, err := j.setFormat(inT, j.enc.Input, w, h)
	if err != nil {
		return fmt.Errorf("S_FMT picture %s %dx%d: %w", j.enc.Input, w, h, err)
	}
	if stride < minStride(j.enc.Input, w) || size < inputSize(j.enc.Input, stride, h) {
		return fmt.Errorf("S_FMT picture %s %dx%d: the driver set %d bytes a line, %d in all", j.enc.Input, w, h, stride, size)
	}
	if _, _, err := j.setFormat(outT, j.enc.Output, w, h); err != nil {
		return fmt.Errorf("S_FMT JPEG %dx%d: %w", w, h, err)
	}
	if j.in, err = j.buffer(inT); err != nil {
		return fmt.Errorf("picture buffer: %w", err)
	}
	if j.out, err = j.buffer(outT); err != nil {
		return fmt.Errorf("JPEG buffer: %w", err)
	}
	if len(j.in) < size {
		return fmt.Errorf("picture buffer: %d bytes, the format needs %d", len(j.in), size)
	}
	for _, t := range []uint32{inT, outT} {
		a := make([]byte, 4)
		le.PutUint32(a, t)
		if err := j.n.ioctl(vidiocStreamon, a, nil); err != nil {
			return fmt.Errorf("STREAMON: %w", err)
		}
	}
	j.w, j.h, j.stride, j.inSize = w, h, stride, size
	return nil
}

// setFormat sets queue typ's format and returns the first plane's bytes
// per line and size as the driver set them. A driver that changes the
// format or the size is refused: the JPEG would not be the picture asked
// for.
func (j *JPEGEncoder) setFormat(typ uint32, f FourCC, w, h int) (stride, size int, err error) {
	b := make([]byte, fmtSize)
	le.PutUint32(b[fmtType:], typ)
	u := b[fmtUnion:]
	if j.enc.MPlane {
		le.PutUint32(u[mpWidth:], uint32(w))
		le.PutUint32(u[mpHeight:], uint32(h))
		le.PutUint32(u[mpPixelformat:], uint32(f))
		le.PutUint32(u[mpField:], fieldNone)
		le.PutUint32(u[mpColorspace:], colorspaceJPEG)
		u[mpNumPlanes] = 1
	} else {
		le.PutUint32(u[pixWidth:], uint32(w))
		le.PutUint32(u[pixHeight:], uint32(h))
		le.PutUint32(u[pixPixelformat:], uint32(f))
		le.PutUint32(u[pixField:], fieldNone)
		le.PutUint32(u[pixColorspace:], colorspaceJPEG)
	}
	if err := j.n.ioctl(vidiocSFmt, b, nil); err != nil {
		return 0, 0, err
	}
	var gw, gh int
	var gf FourCC
	if j.enc.MPlane {
		gw, gh, gf = int(le.Uint32(u[mpWidth:])), int(le.Uint32(u[mpHeight:])), FourCC(le.Uint32(u[mpPixelformat:]))
		p := u[mpPlaneFmt:]
		stride, size = int(le.Uint32(p[planeFmtBytesperline:])), int(le.Uint32(p[planeFmtSizeimage:]))
	} else {
		gw, gh, gf = int(le.Uint32(u[pixWidth:])), int(le.Uint32(u[pixHeight:])), FourCC(le.Uint32(u[pixPixelformat:]))
		stride, size = int(le.Uint32(u[pixBytesperline:])), int(le.Uint32(u[pixSizeimage:]))
	}
	if gf != f || gw != w || gh != h {
		return 0, 0, fmt.Errorf("the driver set %s %dx%d", gf, gw, gh)
	}
	return stride, size, nil
}

// buffer asks queue typ for one mapped buffer and maps it.
func (j *JPEGEncoder) buffer(typ uint32) ([]byte, error) {
	r := make([]byte, reqSize)
	le.PutUint32(r[reqCount:], 1)
	le.PutUint32(r[reqType:], typ)
	le.PutUint32(r[reqMemory:], memoryMmap)
	if err := j.n.ioctl(vidiocReqbufs, r, nil); err != nil {
		return nil, fmt.Errorf("REQBUFS: %w", err)
	}
	if le.Uint32(r[reqCount:]) == 0 {
		return nil, errors.New("REQBUFS: the driver gave no buffer")
	}
	b, planes := j.bufferArg(typ)
	if err := j.n.ioctl(vidiocQuerybuf, b, planes); err != nil {
		return nil, fmt.Errorf("QUERYBUF: %w", err)
	}
	off, length := int64(le.Uint32(b[bufM:])), int(le.Uint32(b[bufLength:]))
	if planes != nil {
		off, length = int64(le.Uint32(planes[planeM:])), int(le.Uint32(planes[planeLength:]))
	}
	m, err := j.n.mmap(off, length)
	if err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	return m, nil
}

// bufferArg is a struct v4l2_buffer for buffer 0 of queue typ, with its
// one plane when the queues are multi-planar.
func (j *JPEGEncoder) bufferArg(typ uint32) (b, planes []byte) {
	b = make([]byte, bufSize)
	le.PutUint32(b[bufIndex:], 0)
	le.PutUint32(b[bufType:], typ)
	le.PutUint32(b[bufMemory:], memoryMmap)
	if j.enc.MPlane {
		planes = make([]byte, planeSize)
		le.PutUint32(b[bufLength:], 1)
	}
	return b, planes
}

// queue queues buffer 0 of typ with used bytes in it.
func (j *JPEGEncoder) queue(typ uint32, used int) error {
	b, planes := j.bufferArg(typ)
	if planes != nil {
		m := j.out
		if inT, _ := j.types(); typ == inT {
			m = j.in
		}
		le.PutUint32(planes[planeBytesused:], uint32(used))
		le.PutUint32(planes[planeLength:], uint32(len(m)))
	} else {
		le.PutUint32(b[bufBytesused:], uint32(used))
	}
	return j.n.ioctl(vidiocQbuf, b, planes)
}

// dequeue waits for buffer 0 of typ to come back and returns how many
// bytes it holds and where they start.
func (j *JPEGEncoder) dequeue(typ uint32, ready int16) (used, off int, err error) {
	deadline := time.Now().Add(j.timeout)
	for {
		b, planes := j.bufferArg(typ)
		err := j.n.ioctl(vidiocDqbuf, b, planes)
		if err == nil {
			if planes != nil {
				return int(le.Uint32(planes[planeBytesused:])), int(le.Uint32(planes[planeDataOffset:])), nil
			}
			return int(le.Uint32(b[bufBytesused:])), 0, nil
		}
		if !errors.Is(err, unix.EAGAIN) {
			return 0, 0, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return 0, 0, fmt.Errorf("no answer in %s", j.timeout)
		}
		if _, err := j.n.wait(ready, left); err != nil {
			return 0, 0, err
		}
	}
}

// teardown stops streaming and frees the buffers, so the next picture sets
// the queues up again.
func (j *JPEGEncoder) teardown() {
	if j.w == 0 && j.in == nil && j.out == nil {
		return
	}
	inT, outT := j.types()
	for _, t := range []uint32{inT, outT} {
		a := make([]byte, 4)
		le.PutUint32(a, t)
		j.n.ioctl(vidiocStreamoff, a, nil) // not streaming yet is fine
	}
	for _, m := range [][]byte{j.in, j.out} {
		if m != nil {
			j.n.munmap(m)
		}
	}
	for _, t := range []uint32{inT, outT} {
		r := make([]byte, reqSize)
		le.PutUint32(r[reqType:], t)
		le.PutUint32(r[reqMemory:], memoryMmap)
		j.n.ioctl(vidiocReqbufs, r, nil) // count 0: free them
	}
	j.in, j.out, j.w, j.h, j.stride, j.inSize = nil, nil, 0, 0, 0, 0
}

// minStride is the fewest bytes a line of f takes at width w (the first
// plane's, for YUV420).
func minStride(f FourCC, w int) int {
	switch f {
	case RGBA32, BGR32:
		return 4 * w
	case RGB24:
		return 3 * w
	default: // YUV420
		return w
	}
}

// inputSize is the bytes a picture of f takes with stride bytes a line
// (YUV420: the Y plane, then U and V at half the stride and height).
func inputSize(f FourCC, stride, h int) int {
	if f == YUV420 {
		return stride*h + 2*(stride/2)*((h+1)/2)
	}
	return stride * h
}

// fill writes img into dst as format f with stride bytes a line.
func fill(dst []byte, img *image.RGBA, f FourCC, stride int) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for y := range h {
		src := img.Pix[y*img.Stride : y*img.Stride+4*w]
		row := dst[y*stride:]
		switch f {
		case RGBA32:
			copy(row, src)
		case BGR32:
			for x := range w {
				s := src[4*x : 4*x+4]
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = s[2], s[1], s[0], s[3]
			}
		case RGB24:
			for x := range w {
				s := src[4*x : 4*x+4]
				row[3*x], row[3*x+1], row[3*x+2] = s[0], s[1], s[2]
			}
		}
	}
	if f != YUV420 {
		return
	}
	cs, ch := stride/2, (h+1)/2
	u := dst[stride*h:]
	v := u[cs*ch:]
	for y := range h {
		for x := range w {
			s := img.Pix[y*img.Stride+4*x:]
			yy, cb, cr := color.RGBToYCbCr(s[0], s[1], s[2])
			dst[y*stride+x] = yy
			if x%2 == 0 && y%2 == 0 {
				u[(y/2)*cs+x/2], v[(y/2)*cs+x/2] = cb, cr
			}
		}
	}
}
