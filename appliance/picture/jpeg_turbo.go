//go:build cgo && turbojpeg

package picture

/*
#cgo LDFLAGS: -lturbojpeg
#include <stdlib.h>
#include <turbojpeg.h>
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"unsafe"
)

// Encoder names the JPEG encoder this binary was built with (shown in
// benchmark logs).
const Encoder = "libjpeg-turbo"

// encodeJPEG encodes img with libjpeg-turbo (4:2:0, the given quality),
// several times faster than image/jpeg. Debian's libturbojpeg0-dev ships
// the static libturbojpeg.a, so a static binary keeps working.
func encodeJPEG(buf *bytes.Buffer, img image.Image, quality int) error {
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	}
	b := rgba.Bounds()
	if b.Empty() {
		return errors.New("empty image")
	}
	h := C.tjInitCompress()
	if h == nil {
		return errors.New("tjInitCompress failed")
	}
	defer C.tjDestroy(h)
	var out *C.uchar
	var size C.ulong
	pix := rgba.Pix[rgba.PixOffset(b.Min.X, b.Min.Y):]
	if C.tjCompress2(h, (*C.uchar)(unsafe.Pointer(&pix[0])), C.int(b.Dx()), C.int(rgba.Stride), C.int(b.Dy()),
		C.TJPF_RGBA, &out, &size, C.TJSAMP_420, C.int(quality), C.TJFLAG_FASTDCT) != 0 {
		return fmt.Errorf("%s", C.GoString(C.tjGetErrorStr2(h)))
	}
	defer C.tjFree(out)
	buf.Write(unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size)))
	return nil
}

// DecodeJPEG decodes a JPEG (a capture device's MJPEG frame) into an
// *image.RGBA with libjpeg-turbo: several times faster than image/jpeg,
// and the RGBA the scaler and the letterbox finder read fastest.
func DecodeJPEG(data []byte) (image.Image, error) {
	if len(data) == 0 {
		return nil, errors.New("picture: decode JPEG: no data")
	}
	h := C.tjInitDecompress()
	if h == nil {
		return nil, errors.New("picture: decode JPEG: tjInitDecompress failed")
	}
	defer C.tjDestroy(h)
	src := (*C.uchar)(unsafe.Pointer(&data[0]))
	var w, ht, sub, space C.int
	if C.tjDecompressHeader3(h, src, C.ulong(len(data)), &w, &ht, &sub, &space) != 0 {
		return nil, fmt.Errorf("picture: decode JPEG header: %s", C.GoString(C.tjGetErrorStr2(h)))
	}
	img := image.NewRGBA(image.Rect(0, 0, int(w), int(ht)))
	if C.tjDecompress2(h, src, C.ulong(len(data)), (*C.uchar)(unsafe.Pointer(&img.Pix[0])), w, C.int(img.Stride), ht,
		C.TJPF_RGBA, C.TJFLAG_FASTDCT) != 0 {
		return nil, fmt.Errorf("picture: decode JPEG: %s", C.GoString(C.tjGetErrorStr2(h)))
	}
	return img, nil
}
