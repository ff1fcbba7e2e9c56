package picture

import (
	"encoding/binary"
	"image"
	"image/draw"
	"runtime"
	"sync"
)

// Downscale returns src scaled to w×h (smaller than src, or its size).
// See [Scale].
func Downscale(src image.Image, w, h int) *image.RGBA {
	return Scale(image.NewRGBA(image.Rect(0, 0, w, h)), src)
}

// Scale writes src, scaled to dst's size, into every pixel of dst (so dst
// may hold an earlier picture) and returns dst. It averages integer k×k
// blocks first, so a large reduction keeps text grey rather than
// aliasing it into stripes, then samples bilinearly in 8-bit fixed point
// straight on the pixel bytes. An *image.RGBA (what the sim and the
// capture give) is read in place, a sub-image too; another image type is
// converted to RGBA first.
func Scale(dst *image.RGBA, src image.Image) *image.RGBA {
	scale(dst, src, nil)
	return dst
}

// scale is Scale with the block averages in reduced's pixels when they
// are large enough (a new picture otherwise); it returns the picture that
// held them (nil when there were none), for the caller to reuse.
func scale(dst *image.RGBA, src image.Image, reduced *image.RGBA) *image.RGBA {
	rgba, out := asRGBA(src), atOrigin(dst)
	var used *image.RGBA
	if k := min(rgba.Rect.Dx()/out.Rect.Dx(), rgba.Rect.Dy()/out.Rect.Dy(), maxBox); k >= 2 {
		if rgba.Rect.Dx()/k == out.Rect.Dx() && rgba.Rect.Dy()/k == out.Rect.Dy() && out.Stride == 4*out.Rect.Dx() {
			// A whole-block reduction (Box.Blocks): the averages are the
			// picture.
			boxReduceInto(out, rgba, k)
			return nil
		}
		rgba = boxReduceInto(reduced, rgba, k)
		used = rgba
	}
	bilinearInto(out, rgba)
	return used
}

// asRGBA is img as an *image.RGBA whose bounds start at the origin: the
// same pixels when img is one (a sub-image's rows are re-addressed, not
// copied), a converted copy otherwise.
func asRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	src, ok := img.(*image.RGBA)
	if !ok {
		src = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(src, src.Rect, img, b.Min, draw.Src)
		return src
	}
	return atOrigin(src)
}

// atOrigin is p with its bounds moved to the origin, over the same pixels.
func atOrigin(p *image.RGBA) *image.RGBA {
	if p.Rect.Min == (image.Point{}) {
		return p
	}
	return &image.RGBA{Pix: p.Pix[p.PixOffset(p.Rect.Min.X, p.Rect.Min.Y):], Stride: p.Stride, Rect: image.Rect(0, 0, p.Rect.Dx(), p.Rect.Dy())}
}

// maxBox is the largest block boxReduce averages: a 16-bit lane of
// addBlocksPacked adds up to maxBox/2 bytes.
const maxBox = 512

// boxReduce averages each k×k block of src (at the origin) into one
// pixel, k at most maxBox.
func boxReduce(src *image.RGBA, k int) *image.RGBA { return boxReduceInto(nil, src, k) }

// boxReduceInto is boxReduce into buf's pixels when they are large
// enough (every byte is written), a new picture otherwise.
func boxReduceInto(buf, src *image.RGBA, k int) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx()/k, b.Dy()/k
	dst := reuseRGBA(buf, w, h)
	switch k {
	case 2:
		reduce2(dst, src)
		return dst
	case 3:
		reduce3(dst, src)
		return dst
	}
	sums := make([]uint32, 4*w)
	n := uint32(k * k)
	add := addBlocksPacked
	if k < 4 {
		add = addBlocks // a block row of 2 or 3 pixels: unpacking lanes costs more than it saves
	}
	for y := range h {
		clear(sums)
		for dy := range k {
			add(sums, src.Pix[(y*k+dy)*src.Stride:(y*k+dy)*src.Stride+4*w*k], k)
		}
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for i, v := range sums {
			out[i] = uint8((v + n/2) / n)
		}
	}
	return dst
}

// reduce2 is boxReduce for k = 2 (the live view's reduction of a phone's
// screen), into dst, whose bounds give the size: each 2×2 block's four
// pixels are summed and rounded two channels per operation (SWAR, as
// bilinear) straight from two source rows, without boxReduce's sums
// and divisions, which cost three times as much.
func reduce2(dst, src *image.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	for y := range h {
		r0 := src.Pix[2*y*src.Stride:][:8*w]
		r1 := src.Pix[(2*y+1)*src.Stride:][:8*w]
		out := dst.Pix[y*dst.Stride:][:4*w]
		for x := range w {
			a := binary.LittleEndian.Uint64(r0[8*x:])
			c := binary.LittleEndian.Uint64(r1[8*x:])
			// Lanes of 16 bits: the left pixel's R (G), B (A), then the
			// right pixel's, each the sum of the two rows.
			e := a&evenBytes + c&evenBytes
			o := (a>>8)&evenBytes + (c>>8)&evenBytes
			// Left plus right, rounded, divided by 4, in the low lanes.
			e = (e&0xffff_ffff + e>>32 + 0x0002_0002) >> 2 & 0x00ff_00ff
			o = (o&0xffff_ffff + o>>32 + 0x0002_0002) >> 2 & 0x00ff_00ff
			binary.LittleEndian.PutUint32(out[4*x:], uint32(e|o<<8))
		}
	}
}

