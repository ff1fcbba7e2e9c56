package capture

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestYUYVToRGBA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		y, u, v byte
		want    color.RGBA
	}{
		{"black", 16, 128, 128, color.RGBA{0, 0, 0, 255}},
		{"white", 235, 128, 128, color.RGBA{255, 255, 255, 255}},
		{"grey", 126, 128, 128, color.RGBA{128, 128, 128, 255}},
		{"red", 81, 90, 240, color.RGBA{255, 0, 0, 255}},
		{"green", 145, 54, 34, color.RGBA{0, 255, 1, 255}},
		{"blue", 41, 240, 110, color.RGBA{0, 0, 255, 255}},
		{"below black clamps", 0, 128, 128, color.RGBA{0, 0, 0, 255}},
	}
	for _, tt := range tests {
		// 3 pixels wide (odd) with 8 bytes of row padding.
		stride := 3*2 + 2 + 8
		src := bytes.Repeat([]byte{tt.y, tt.u, tt.y, tt.v, tt.y, tt.u, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9}, 2)
		dst := image.NewRGBA(image.Rect(0, 0, 3, 2))
		YUYVToRGBA(dst, src, stride)
		for x := 0; x < 2; x++ {
			if got := dst.RGBAAt(x, 1); !near(got, tt.want) {
				t.Errorf("%s: pixel %d = %v, want %v", tt.name, x, got, tt.want)
			}
		}
		if got := dst.RGBAAt(2, 0); got.A != 255 || tt.name == "white" && got.R < 250 {
			t.Errorf("%s: odd last pixel = %v", tt.name, got)
		}
	}
}

func TestUYVYMatchesYUYV(t *testing.T) {
	t.Parallel()
	yuyv := []byte{81, 90, 145, 240, 41, 240, 235, 110, 126, 128, 0, 0}
	var uyvy []byte
	for i := 0; i+4 <= len(yuyv); i += 4 {
		uyvy = append(uyvy, yuyv[i+1], yuyv[i], yuyv[i+3], yuyv[i+2])
	}
	a, err := Decode(&Frame{Format: Format{Pixel: YUYV, Width: 6, Height: 1}, Data: yuyv})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode(&Frame{Format: Format{Pixel: UYVY, Width: 6, Height: 1}, Data: uyvy})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.(*image.RGBA).Pix, b.(*image.RGBA).Pix) {
		t.Errorf("UYVY decodes to %v, YUYV of the same pixels to %v", b.(*image.RGBA).Pix, a.(*image.RGBA).Pix)
	}
}

func near(a, b color.RGBA) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= 2 && int(y)-int(x) <= 2 }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && a.A == b.A
}

func TestDecode(t *testing.T) {
	t.Parallel()
	src := image.NewRGBA(image.Rect(0, 0, 32, 16))
	for i := range src.Pix {
		src.Pix[i] = 200
	}
	var jb bytes.Buffer
	jpeg.Encode(&jb, src, nil)
	tests := []struct {
		name    string
		f       Frame
		wantErr string
		size    image.Point
	}{
		{"mjpeg", Frame{Format: Format{Pixel: MJPEG, Width: 32, Height: 16}, Data: jb.Bytes()}, "", image.Pt(32, 16)},
		{"yuyv", Frame{Format: Format{Pixel: YUYV, Width: 4, Height: 2, Stride: 8}, Data: make([]byte, 16)}, "", image.Pt(4, 2)},
		{"yuyv short", Frame{Format: Format{Pixel: YUYV, Width: 4, Height: 2}, Data: make([]byte, 10)}, "has 10 bytes", image.Point{}},
		{"bad jpeg", Frame{Format: Format{Pixel: MJPEG}, Data: []byte("nope")}, "decode MJPEG", image.Point{}},
		{"uyvy", Frame{Format: Format{Pixel: UYVY, Width: 4, Height: 2}, Data: make([]byte, 16)}, "", image.Pt(4, 2)},
		{"other format", Frame{Format: Format{Pixel: FourCC('N' | 'V'<<8 | '1'<<16 | '2'<<24)}}, "pixel format NV12", image.Point{}},
	}
	for _, tt := range tests {
		img, err := Decode(&tt.f)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: Decode error = %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if img.Bounds().Size() != tt.size {
			t.Errorf("%s: size %v, want %v", tt.name, img.Bounds().Size(), tt.size)
		}
	}
}

