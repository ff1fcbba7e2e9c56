package appliance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/openlolo/openlolo/appliance/panel"
	"github.com/openlolo/openlolo/appliance/startup"
	"github.com/openlolo/openlolo/appliance/store"
)

// ledEvery is how often the LED is recomputed without an event.
const ledEvery = time.Second

// controls runs the box's physical controls while the box runs: presses go
// to the claim page, a long hold resets the box, and the LED follows the
// box's state.
type controls struct {
	b       *Box
	p       panel.Panel // nil: no panel
	presses chan panel.Event
	wake    chan struct{} // recompute the LED now
	closeMu sync.Once
}

// newPanel wraps cfg.Panel; without one (or one with nothing attached)
// the box has no physical controls.
func (b *Box) newPanel() *controls {
	pn := &controls{b: b, wake: make(chan struct{}, 1)}
	if b.cfg.Panel == nil {
		b.log.Debug("no button or LED; the box is claimed with the setup code only")
		return pn
	}
	if !b.cfg.Panel.Available() {
		return pn // its adapter said so already
	}
	pn.p = b.cfg.Panel
	if !pn.p.HasButton() {
		b.log.Debug("an LED but no button; the box is claimed with the setup code only")
		return pn
	}
	pn.presses = make(chan panel.Event)
	return pn
}

// run serves the panel until ctx ends; it returns when both loops have
// stopped. Box.Run calls it.
func (pn *controls) run(ctx context.Context) (wait func()) {
	if pn.p == nil {
		return func() {}
	}
	var wg sync.WaitGroup
	wg.Go(func() { pn.buttonLoop(ctx) })
	wg.Go(func() { pn.ledLoop(ctx) })
	return wg.Wait
}

// close ends the claim page's reader; call it after run's loops stopped.
func (pn *controls) close() {
	if pn.presses != nil {
		pn.closeMu.Do(func() { close(pn.presses) })
	}
}

func (pn *controls) poke() {
	select {
	case pn.wake <- struct{}{}:
	default:
	}
}

// buttonLoop dispatches the button's events.
func (pn *controls) buttonLoop(ctx context.Context) {
	log := pn.b.log
	events := pn.p.Events()
	for {
		var ev panel.Event
		var ok bool
		select {
		case <-ctx.Done():
			return
		case ev, ok = <-events:
			if !ok {
				return
			}
		}
		switch ev.Kind {
		case panel.Press:
			if pn.presses == nil {
				break
			}
			select {
			case pn.presses <- ev:
			case <-ctx.Done():
				return
			}
		case panel.ResetWarning:
			log.Warn("button held: the box resets in 5 s unless it is let go (let go now: the setup Wi-Fi network opens)")
		case panel.ResetCancelled:
			log.Info("button let go before the reset: factory reset cancelled")
			pn.b.holdReleased(ctx)
		case panel.Reset:
			if err := pn.b.factoryReset(ctx); err != nil {
				log.Error("factory reset failed", "err", err)
			}
		}
		pn.poke()
	}
}

// factoryReset forgets the owner, the clients and the journal (see
// owner.Pages.FactoryReset: the certificate stays) and announces the new
// setup code on Out, in the log and in the setup-code file.
func (b *Box) factoryReset(ctx context.Context) error {
	code, lost, err := b.owner.FactoryReset(ctx)
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	b.log.Warn("FACTORY RESET (the button held, or Settings): owner, sessions, clients, grants, tokens and the journal are gone; the certificate is kept",
		"setup_code", code, "clients", lost["oauth_clients"], "grants", lost["oauth_grants"], "operations", lost["operations"])
	out := b.cfg.Out
	if out == nil {
		out = io.Discard
	}
	_, err = io.WriteString(out, "Factory reset: the box is unclaimed again.\n")
	if err == nil {
		err = startup.WriteLine(out, startup.LabelSetupCode, code)
	}
	if err != nil {
		return fmt.Errorf("appliance: print the new setup code: %w", err)
	}
	return nil
}

// ledLoop recomputes the LED every second and after events.
func (pn *controls) ledLoop(ctx context.Context) {
	phoneEvents := pn.b.cfg.Phone.Subscribe(ctx)
	t := time.NewTicker(ledEvery)
	defer t.Stop()
	last := panel.LED(-1)
	for {
		s := pn.b.ledState(ctx)
		if s.led != last {
			pn.b.log.Debug("status LED", "led", s.led, "why", s.why)
			pn.p.SetLED(s.led)
			last = s.led
		}
		select {
		case <-ctx.Done():
			pn.p.SetLED(panel.Off)
			return
		case <-t.C:
		case <-pn.wake:
		case _, ok := <-phoneEvents:
			if !ok {
				phoneEvents = nil
			}
		}
	}
}

// ledView is what the LED shows and why.
type ledView struct {
	led panel.LED
	why string
}

// ledState decides the LED, in this order: fast blink when the box cannot
// read its store or the phone is not ready (an error the owner must fix
// at the box); slow blink while unclaimed or while a client's request
// or a client's ask waits for the owner; on when ready.
func (b *Box) ledState(ctx context.Context) ledView {
	var claimed, pending bool
	err := b.store.View(ctx, func(tx *store.Tx) error {
		_, err := tx.Owner()
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		claimed = err == nil
		if err != nil {
			return err
		}
		n, err := tx.CountPendingDeviceRequests(time.Now(), "")
		if err != nil {
			return err
		}
		asks, err := tx.CountPendingAsks(time.Now())
		pending = n > 0 || asks > 0
		return err
	})
	switch {
	case err != nil:
		return ledView{panel.FastBlink, "store: " + err.Error()}
	case !claimed:
		return ledView{panel.SlowBlink, "unclaimed"}
	}
	if st := b.cfg.Phone.State(); !st.Ready {
		return ledView{panel.FastBlink, "phone: " + string(st.Code)}
	}
	if pending {
		return ledView{panel.SlowBlink, "approval or ask waiting"}
	}
	return ledView{panel.On, "ready"}
}
