package phone

import (
	"context"
	"sync"
)

// EventBuffer is how many events a subscription holds for a slow reader
// before it misses the next ones.
const EventBuffer = 32

// Broadcaster fans a backend's events out to its subscribers: the one
// implementation of [Phone.Subscribe] every backend uses. A slow reader
// misses events rather than blocking the backend. The zero value is
// ready; its methods are safe for concurrent use.
type Broadcaster struct {
	mu     sync.Mutex
	subs   map[chan Event]struct{}
	closed bool
}

// Subscribe returns a channel that receives first (in order) and then
// every event published until ctx ends or Close; then it is closed. After
// Close it returns a closed channel. A caller that must not miss an event
// between reading its state and subscribing holds its own lock across
// both, and publishes under it too.
func (b *Broadcaster) Subscribe(ctx context.Context, first ...Event) <-chan Event {
	ch := make(chan Event, max(EventBuffer, len(first)))
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch
	}
	for _, e := range first {
		ch <- e
	}
	if b.subs == nil {
		b.subs = map[chan Event]struct{}{}
	}
	b.subs[ch] = struct{}{}
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.subs[ch]; ok {
			delete(b.subs, ch)
			close(ch)
		}
	})
	return ch
}

// Publish sends e to every subscriber that has room.
func (b *Broadcaster) Publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default: // a slow reader misses events
		}
	}
}

// Close ends every subscription; later subscriptions are closed at once
// and later events go nowhere. Closing twice is harmless.
func (b *Broadcaster) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ch := range b.subs {
		delete(b.subs, ch)
		close(ch)
	}
}
