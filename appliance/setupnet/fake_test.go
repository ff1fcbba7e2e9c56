package setupnet_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

// router is a network the fake radio can see.
type router struct {
	pass      string
	dhcp      bool // hands out an address
	answering bool // the gateway answers
}

// fakeRadio is a radio in a world of routers: it keeps saved networks like
// wpa_supplicant does, and records what was asked of it.
type fakeRadio struct {
	mu      sync.Mutex
	world   map[string]router
	saved   []string // networks kept
	trying  string   // network added by Join, not yet kept
	apOpen  bool
	calls   []string
	nextID  int
	openErr error
}

func newFakeRadio(world map[string]router, saved ...string) *fakeRadio {
	return &fakeRadio{world: world, saved: saved}
}

func (f *fakeRadio) log(s string) { f.calls = append(f.calls, s) }

func (f *fakeRadio) OpenAP(ctx context.Context, ap setupnet.AP) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("open " + ap.SSID)
	if f.openErr != nil {
		return f.openErr
	}
	f.apOpen = true
	return nil
}

func (f *fakeRadio) CloseAP(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("close")
	f.apOpen = false
	return nil
}

func (f *fakeRadio) Join(ctx context.Context, n setupnet.Network) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("join " + n.SSID)
	if f.apOpen {
		return "", errors.New("fake: the radio is in AP mode")
	}
	f.nextID++
	id := fmt.Sprint(f.nextID)
	f.trying = n.SSID
	r, ok := f.world[n.SSID]
	switch {
	case !ok:
		return id, &setupnet.JoinError{Reason: setupnet.ReasonNotFound, Err: errors.New("fake: CTRL-EVENT-NETWORK-NOT-FOUND")}
	case r.pass != n.Passphrase:
		return id, &setupnet.JoinError{Reason: setupnet.ReasonWrongPassword, Err: errors.New("fake: reason=WRONG_KEY")}
	}
	return id, nil
}

func (f *fakeRadio) Link(ctx context.Context) (setupnet.Link, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.world[f.trying]
	var l setupnet.Link
	if r.dhcp {
		l.Addr = netip.MustParsePrefix("192.168.1.23/24")
		l.Gateway = netip.MustParseAddr("192.168.1.1")
		l.GatewayAnswers = r.answering
	}
	return l, nil
}

func (f *fakeRadio) Keep(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("keep " + f.trying)
	f.saved = append(f.saved, f.trying)
	f.trying = ""
	return nil
}

func (f *fakeRadio) Forget(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log("forget " + f.trying)
	f.trying = ""
	return nil
}

func (f *fakeRadio) state() (calls, saved []string, apOpen bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls), slices.Clone(f.saved), f.apOpen
}
