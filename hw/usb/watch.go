package usb

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// DefaultWatchInterval is how often [Bus.Watch] looks when its interval
// is zero: a phone plugged in is seen within a second.
const DefaultWatchInterval = time.Second

// Event is a device arriving or leaving.
type Event struct {
	// Added is true for a device that arrived, false for one that left.
	Added  bool
	Device DeviceInfo
}

// Watch reports devices arriving and leaving until ctx ends, then closes
// the channel. The devices present when it starts come first, as
// arrivals, so one loop serves both. A device unplugged and plugged
// again is a departure and an arrival (its address changes).
//
// Watch polls sysfs every interval (0: [DefaultWatchInterval]) rather
// than listening to the kernel's uevents on netlink: uevents reach only
// the initial network namespace and are lost when the reader lags,
// while a sysfs listing is the same code as [Bus.Devices], needs no
// privilege, works against a fake tree in tests, and costs one folder
// read a second. A failed listing is logged to log (nil: discarded)
// and retried at the next tick.
func (b Bus) Watch(ctx context.Context, interval time.Duration, log *slog.Logger) <-chan Event {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ch := make(chan Event)
	go func() {
		defer close(ch)
		t := time.NewTicker(interval)
		defer t.Stop()
		known := map[string]DeviceInfo{}
		for {
			if !b.diff(ctx, known, ch, log) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return ch
}

// diff lists the devices once and sends what changed since known; it
// returns false when ctx ended.
func (b Bus) diff(ctx context.Context, known map[string]DeviceInfo, ch chan<- Event, log *slog.Logger) bool {
	list, err := b.Devices()
	if err != nil {
		log.Warn("usb: watch: listing failed; trying again", "err", err)
		return ctx.Err() == nil
	}
	now := make(map[string]DeviceInfo, len(list))
	for _, d := range list {
		now[d.Path] = d
	}
	var events []Event
	for _, d := range list {
		if _, ok := known[d.Path]; !ok {
			events = append(events, Event{Added: true, Device: d})
		}
	}
	var gone []DeviceInfo
	for path, d := range known {
		if _, ok := now[path]; !ok {
			gone = append(gone, d)
		}
	}
	slices.SortFunc(gone, func(a, b DeviceInfo) int { return strings.Compare(a.Path, b.Path) })
	for _, d := range gone {
		events = append(events, Event{Added: false, Device: d})
	}
	for _, e := range events {
		select {
		case ch <- e:
		case <-ctx.Done():
			return false
		}
		if e.Added {
			known[e.Device.Path] = e.Device
		} else {
			delete(known, e.Device.Path)
		}
	}
	return true
}
