package phone_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/openlolo/openlolo/phone"
)

// drain reads ch until it is closed and returns the kinds it got.
func drain(ch <-chan phone.Event) []phone.EventKind {
	var got []phone.EventKind
	for e := range ch {
		got = append(got, e.Kind)
	}
	return got
}

func TestBroadcaster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b phone.Broadcaster
		ctx, cancel := context.WithCancel(t.Context())
		first := b.Subscribe(ctx, phone.Event{Kind: phone.Attached})
		second := b.Subscribe(t.Context())
		b.Publish(phone.Event{Kind: phone.NewFrame})
		cancel()
		synctest.Wait()
		b.Publish(phone.Event{Kind: phone.GeometryChanged}) // only second is left
		if got := drain(first); len(got) != 2 || got[0] != phone.Attached || got[1] != phone.NewFrame {
			t.Errorf("first subscriber got %v, want attached, frame, then closed by its ctx", got)
		}
		b.Close()
		b.Close() // twice is harmless
		b.Publish(phone.Event{Kind: phone.Detached})
		if got := drain(second); len(got) != 2 || got[0] != phone.NewFrame || got[1] != phone.GeometryChanged {
			t.Errorf("second subscriber got %v, want frame, geometry, then closed by Close", got)
		}
		if got := drain(b.Subscribe(t.Context(), phone.Event{Kind: phone.Attached})); len(got) != 0 {
			t.Errorf("a subscription after Close got %v, want a closed channel", got)
		}
	})
}

// TestBroadcasterSlowReader: a reader that does not read misses events
// past EventBuffer; Publish never blocks.
func TestBroadcasterSlowReader(t *testing.T) {
	var b phone.Broadcaster
	ch := b.Subscribe(t.Context())
	for range phone.EventBuffer + 5 {
		b.Publish(phone.Event{Kind: phone.NewFrame})
	}
	b.Close()
	if got := len(drain(ch)); got != phone.EventBuffer {
		t.Errorf("a slow reader got %d events, want the %d that fit", got, phone.EventBuffer)
	}
}
