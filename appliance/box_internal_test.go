package appliance

import (
	"context"
	"image"
	"net/http"
	"testing"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/store"
	"github.com/openlolo/openlolo/hw/sim"
)

// The box page pauses and resumes input through the adapter, and sees the
// lease as the control service keeps it.
func TestControllerAdapter(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ph, err := sim.New(sim.Options{Size: image.Pt(300, 600)})
	if err != nil {
		t.Fatal(err)
	}
	defer ph.Close()
	svc, err := control.New(ctx, control.Config{Store: st, Phone: ph})
	if err != nil {
		t.Fatal(err)
	}
	c := controller{s: svc}
	if c.Lease().Paused {
		t.Fatalf("a new service is paused")
	}
	if err := c.Pause(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	if l := c.Lease(); !l.Paused || !l.PausedByOwner || l.PausedBy != "owner" || l.PausedAt.IsZero() {
		t.Errorf("Lease() = %+v after the owner's Pause, want paused by the owner with a time", l)
	}
	if err := c.Resume(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	if c.Lease().Paused {
		t.Errorf("Lease().Paused = true after Resume")
	}
	acts, err := c.Recent(ctx, 10)
	// No operations; the owner's pause and resume, newest first.
	if err != nil || len(acts) != 2 || acts[0].Action != "resume" || acts[1].Action != "pause" ||
		acts[0].Client != "owner" || acts[1].Client != "owner" || acts[0].Tool != "" {
		t.Errorf("Recent after the owner's pause and resume = %+v, %v", acts, err)
	}
}

func TestVerificationURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		httpAddr, host, want string
	}{
		{"", "openlolo-ab12.local", "https://openlolo-ab12.local/access?r=h%2F1"},
		{"", "127.0.0.1:8443", "https://127.0.0.1:8443/access?r=h%2F1"},
		{":80", "openlolo-ab12.local", "http://openlolo-ab12.local/access?r=h%2F1"},
		{":80", "[fd00::2]:443", "http://[fd00::2]/access?r=h%2F1"},
		{"127.0.0.1:8080", "127.0.0.1:8443", "http://127.0.0.1:8080/access?r=h%2F1"},
	}
	for _, tt := range tests {
		b := &Box{cfg: Config{HTTPAddr: tt.httpAddr}}
		r, _ := http.NewRequest("POST", "https://x/oauth/device_authorization", nil)
		r.Host = tt.host
		if got := b.verificationURI(r, "h/1"); got != tt.want {
			t.Errorf("verificationURI(HTTPAddr %q, Host %q) = %q, want %q", tt.httpAddr, tt.host, got, tt.want)
		}
	}
}
