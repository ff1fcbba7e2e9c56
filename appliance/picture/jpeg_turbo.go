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
