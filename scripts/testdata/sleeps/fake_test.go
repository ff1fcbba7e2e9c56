package sleeps

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestSleeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Hour) // the bubble's clock: not counted
	})
	time.Sleep(time.Second) // real wait: a subprocess
	// The browser paints on its own clock.
	//
	// real wait: a browser
	time.Sleep(time.Second)
}

func TestBare(t *testing.T) {
	time.Sleep(time.Second)
}

func TestAfter(t *testing.T) {
	<-time.After(time.Second)
	select {
	case <-time.After(time.Second): // a timeout, not a sleep
	default:
	}
}
