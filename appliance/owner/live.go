package owner

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/picture"
	"github.com/openlolo/openlolo/phone"
)

// Defaults for LiveOptions fields left zero.
const (
	DefaultLiveFPS        = 10      // frames per second at most
	DefaultLiveSize       = 960     // pixels on the picture's longer side at most
	DefaultLiveQuality    = 70      // JPEG quality
	DefaultLivePerSession = 3       // streams one owner session may hold
	DefaultLiveViewers    = 6       // streams the whole box serves at once
	DefaultLiveViewerRate = 4 << 20 // bytes per second one stream may send
)

// LiveOptions bound the Status page's live stream (GET /status/live.mjpeg).
// Zero fields take the defaults; the zero value is a valid configuration.
type LiveOptions struct {
	// FPS caps the frames per second the box captures and sends.
	FPS int
	// MaxSize caps the longer side of the streamed picture in pixels.
	MaxSize int
	// Quality is the stream's JPEG quality (1..100).
	Quality int
	// PerSession caps the streams one owner session may hold open (tabs).
	PerSession int
	// Viewers caps the streams the box serves at once.
	Viewers int
	// ViewerRate caps one stream's bytes per second: frames wait (and
	// newer ones replace them) until the stream's budget allows.
	ViewerRate int
}

// Screen gives the Status page the phone's pictures (its still picture
// and the live stream's), through control: control.Service implements it
// with the box's one encoder and per-frame cache.
type Screen interface {
	// Screen is the phone's newest screen as a JPEG fitted into fit at
	// quality; an unchanged screen gives the same picture (its Seq and
	// Epoch say which frame it shows).
	Screen(ctx context.Context, fit picture.Box, quality int) (*picture.Picture, error)
}

func (o LiveOptions) withDefaults() LiveOptions {
	if o.FPS <= 0 {
		o.FPS = DefaultLiveFPS
	}
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultLiveSize
	}
	if o.Quality <= 0 || o.Quality > 100 {
		o.Quality = DefaultLiveQuality
	}
	if o.PerSession <= 0 {
		o.PerSession = DefaultLivePerSession
	}
	if o.Viewers <= 0 {
		o.Viewers = DefaultLiveViewers
	}
	if o.ViewerRate <= 0 {
		o.ViewerRate = DefaultLiveViewerRate
	}
	return o
}

// Errors join answers; the live handler says them to the owner.
var (
	errLiveSessionFull = errors.New("owner: live: this session already watches the phone in too many tabs")
	errLiveBoxFull     = errors.New("owner: live: the box already streams the phone to as many viewers as it allows")
	errLiveEnded       = errors.New("owner: live: the box is stopping")
)

// liveFrame is one encoded picture of the stream.
type liveFrame struct {
	seq, epoch uint64
	jpeg       []byte
}

// viewer is one open stream. frames holds at most the newest picture not
// yet sent: a slow viewer skips pictures, it never holds up the others.
type viewer struct {
	session string
	frames  chan *liveFrame
}

// liveHub captures the phone's screen while at least one viewer watches
// and hands each new picture to every viewer. With no viewer nothing
// captures: the first join starts the capture loop, the last leave stops
// it.
type liveHub struct {
	scr Screen
	opt LiveOptions
	log *slog.Logger
	// chosenFPS is the owner's choice of pictures per second (0: none, the
	// options' FPS); a capture loop reads it when it starts.
	chosenFPS func() int

	ended     chan struct{} // closed by end: the box stops
	endOnce   sync.Once
	mu        sync.Mutex
	viewers   map[*viewer]struct{}
	perSess   map[string]int
	stop      context.CancelFunc // the running capture loop's; nil when none
	gen       uint64             // the capture loop's generation
	last      *liveFrame         // the newest picture of the running loop
	captures  uint64             // screenshots taken, for tests and the bench
	encodings uint64             // new pictures taken
}

func newLiveHub(scr Screen, opt LiveOptions, log *slog.Logger) *liveHub {
	return &liveHub{scr: scr, opt: opt.withDefaults(), log: log, ended: make(chan struct{}),
		viewers: map[*viewer]struct{}{}, perSess: map[string]int{}}
}

// end ends every open stream and refuses new ones (the box stops).
func (h *liveHub) end() { h.endOnce.Do(func() { close(h.ended) }) }

