package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestV4L2Layout holds the encoder's structure offsets, sizes and ioctl
// numbers to the kernel's own headers: a C program built with the
// machine's compiler against linux/videodev2.h (Debian's linux-libc-dev)
// prints them. It needs a C compiler, which the box's cgo build needs
// too; CI fails without one.
func TestV4L2Layout(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no C compiler: %v", err)
		}
		t.Skipf("no C compiler to read linux/videodev2.h: %v", err)
	}
	want := []struct {
		c     string // a C expression
		goVal int
	}{
		{"sizeof(struct v4l2_format)", fmtSize},
		{"offsetof(struct v4l2_format, type)", fmtType},
		{"offsetof(struct v4l2_format, fmt)", fmtUnion},
		{"offsetof(struct v4l2_pix_format, width)", pixWidth},
		{"offsetof(struct v4l2_pix_format, height)", pixHeight},
		{"offsetof(struct v4l2_pix_format, pixelformat)", pixPixelformat},
		{"offsetof(struct v4l2_pix_format, field)", pixField},
		{"offsetof(struct v4l2_pix_format, bytesperline)", pixBytesperline},
		{"offsetof(struct v4l2_pix_format, sizeimage)", pixSizeimage},
		{"offsetof(struct v4l2_pix_format, colorspace)", pixColorspace},
		{"offsetof(struct v4l2_pix_format_mplane, width)", mpWidth},
		{"offsetof(struct v4l2_pix_format_mplane, height)", mpHeight},
		{"offsetof(struct v4l2_pix_format_mplane, pixelformat)", mpPixelformat},
		{"offsetof(struct v4l2_pix_format_mplane, field)", mpField},
		{"offsetof(struct v4l2_pix_format_mplane, colorspace)", mpColorspace},
		{"offsetof(struct v4l2_pix_format_mplane, plane_fmt)", mpPlaneFmt},
		{"offsetof(struct v4l2_pix_format_mplane, num_planes)", mpNumPlanes},
		{"sizeof(struct v4l2_plane_pix_format)", planeFmtSize},
		{"offsetof(struct v4l2_plane_pix_format, sizeimage)", planeFmtSizeimage},
		{"offsetof(struct v4l2_plane_pix_format, bytesperline)", planeFmtBytesperline},
		{"sizeof(struct v4l2_requestbuffers)", reqSize},
		{"offsetof(struct v4l2_requestbuffers, count)", reqCount},
		{"offsetof(struct v4l2_requestbuffers, type)", reqType},
		{"offsetof(struct v4l2_requestbuffers, memory)", reqMemory},
		{"sizeof(struct v4l2_buffer)", bufSize},
		{"offsetof(struct v4l2_buffer, index)", bufIndex},
		{"offsetof(struct v4l2_buffer, type)", bufType},
		{"offsetof(struct v4l2_buffer, bytesused)", bufBytesused},
		{"offsetof(struct v4l2_buffer, memory)", bufMemory},
		{"offsetof(struct v4l2_buffer, m)", bufM},
		{"offsetof(struct v4l2_buffer, length)", bufLength},
		{"sizeof(struct v4l2_plane)", planeSize},
		{"offsetof(struct v4l2_plane, bytesused)", planeBytesused},
		{"offsetof(struct v4l2_plane, length)", planeLength},
		{"offsetof(struct v4l2_plane, m)", planeM},
		{"offsetof(struct v4l2_plane, data_offset)", planeDataOffset},
		{"sizeof(struct v4l2_control)", ctrlSize},
		{"offsetof(struct v4l2_control, id)", ctrlID},
		{"offsetof(struct v4l2_control, value)", ctrlValue},
		{"VIDIOC_S_FMT", vidiocSFmt},
		{"VIDIOC_S_CTRL", vidiocSCtrl},
		{"VIDIOC_REQBUFS", vidiocReqbufs},
		{"VIDIOC_QUERYBUF", vidiocQuerybuf},
		{"VIDIOC_QBUF", vidiocQbuf},
		{"VIDIOC_DQBUF", vidiocDqbuf},
		{"VIDIOC_STREAMON", vidiocStreamon},
		{"VIDIOC_STREAMOFF", vidiocStreamoff},
		{"V4L2_CID_JPEG_COMPRESSION_QUALITY", cidJPEGQuality},
		{"V4L2_COLORSPACE_JPEG", colorspaceJPEG},
		{"V4L2_BUF_TYPE_VIDEO_OUTPUT", bufTypeVideoOutput},
		{"V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE", bufTypeVideoCaptureMPlane},
		{"V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE", bufTypeVideoOutputMPlane},
		{"V4L2_MEMORY_MMAP", memoryMmap},
		{"V4L2_PIX_FMT_JPEG", int(JPEG)},
		{"V4L2_PIX_FMT_RGBA32", int(RGBA32)},
		{"V4L2_PIX_FMT_BGR32", int(BGR32)},
		{"V4L2_PIX_FMT_RGB24", int(RGB24)},
		{"V4L2_PIX_FMT_YUV420", int(YUV420)},
	}
	var src strings.Builder
	src.WriteString("#include <stddef.h>\n#include <stdio.h>\n#include <linux/videodev2.h>\nint main(void) {\n")
	for _, w := range want {
		fmt.Fprintf(&src, "\tprintf(\"%%lu\\n\", (unsigned long)(%s));\n", w.c)
	}
	src.WriteString("\treturn 0;\n}\n")
	dir := t.TempDir()
	c, bin := filepath.Join(dir, "layout.c"), filepath.Join(dir, "layout")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-o", bin, c).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("layout: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for _, w := range want {
		if !sc.Scan() {
			t.Fatalf("layout printed too few lines")
		}
		got, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got != uint64(w.goVal) {
			t.Errorf("%s = %d (%#x) in the kernel's headers, %d (%#x) here", w.c, got, got, w.goVal, w.goVal)
		}
	}
}