// reduce3 is boxReduce for k = 3 (the live view's whole-block reduction
// of an iPhone's screen, Box.Blocks), into dst, whose bounds give the
// size. Each three source rows are summed first, two pixels per
// operation (SWAR, as reduce2): even bytes (R, B) and odd bytes (G, A)
// in 16-bit lanes, one uint32 of lanes per pixel. Then each three sums
// across are added, rounded and divided by 9, which the compiler turns
// into a multiplication.
func reduce3(dst, src *image.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	n := 3 * w                                            // source pixels used per row
	even, odd := make([]uint32, n+1), make([]uint32, n+1) // +1: a pair's second pixel past an odd n
	for y := range h {
		r0 := src.Pix[3*y*src.Stride:][:4*n]
		r1 := src.Pix[(3*y+1)*src.Stride:][:4*n]
		r2 := src.Pix[(3*y+2)*src.Stride:][:4*n]
		i := 0
		for ; 8*i+8 <= 4*n; i++ {
			a := binary.LittleEndian.Uint64(r0[8*i:])
			b := binary.LittleEndian.Uint64(r1[8*i:])
			c := binary.LittleEndian.Uint64(r2[8*i:])
			e := a&evenBytes + b&evenBytes + c&evenBytes
			o := (a>>8)&evenBytes + (b>>8)&evenBytes + (c>>8)&evenBytes
			even[2*i], even[2*i+1] = uint32(e), uint32(e>>32)
			odd[2*i], odd[2*i+1] = uint32(o), uint32(o>>32)
		}
		if 8*i < 4*n { // the last pixel of an odd count
			a := binary.LittleEndian.Uint32(r0[8*i:])
			b := binary.LittleEndian.Uint32(r1[8*i:])
			c := binary.LittleEndian.Uint32(r2[8*i:])
			even[2*i] = a&0x00ff_00ff + b&0x00ff_00ff + c&0x00ff_00ff
			odd[2*i] = a>>8&0x00ff_00ff + b>>8&0x00ff_00ff + c>>8&0x00ff_00ff
		}
		out := dst.Pix[y*dst.Stride:][:4*w]
		for x := range w {
			e3, o3 := even[3*x:3*x+3:3*x+3], odd[3*x:3*x+3:3*x+3]
			e := e3[0] + e3[1] + e3[2]
			o := o3[0] + o3[1] + o3[2]
			binary.LittleEndian.PutUint32(out[4*x:], (e&0xffff+4)/9|((o&0xffff+4)/9)<<8|((e>>16+4)/9)<<16|((o>>16+4)/9)<<24)
		}
	}
}

// addBlocks adds each k pixels of row to sums (four per block: R, G, B,
// A), channel by channel.
func addBlocks(sums []uint32, row []byte, k int) {
	for x := range len(sums) / 4 {
		s := sums[4*x : 4*x+4 : 4*x+4]
		for dx := range k {
			p := row[4*(x*k+dx) : 4*(x*k+dx)+4 : 4*(x*k+dx)+4]
			s[0] += uint32(p[0])
			s[1] += uint32(p[1])
			s[2] += uint32(p[2])
			s[3] += uint32(p[3])
		}
	}
}

// addBlocksPacked is addBlocks two pixels at a time (SWAR, as bilinear):
// a uint64 of two pixels' bytes splits into even bytes (R, B) and odd
// bytes (G, A) in 16-bit lanes, which hold the sum of up to maxBox/2
// bytes.
func addBlocksPacked(sums []uint32, row []byte, k int) {
	for x := range len(sums) / 4 {
		block := row[4*x*k : 4*(x+1)*k]
		var even, odd uint64 // lanes: pixel 0's R (G), B (A); pixel 1's R (G), B (A)
		i := 0
		for ; i+8 <= len(block); i += 8 {
			u := binary.LittleEndian.Uint64(block[i:])
			even += u & evenBytes
			odd += (u >> 8) & evenBytes
		}
		if i < len(block) { // odd k: the last pixel alone
			u := uint64(binary.LittleEndian.Uint32(block[i:]))
			even += u & evenBytes
			odd += (u >> 8) & evenBytes
		}
		s := sums[4*x : 4*x+4 : 4*x+4]
		s[0] += uint32(even&0xffff + even>>32&0xffff)
		s[1] += uint32(odd&0xffff + odd>>32&0xffff)
		s[2] += uint32(even>>16&0xffff + even>>48)
		s[3] += uint32(odd>>16&0xffff + odd>>48)
	}
}