// join adds a viewer for session, starting the capture loop if it is the
// first. It refuses beyond the per-session and the box's limits.
func (h *liveHub) join(session string) (*viewer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.ended:
		return nil, errLiveEnded
	default:
	}
	if len(h.viewers) >= h.opt.Viewers {
		return nil, errLiveBoxFull
	}
	if h.perSess[session] >= h.opt.PerSession {
		return nil, errLiveSessionFull
	}
	v := &viewer{session: session, frames: make(chan *liveFrame, 1)}
	h.viewers[v] = struct{}{}
	h.perSess[session]++
	if h.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		h.stop = cancel
		h.gen++
		h.last = nil
		go h.capture(ctx, h.gen)
	} else if h.last != nil {
		v.frames <- h.last // the picture now, without waiting for a change
	}
	return v, nil
}

// leave removes v; the last viewer to leave stops the capture loop.
func (h *liveHub) leave(v *viewer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.viewers[v]; !ok {
		return
	}
	delete(h.viewers, v)
	if h.perSess[v.session]--; h.perSess[v.session] <= 0 {
		delete(h.perSess, v.session)
	}
	if len(h.viewers) == 0 && h.stop != nil {
		h.stop()
		h.stop, h.last = nil, nil
	}
}

// watching is how many streams are open and whether the capture loop runs.
func (h *liveHub) watching() (viewers int, capturing bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.viewers), h.stop != nil
}

// capture takes a picture every frame interval until ctx ends, and
// publishes each one that differs from the last: a new Seq or geometry
// that encodes to other bytes (a capture device's identical frames are
// skipped too).
func (h *liveHub) capture(ctx context.Context, gen uint64) {
	every := time.Second / time.Duration(h.fps())
	t := time.NewTicker(every)
	defer t.Stop()
	var last *liveFrame
	failing := false
	for {
		f, err := h.scr.Screen(ctx, liveBox(h.opt.MaxSize), h.opt.Quality)
		h.mu.Lock()
		h.captures++
		h.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if !failing {
				h.log.Warn("owner: live: screenshot", "err", err)
			}
			failing = true
		case last == nil || f.Seq != last.seq || f.Epoch != last.epoch:
			failing = false
			h.mu.Lock()
			h.encodings++
			h.mu.Unlock()
			if last != nil && bytes.Equal(f.Data, last.jpeg) {
				last = &liveFrame{seq: f.Seq, epoch: f.Epoch, jpeg: last.jpeg}
				break
			}
			last = &liveFrame{seq: f.Seq, epoch: f.Epoch, jpeg: f.Data}
			h.publish(gen, last)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fps is the capture loop's pictures per second: the owner's choice, else
// the options' (the board's default).
func (h *liveHub) fps() int {
	if h.chosenFPS != nil {
		if n := h.chosenFPS(); n > 0 {
			return n
		}
	}
	return h.opt.FPS
}

// publish hands fr to every viewer, replacing a picture a viewer has not
// taken yet. A loop that was stopped (another generation runs) publishes
// nothing.
func (h *liveHub) publish(gen uint64, fr *liveFrame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen || h.stop == nil {
		return
	}
	h.last = fr
	for v := range h.viewers {
		select {
		case <-v.frames:
		default:
		}
		v.frames <- fr
	}
}

// stats returns the screenshots taken and pictures encoded so far.
func (h *liveHub) stats() (captures, encodings uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.captures, h.encodings
}

// budget is one stream's byte budget: a token bucket holding at most one
// second's worth, refilled at rate bytes per second.
type budget struct {
	rate   float64
	tokens float64
	at     time.Time
}

func newBudget(rate int, now time.Time) *budget {
	return &budget{rate: float64(rate), tokens: float64(rate), at: now}
}

// wait is how long to wait before n bytes may be sent at now.
func (b *budget) wait(n int, now time.Time) time.Duration {
	b.refill(now)
	if b.tokens >= float64(n) {
		return 0
	}
	return time.Duration((float64(n) - b.tokens) / b.rate * float64(time.Second))
}

// spend takes n bytes from the budget (it may go below zero for a picture
// larger than a second's worth; later ones then wait longer).
func (b *budget) spend(n int, now time.Time) {
	b.refill(now)
	b.tokens -= float64(n)
}

func (b *budget) refill(now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(b.rate, b.tokens+d.Seconds()*b.rate)
	}
	b.at = now
}

// liveBox is the room of the stream's pictures: the longer side at most
// maxSize, or a little less when a whole-block reduction gets there (a
// third of an iPhone's 2556 rows: 852), which costs half the CPU of
// averaging and then sampling (docs/live.md).
func liveBox(maxSize int) picture.Box { return picture.Box{W: maxSize, H: maxSize, Blocks: true} }

// liveSize is the stream picture's size for a screen of geometry g: the
// page gives the image these dimensions so it keeps its shape before the
// first picture arrives.
func liveSize(g phone.Geometry, maxSize int) (w, h int) {
	if g.Width <= 0 || g.Height <= 0 {
		return 0, 0
	}
	return liveBox(maxSize).Fit(g.Width, g.Height)
}