// framed draws a bright w×h picture at r inside a dark W×H capture.
func framed(W, H int, r image.Rectangle, noise uint8) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			c := color.RGBA{noise, noise, noise, 255}
			if (image.Point{x, y}).In(r) {
				c = color.RGBA{uint8(40 + x%200), 180, uint8(y % 255), 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// blueEdge is a 75% blue column (low luma, not a bar) left of a black
// bar, like the end of a colour-bar test pattern.
func blueEdge() *image.RGBA {
	img := framed(50, 10, image.Rect(0, 0, 30, 10), 0)
	for y := 0; y < 10; y++ {
		for x := 30; x < 40; x++ {
			img.SetRGBA(x, y, color.RGBA{0, 0, 191, 255})
		}
	}
	return img
}

func TestContentRect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		img  image.Image
		want image.Rectangle
	}{
		{"pillarbox portrait phone", framed(160, 90, image.Rect(59, 0, 101, 90), 0), image.Rect(59, 0, 101, 90)},
		{"letterbox landscape", framed(160, 120, image.Rect(0, 15, 160, 105), 12), image.Rect(0, 15, 160, 105)},
		{"no bars", framed(64, 48, image.Rect(0, 0, 64, 48), 0), image.Rect(0, 0, 64, 48)},
		{"boxed", framed(100, 100, image.Rect(10, 20, 90, 70), 20), image.Rect(10, 20, 90, 70)},
		{"dark screen", framed(64, 48, image.Rectangle{}, 5), image.Rectangle{}},
		{"deep blue edge is content", blueEdge(), image.Rect(0, 0, 40, 10)},
	}
	for _, tt := range tests {
		if got := ContentRect(tt.img); got != tt.want {
			t.Errorf("%s: ContentRect = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Other image types go through the same rule.
	g := image.NewGray(image.Rect(0, 0, 20, 10))
	for x := 5; x < 15; x++ {
		for y := 0; y < 10; y++ {
			g.SetGray(x, y, color.Gray{200})
		}
	}
	if got := ContentRect(g); got != image.Rect(5, 0, 15, 10) {
		t.Errorf("gray: ContentRect = %v", got)
	}
}

func TestTracker(t *testing.T) {
	t.Parallel()
	var tr Tracker
	steps := []struct {
		in        image.Rectangle
		wantRect  image.Rectangle
		wantEpoch uint64
	}{
		{image.Rect(59, 0, 101, 90), image.Rect(59, 0, 101, 90), 1},
		{image.Rect(60, 0, 100, 90), image.Rect(59, 0, 101, 90), 1},   // noise
		{image.Rectangle{}, image.Rect(59, 0, 101, 90), 1},            // screen off
		{image.Rect(0, 15, 160, 105), image.Rect(0, 15, 160, 105), 2}, // rotated
		{image.Rect(59, 0, 101, 90), image.Rect(59, 0, 101, 90), 3},   // back
	}
	for i, s := range steps {
		r, e := tr.Update(s.in)
		if r != s.wantRect || e != s.wantEpoch {
			t.Errorf("step %d: Update(%v) = %v, %d; want %v, %d", i, s.in, r, e, s.wantRect, s.wantEpoch)
		}
	}
}

func TestChooseFormat(t *testing.T) {
	t.Parallel()
	nv12 := FourCC('N' | 'V'<<8 | '1'<<16 | '2'<<24)
	tests := []struct {
		offered []FourCC
		want    FourCC
		wantErr string
	}{
		{[]FourCC{YUYV, MJPEG}, MJPEG, ""},
		{[]FourCC{nv12, YUYV}, YUYV, ""},
		{[]FourCC{nv12, UYVY}, UYVY, ""},
		{[]FourCC{nv12}, 0, "offers [NV12] but the box reads only MJPG, YUYV or UYVY"},
		{nil, 0, "no capture formats"},
	}
	for _, tt := range tests {
		got, err := chooseFormat(tt.offered)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("chooseFormat(%v) error = %v, want %q", tt.offered, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("chooseFormat(%v) = %v, %v; want %v", tt.offered, got, err, tt.want)
		}
	}
}

func TestChooseSize(t *testing.T) {
	t.Parallel()
	offered := []size{{320, 180}, {640, 360}, {1280, 720}, {1920, 1080}, {3840, 2160}}
	tests := []struct {
		offered []size
		ranged  bool
		want    size
		got     size
	}{
		{offered, false, size{1920, 1080}, size{1920, 1080}},
		{offered, false, size{1600, 900}, size{1280, 720}},
		{offered, false, size{100, 100}, size{320, 180}},
		{[]size{{4096, 4096}}, true, size{1920, 1080}, size{1920, 1080}},
	}
	for _, tt := range tests {
		if got := chooseSize(tt.offered, tt.ranged, tt.want); got != tt.got {
			t.Errorf("chooseSize(%v, want %v) = %v, want %v", tt.offered, tt.want, got, tt.got)
		}
	}
}

func TestParseCaps(t *testing.T) {
	t.Parallel()
	b := make([]byte, 104)
	copy(b, "vivid")
	copy(b[16:], "vivid card")
	le.PutUint32(b[84:], capDeviceCaps|capVideoCapture|capStreaming|0x2)
	le.PutUint32(b[88:], 0x2) // this node is output only
	c := parseCaps(b)
	if c.Driver != "vivid" || c.Card != "vivid card" || c.canCapture() {
		t.Errorf("parseCaps = %+v canCapture %v; want the node's own caps (no capture)", c, c.canCapture())
	}
	le.PutUint32(b[88:], capVideoCapture|capStreaming)
	if !parseCaps(b).canCapture() {
		t.Error("parseCaps: capture node not recognised")
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no devices", Options{SysDir: t.TempDir()}, "plug the HDMI capture dongle"},
		{"missing node", Options{Device: "/nonexistent/video9"}, "/nonexistent/video9: open"},
		{"not a video device", Options{Device: "/dev/null"}, "/dev/null: QUERYCAP"},
	}
	for _, tt := range tests {
		_, err := Open(context.Background(), tt.opts)
		if !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Open error = %v, want ErrNoDevice with %q", tt.name, err, tt.want)
		}
	}
}

func BenchmarkYUYVToRGBA1080p(b *testing.B) {
	const w, h = 1920, 1080
	src := make([]byte, w*h*2)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		YUYVToRGBA(dst, src, w*2)
	}
}

func BenchmarkContentRect1080p(b *testing.B) {
	img := framed(1920, 1080, image.Rect(700, 0, 1220, 1080), 8)
	for b.Loop() {
		ContentRect(img)
	}
}

// stripDHT removes every DHT segment before the scan, as many UVC devices
// send their MJPEG frames.
func stripDHT(t *testing.T, b []byte) []byte {
	t.Helper()
	out := append([]byte(nil), b[:2]...)
	i := 2
	for b[i+1] != markerSOS {
		n := 2 + (int(b[i+2])<<8 | int(b[i+3]))
		if b[i+1] != markerDHT {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return append(out, b[i:]...)
}

func TestMJPEGWithoutHuffmanTables(t *testing.T) {
	t.Parallel()
	src := image.NewRGBA(image.Rect(0, 0, 48, 32))
	for i := range src.Pix {
		src.Pix[i] = byte(i * 13)
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, src, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	bare := stripDHT(t, jb.Bytes())
	if _, has := sosOffset(bare); has {
		t.Fatal("stripDHT left a DHT segment")
	}
	if _, err := jpeg.Decode(bytes.NewReader(bare)); err == nil {
		t.Fatal("image/jpeg decoded a frame without Huffman tables; the fix is not needed")
	}
	got, err := Decode(&Frame{Format: Format{Pixel: MJPEG}, Data: bare})
	if err != nil {
		t.Fatalf("Decode(MJPEG without DHT): %v", err)
	}
	want, _ := jpeg.Decode(bytes.NewReader(jb.Bytes()))
	if !bytes.Equal(got.(*image.YCbCr).Y, want.(*image.YCbCr).Y) {
		t.Error("decoded pixels differ from the frame with its own tables")
	}
	if out := FixMJPEG(jb.Bytes()); &out[0] != &jb.Bytes()[0] {
		t.Error("FixMJPEG copied a frame that has its tables")
	}
	if out := FixMJPEG([]byte("not a jpeg")); string(out) != "not a jpeg" {
		t.Error("FixMJPEG changed a non-JPEG")
	}
}

// TestWaitRidesOutAReopen: a device that went offline for a moment (the
// reader goroutine is reopening it) is waited for, not failed at once;
// only the end of ctx stops Wait, naming the device's last error.
func TestWaitRidesOutAReopen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &Device{}
		d.setErr(errors.New("poll: device error (revents 0x8)"))
		go func() {
			time.Sleep(300 * time.Millisecond)
			d.mu.Lock()
			d.online, d.lastErr, d.seq = true, nil, 1
			d.latest = &Frame{Seq: 1}
			d.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		f, err := d.Wait(ctx, 0)
		if err != nil || f.Seq != 1 {
			t.Fatalf("Wait across a reopen = %v, %v; want frame 1", f, err)
		}

		d.setErr(errors.New("DQBUF: no such device"))
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err = d.Wait(ctx, 1)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "DQBUF: no such device") {
			t.Errorf("Wait on a device that stays away = %v, want the deadline and the device's last error", err)
		}
	})
}
