package owner_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/openlolo/openlolo/appliance/owner"
)

// TestCheckOwnerPassphraseLockOut: the setup network's passphrase check
// locks a guessing source out as the login does, without locking out
// another device, and lets it try again after the window.
func TestCheckOwnerPassphraseLockOut(t *testing.T) {
	b := newBox(t, boxOpts{})
	if err := b.pages.ClaimInPerson(context.Background(), testPass); err != nil {
		t.Fatal(err)
	}
	guesser, other := source("192.168.4.10:5000"), source("192.168.4.11:5000")
	for i := range 10 {
		ok, err := b.pages.CheckOwnerPassphrase(guesser.r(), "wrong guess number")
		if ok || err != nil {
			t.Fatalf("guess %d: %v, %v; want false, nil", i, ok, err)
		}
	}
	var le *owner.LockedError
	if ok, err := b.pages.CheckOwnerPassphrase(guesser.r(), testPass); ok || !errors.As(err, &le) || le.All {
		t.Fatalf("the right passphrase after 10 wrong ones: %v, %v; want a LockedError for this source", ok, err)
	}
	if ok, err := b.pages.CheckOwnerPassphrase(other.r(), testPass); !ok || err != nil {
		t.Fatalf("another device: %v, %v; want true", ok, err)
	}
	b.clock.Add(61 * time.Second)
	if ok, err := b.pages.CheckOwnerPassphrase(guesser.r(), testPass); !ok || err != nil {
		t.Fatalf("after the window: %v, %v; want true", ok, err)
	}
}

// source makes requests from one remote address.
type source string

func (s source) r() *http.Request {
	r := httptest.NewRequest("POST", "http://192.168.4.1/join", nil)
	r.RemoteAddr = string(s)
	return r
}
