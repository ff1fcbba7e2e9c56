package phone_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openlolo/openlolo/phone"
)

func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := phone.Sleep(ctx, 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	t0 := time.Now()
	if err := phone.Sleep(ctx, time.Millisecond); err != nil {
		t.Errorf("Sleep(1ms) = %v", err)
	}
	if time.Since(t0) < time.Millisecond {
		t.Errorf("Sleep(1ms) returned after %v", time.Since(t0))
	}
	cancel()
	if err := phone.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(1h) on a cancelled ctx = %v", err)
	}
	if err := phone.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled ctx = %v", err)
	}
}