// bilinear samples src at w×h with pixel centres aligned, in 8-bit fixed
// point and separably: per destination row, the two source rows it lies
// between are blended into one line, and the line is sampled across. Both
// steps work on several channels per operation (SWAR): a uint64 holds two
// pixels' bytes, split into even bytes (R, B) and odd bytes (G, A) in
// 16-bit lanes, where a weight of at most 256 times a byte cannot carry
// into the next lane.
//
// Bands of destination rows run on up to GOMAXPROCS goroutines.
func bilinear(src *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	bilinearInto(dst, src)
	return dst
}

// bilinearInto is bilinear into dst, whose bounds give the size; dst and
// src are at the origin.
func bilinearInto(dst, src *image.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	xs, ys := taps(w, src.Bounds().Dx()), taps(h, src.Bounds().Dy())
	n := min(runtime.GOMAXPROCS(0), h/minBand)
	if n <= 1 {
		bilinearRows(dst, src, xs, ys, 0, h)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { bilinearRows(dst, src, xs, ys, i*h/n, (i+1)*h/n) })
	}
	wg.Wait()
}

// minBand is the fewest destination rows worth a goroutine of their own.
const minBand = 128

// bilinearRows fills destination rows y0 to y1 (exclusive) of dst.
func bilinearRows(dst, src *image.RGBA, xs, ys []tap, y0, y1 int) {
	sw := src.Bounds().Dx()
	// line is the blended source line, plus one pixel so that the last
	// tap (weight 0 on its right neighbour) can read two pixels.
	line := make([]byte, 4*sw+4)
	for y := y0; y < y1; y++ {
		ty := ys[y]
		r0 := src.Pix[ty.i0*src.Stride : ty.i0*src.Stride+4*sw]
		r1 := src.Pix[ty.i1*src.Stride : ty.i1*src.Stride+4*sw]
		blendRows(line[:4*sw], r0, r1, uint64(ty.f))
		out := dst.Pix[y*dst.Stride : y*dst.Stride+4*len(xs)]
		for x, t := range xs {
			// Pixels i0 and i0+1: R0 G0 B0 A0 R1 G1 B1 A1, low byte first.
			u := binary.LittleEndian.Uint64(line[4*t.i0:])
			f := uint64(t.f)
			even, odd := u&evenBytes, (u>>8)&evenBytes
			// Left pixel's lanes times 256-f plus the right's times f:
			// R and B (G and A) of the result, times 256, in two lanes.
			e := (even&0xffffffff)*(256-f) + (even>>32)*f + 0x0080_0080
			o := (odd&0xffffffff)*(256-f) + (odd>>32)*f + 0x0080_0080
			binary.LittleEndian.PutUint32(out[4*x:], uint32((e>>8)&0x00ff_00ff|o&0xff00_ff00))
		}
	}
}

// evenBytes masks bytes 0, 2, 4 and 6 of a uint64.
const evenBytes = 0x00ff_00ff_00ff_00ff

// blendRows sets dst to r0·(256-f)/256 + r1·f/256, byte by byte, rounded.
func blendRows(dst, r0, r1 []byte, f uint64) {
	if f == 0 {
		copy(dst, r0)
		return
	}
	const half = 0x0080_0080_0080_0080
	g := 256 - f
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		a, c := binary.LittleEndian.Uint64(r0[i:]), binary.LittleEndian.Uint64(r1[i:])
		e := ((a&evenBytes)*g + (c&evenBytes)*f + half) >> 8
		o := ((a>>8)&evenBytes)*g + ((c>>8)&evenBytes)*f + half
		binary.LittleEndian.PutUint64(dst[i:], e&evenBytes|o&^evenBytes)
	}
	for ; i < len(dst); i++ {
		dst[i] = uint8((uint64(r0[i])*g + uint64(r1[i])*f + 0x80) >> 8)
	}
}

// tap is where one destination pixel samples a source line: between
// pixels i0 and i1, f/256 of the way.
type tap struct{ i0, i1, f int }

// taps places n destination pixels on a source line of sn pixels, centres
// aligned.
func taps(n, sn int) []tap {
	t := make([]tap, n)
	for i := range t {
		// Source coordinate of the destination pixel's centre, in 1/256.
		c := ((2*i+1)*sn*256)/(2*n) - 128
		c = max(0, min(c, (sn-1)*256))
		i0 := c >> 8
		t[i] = tap{i0, min(i0+1, sn-1), c & 0xff}
	}
	return t
}
