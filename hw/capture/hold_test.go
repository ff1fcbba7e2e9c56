package capture

import (
	"bytes"
	"testing"
	"time"
)

// driverBuffers stands in for a stream's mmap buffers: requeue lets the
// "driver" write the buffer again, as a real one does with the next
// frame it captures into it.
type driverBuffers [][]byte

func (b driverBuffers) refill(idx int, c byte) {
	for i := range b[idx] {
		b[idx][i] = c
	}
}

// TestFrameCopiedOnlyWhenTaken: a frame nobody asks for stays in the
// driver's buffer and is given back when the next one comes; a frame a
// caller takes is copied once, and later writes into its buffer do not
// reach the caller's copy; a stream that ends leaves the newest frame
// copied out of its buffers.
func TestFrameCopiedOnlyWhenTaken(t *testing.T) {
	const n = 64
	bufs := driverBuffers{bytes.Repeat([]byte{'a'}, n), bytes.Repeat([]byte{'b'}, n), bytes.Repeat([]byte{'c'}, n)}
	f := Format{Pixel: YUYV, Width: 4, Height: 8, Stride: 8}
	d := &Device{online: true}
	at := time.Unix(1700000000, 0)

	if _, had := d.hold(f, 0, bufs[0], at); had {
		t.Fatal("the first frame gave back a buffer")
	}
	if &d.latest.Data[0] != &bufs[0][0] {
		t.Error("a frame nobody asked for was copied")
	}
	prev, had := d.hold(f, 1, bufs[1], at.Add(time.Second))
	if !had || prev != 0 {
		t.Fatalf("the second frame gave back buffer %d (%v), want 0", prev, had)
	}
	bufs.refill(0, 'z') // the driver captures into the buffer given back

	got, err := d.Latest()
	if err != nil || got.Seq != 2 || !got.Captured.Equal(at.Add(time.Second)) || got.Format != f {
		t.Fatalf("Latest = %+v, %v; want frame 2", got, err)
	}
	if &got.Data[0] == &bufs[1][0] {
		t.Fatal("Latest handed out the driver's buffer")
	}
	again, _ := d.Latest()
	if again != got {
		t.Error("a second Latest of the same frame copied it again")
	}
	if prev, _ := d.hold(f, 2, bufs[2], at.Add(2*time.Second)); prev != 1 {
		t.Fatalf("the third frame gave back buffer %d, want 1", prev)
	}
	bufs.refill(1, 'z')
	if !bytes.Equal(got.Data, bytes.Repeat([]byte{'b'}, n)) {
		t.Errorf("the taken frame changed when the driver reused its buffer: %q", got.Data)
	}
	if f, err := d.after(3); f != nil || err != nil {
		t.Errorf("after(3) with frame 3 newest = %v, %v; want nothing yet", f, err)
	}

	d.detach() // the stream ends with frame 3 untaken
	if d.holding {
		t.Error("a detached device still holds a buffer of the ended stream")
	}
	bufs.refill(2, 'z') // unmapped and gone, as far as the frame is concerned
	last, err := d.Latest()
	if err != nil || last.Seq != 3 || !bytes.Equal(last.Data, bytes.Repeat([]byte{'c'}, n)) {
		t.Errorf("Latest after the stream ended = %v, %v; want frame 3 as captured", last, err)
	}
	if _, had := d.hold(f, 0, bufs[0], at.Add(3*time.Second)); had {
		t.Error("the new stream's first frame gave back a buffer of the old stream")
	}
}

// BenchmarkFrameArrival1080p is the reader's work for each 1080p YUYV
// frame (4 MB, 30 a second from a dongle) that nobody takes:
// "copy-each" is what it did before (a copy of every frame), "hold" what
// it does now; "hold-taken" is a frame every caller takes (the live view
// at the device's rate), which copies as before.
func BenchmarkFrameArrival1080p(b *testing.B) {
	f := Format{Pixel: YUYV, Width: 1920, Height: 1080, Stride: 3840}
	bufs := [][]byte{make([]byte, 3840*1080), make([]byte, 3840*1080)}
	at := time.Now()
	b.Run("copy-each", func(b *testing.B) {
		var d Device
		for i := 0; b.Loop(); i++ {
			d.mu.Lock()
			d.seq++
			d.latest = &Frame{Format: f, Data: append([]byte(nil), bufs[i%2]...), Seq: d.seq, Captured: at}
			d.mu.Unlock()
		}
	})
	b.Run("hold", func(b *testing.B) {
		d := Device{online: true}
		for i := 0; b.Loop(); i++ {
			d.hold(f, i%2, bufs[i%2], at)
		}
	})
	b.Run("hold-taken", func(b *testing.B) {
		d := Device{online: true}
		for i := 0; b.Loop(); i++ {
			d.hold(f, i%2, bufs[i%2], at)
			if _, err := d.Latest(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
