package control_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/store"
)

// New refuses a phone without an id, a missing phone and two phones of
// one id: calls could not name them apart.
func TestNewPhonesRefused(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	a, b := controltest.New(nil), controltest.New(nil)
	for _, phones := range [][]control.Attached{
		{{ID: "", Phone: a}},
		{{ID: "sim-1", Phone: nil}},
		{{ID: "sim-1", Phone: a}, {ID: "sim-1", Phone: b}},
	} {
		ctx, cancel := context.WithCancel(ctx)
		_, err := control.New(ctx, control.Config{Store: st, Phones: phones})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "its own id") {
			t.Errorf("New with %v: %v, want an error saying every phone needs its own id", phones, err)
		}
	}
}

// The views of a box of two phones are the phones, in order; On finds
// each and no other.
func TestViews(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	a, b := controltest.New(nil), controltest.New(nil)
	svc, err := control.New(ctx, control.Config{Store: st, Phones: []control.Attached{{ID: "p1", Phone: a}, {ID: "p2", Phone: b}}})
	if err != nil {
		t.Fatal(err)
	}
	vs := svc.Views()
	if len(vs) != 2 || vs[0].ID() != "p1" || vs[1].Phone() != b {
		t.Fatalf("views %v", vs)
	}
	if v, ok := svc.On("p2"); !ok || v.Phone() != b {
		t.Errorf("On(p2) = %v, %v", v, ok)
	}
	if _, ok := svc.On("p3"); ok {
		t.Error("On(p3) found a phone the box has not")
	}

	// A client naming no phone is told to name one; the owner (the box
	// page's live view) drives the first.
	client := control.Client{ID: "c", Name: "script"}
	for _, tc := range []struct {
		c    control.Client
		want api.Code
	}{{client, api.CodePhoneRequired}, {control.Owner(), ""}} {
		r := svc.Invoke(ctx, control.Request{Client: tc.c, Tool: api.ToolDeviceInfo, Args: api.DeviceInfoArgs{}})
		if got := codeOf(r.Outcome); got != tc.want {
			t.Errorf("%s: device info without phone: %q, want %q", tc.c.Name, got, tc.want)
		}
	}
}

func codeOf(o api.Outcome) api.Code {
	if o.Error == nil {
		return ""
	}
	return o.Error.Code
}

// openStore opens a store in a temporary directory for the test.
func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// threePhones is a control service over three test phones (sim-1 ..
// sim-3) and its store.
func threePhones(t *testing.T) (*control.Service, *store.Store) {
	t.Helper()
	st := openStore(t)
	var att []control.Attached
	for _, id := range []string{"sim-1", "sim-2", "sim-3"} {
		att = append(att, control.Attached{ID: id, Phone: controltest.New(nil)})
	}
	svc, err := control.New(t.Context(), control.Config{Store: st, Phones: att})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

// On a box of several phones Activity's rows name their phone: a read of
// one phone, a pause of one, an ask on one; the box's own tools name none.
func TestActivityNamesPhone(t *testing.T) {
	ctx := t.Context()
	svc, st := threePhones(t)
	c := control.Client{ID: "c", Name: "script"}
	svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolStatus, Args: api.StatusArgs{PhoneArg: api.PhoneArg{Phone: "sim-2"}}})
	svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolPhones, Args: api.PhonesArgs{}})
	svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolPause, Args: api.PauseArgs{PhoneArg: api.PhoneArg{Phone: "sim-3"}}})
	ask := svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolLaunchApp,
		Args: api.LaunchAppArgs{PhoneArg: api.PhoneArg{Phone: "sim-1"}, BundleID: "com.apple.Preferences", InputOptions: api.InputOptions{OperationID: "11111111-1111-4111-8111-111111111111"}}})
	if ask.Outcome.Ask == nil {
		t.Fatalf("launching Settings did not ask: %+v", ask.Outcome)
	}
	acts, err := svc.RecentActions(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range acts {
		got[a.Action+" "+a.Tool] = a.Phone
	}
	want := map[string]string{"call openlolo_status": "sim-2", "call openlolo_phones": "", "pause ": "sim-3", "ask_created ": "sim-1"}
	for k, v := range want {
		if p, ok := got[k]; !ok || p != v {
			t.Errorf("action %q: phone %q (recorded %v), want %q", k, p, ok, v)
		}
	}
	var a store.Ask
	if err := st.View(ctx, func(tx *store.Tx) error { var err error; a, err = tx.AskByID(ask.Outcome.Ask.ID); return err }); err != nil || a.Phone != "sim-1" {
		t.Errorf("the ask's phone = %q, %v; want sim-1", a.Phone, err)
	}
}
