package control_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/control/controltest"
	"github.com/openlolo/openlolo/appliance/store"
)

var settingsApp = control.Mark{Kind: api.AskApp, Subject: "com.apple.Preferences"}

func launchSettings(e *env, c control.Client, id string) control.Reply[api.LaunchAppResult] {
	return e.svc.LaunchApp(context.Background(), c, api.LaunchAppArgs{BundleID: "com.apple.Preferences",
		InputOptions: api.InputOptions{OperationID: id, Observe: &noObserve}})
}

// wantPending checks a pending ask answer: nothing dispatched, the
// operation id and an ask with its page.
func wantPending[R any](t *testing.T, a control.Answer[R], id string) *api.Ask {
	t.Helper()
	if a.Status != api.StatusPending || a.Dispatched == nil || *a.Dispatched || a.Ask == nil || a.Error != nil {
		t.Fatalf("answer %s dispatched=%v ask=%+v error=%+v, want pending with an ask", a.Status, a.Dispatched, a.Ask, a.Error)
	}
	if id != "" && a.OperationID != id {
		t.Fatalf("operation_id %q, want %q", a.OperationID, id)
	}
	if a.OperationID == "" || a.Ask.ID == "" || a.Ask.URL != "/asks/"+a.Ask.ID || a.Ask.State != api.AskPending || a.Ask.What == "" {
		t.Fatalf("pending answer %+v ask %+v", a.Outcome, a.Ask)
	}
	return a.Ask
}

// TestAskOutcomes: each way a marked call can go, on a new box's default
// marks (launching Settings asks).
func TestAskOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		e := newEnv(t, control.Limits{})
		if !e.svc.Marks().Box[settingsApp] {
			t.Fatalf("a new box's marks %v do not ask about launching Settings", e.svc.Marks().Box)
		}

		// Pending, twice: nothing reaches the phone, one ask.
		first := launchSettings(e, alice, id1)
		ask := wantPending(t, first.Answer, id1)
		if !strings.Contains(ask.What, "Settings") || ask.ExpiresMS != e.clock.Now().Add(api.AskTTL).UnixMilli() {
			t.Fatalf("ask %+v", ask)
		}
		if again := wantPending(t, launchSettings(e, alice, id1).Answer, id1); again.ID != ask.ID {
			t.Fatalf("the retry made a new ask %s, want %s", again.ID, ask.ID)
		}
		if e.ph.Inputs() != 0 {
			t.Fatalf("the phone saw %d inputs while the ask waited", e.ph.Inputs())
		}
		pend, err := e.svc.PendingAsks(ctx)
		if err != nil || len(pend) != 1 || pend[0].ID != ask.ID || pend[0].ClientName != alice.Name {
			t.Fatalf("PendingAsks = %+v, %v", pend, err)
		}

		// Other arguments under the same id: refused, the ask untouched.
		other := e.svc.LaunchApp(ctx, alice, api.LaunchAppArgs{BundleID: "com.apple.Preferences",
			InputOptions: api.InputOptions{OperationID: id1}}) // observe differs
		wantCode(t, other.Answer, api.CodeOperationConflict)

		// Allowed: the retry runs once; a second retry replays.
		if _, err := e.svc.DecideAsk(ctx, ask.ID, true, false); err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.DecideAsk(ctx, ask.ID, false, false); !errors.Is(err, control.ErrAskDecided) {
			t.Fatalf("deciding twice = %v, want ErrAskDecided", err)
		}
		ran := launchSettings(e, alice, id1)
		wantCode(t, ran.Answer, "")
		if e.ph.Inputs() == 0 || ran.Replayed {
			t.Fatalf("allowed call: %d inputs, replayed %v", e.ph.Inputs(), ran.Replayed)
		}
		inputs := e.ph.Inputs()
		replay := launchSettings(e, alice, id1)
		wantCode(t, replay.Answer, "")
		if !replay.Replayed || e.ph.Inputs() != inputs {
			t.Fatalf("second retry: replayed %v, inputs %d (want %d)", replay.Replayed, e.ph.Inputs(), inputs)
		}

		// Denied: failed ASK_DENIED, every time, nothing sent.
		ask2 := wantPending(t, launchSettings(e, alice, id2).Answer, id2)
		if _, err := e.svc.DecideAsk(ctx, ask2.ID, false, true); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			d := launchSettings(e, alice, id2)
			wantCode(t, d.Answer, api.CodeAskDenied)
			if *d.Dispatched || d.Ask == nil || d.Ask.State != api.AskDenied {
				t.Fatalf("denied answer %+v ask %+v", d.Outcome, d.Ask)
			}
		}
		if e.ph.Inputs() != inputs {
			t.Fatal("a denied call reached the phone")
		}
		// A deny's "always" changes no mark.
		if !e.svc.Marks().Asks(alice.ID, settingsApp) {
			t.Fatal("a deny turned the mark off")
		}

		// Expired: nobody decided within ten minutes.
		id3 := "33333333-3333-4333-8333-333333333333"
		ask3 := wantPending(t, launchSettings(e, alice, id3).Answer, id3)
		e.clock.Advance(api.AskTTL - time.Second)
		wantPending(t, launchSettings(e, alice, id3).Answer, id3)
		e.clock.Advance(time.Second)
		x := launchSettings(e, alice, id3)
		wantCode(t, x.Answer, api.CodeAskExpired)
		if x.Ask == nil || x.Ask.State != api.AskExpired {
			t.Fatalf("expired answer's ask %+v", x.Ask)
		}
		if _, err := e.svc.DecideAsk(ctx, ask3.ID, true, false); !errors.Is(err, control.ErrAskDecided) {
			t.Fatalf("allowing an expired ask = %v, want ErrAskDecided", err)
		}
		wantCode(t, launchSettings(e, alice, id3).Answer, api.CodeAskExpired)

		// Allowed but retried too late: expired too.
		id4 := "44444444-4444-4444-8444-444444444444"
		ask4 := wantPending(t, launchSettings(e, alice, id4).Answer, id4)
		if _, err := e.svc.DecideAsk(ctx, ask4.ID, true, false); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(api.AskTTL)
		wantCode(t, launchSettings(e, alice, id4).Answer, api.CodeAskExpired)
		if e.ph.Inputs() != inputs {
			t.Fatal("an expired call reached the phone")
		}
		if _, err := e.svc.DecideAsk(ctx, "nope", true, false); !errors.Is(err, control.ErrAskNotFound) {
			t.Fatalf("DecideAsk(nope) = %v, want ErrAskNotFound", err)
		}

		// Activity has each step as the owner's.
		acts, err := e.svc.RecentActions(ctx, 50)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, a := range acts {
			if strings.HasPrefix(a.Action, "ask_") {
				seen[a.Action]++
				if a.Actor != "owner" || a.ClientID != alice.ID || a.Detail == "" {
					t.Errorf("activity row %+v", a)
				}
			}
		}
		if seen["ask_created"] != 4 || seen["ask_allowed"] != 2 || seen["ask_denied"] != 1 || seen["ask_expired"] != 1 {
			t.Errorf("ask rows in Activity = %v", seen)
		}
	})
}

// TestAskAlways: "always for this client" turns the mark off for that
// client only, and the allowed call still runs once.
func TestAskAlways(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		e := newEnv(t, control.Limits{})
		ask := wantPending(t, launchSettings(e, alice, id1).Answer, id1)
		if _, err := e.svc.DecideAsk(ctx, ask.ID, true, true); err != nil {
			t.Fatal(err)
		}
		if e.svc.Marks().Asks(alice.ID, settingsApp) || !e.svc.Marks().Asks(bob.ID, settingsApp) {
			t.Fatalf("marks after always: %+v", e.svc.Marks())
		}
		wantCode(t, launchSettings(e, alice, id1).Answer, "")
		wantCode(t, launchSettings(e, alice, id2).Answer, "") // no ask any more
		e.svc.Control(ctx, alice, api.ControlArgs{Command: api.CommandRelease})
		wantPending(t, launchSettings(e, bob, "").Answer, "") // bob is still asked, with an id the box made

		// The exception survives a restart (it is in the store).
		e.stop()
		e.start(control.Limits{})
		if e.svc.Marks().Asks(alice.ID, settingsApp) {
			t.Fatal("the exception was lost by a restart")
		}
	})
}

// TestAskMarkKinds: opening URLs, typing and every input ask when
// marked, per client or box-wide; a client mark overrides the box.
func TestAskMarkKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		e := newEnv(t, control.Limits{})
		opts := api.InputOptions{Observe: &noObserve}
		text := "secret words"
		url := func(c control.Client) control.Answer[api.OpenURLResult] {
			return e.svc.OpenURL(ctx, c, api.OpenURLArgs{InputOptions: opts, URL: "https://example.com/x?token=1"}).Answer
		}
		typ := func(c control.Client) control.Answer[api.TypeTextResult] {
			return e.svc.TypeText(ctx, c, api.TypeTextArgs{InputOptions: opts, Text: &text}).Answer
		}
		key := func(c control.Client) control.Answer[api.KeyResult] {
			return e.svc.Key(ctx, c, api.KeyArgs{InputOptions: opts, Key: "a"}).Answer
		}
		wantCode(t, url(alice), "")
		wantCode(t, typ(alice), "")

		if err := e.svc.SetBoxMarks(ctx, []control.Mark{{Kind: api.AskURL}}); err != nil {
			t.Fatal(err)
		}
		a := wantPending(t, url(alice), "")
		if strings.Contains(a.What, "token") {
			t.Fatalf("the ask shows the URL's query: %q", a.What)
		}
		if err := e.svc.SetClientMarks(ctx, alice.ID, alice.Name, map[control.Mark]bool{{Kind: api.AskURL}: false, {Kind: api.AskText}: true}); err != nil {
			t.Fatal(err)
		}
		wantCode(t, url(alice), "")
		a = wantPending(t, typ(alice), "")
		if strings.Contains(a.What, text) || !strings.Contains(a.What, "12 characters") {
			t.Fatalf("the typing ask says %q", a.What)
		}
		wantCode(t, key(alice), "")
		if err := e.svc.SetClientMarks(ctx, alice.ID, alice.Name, map[control.Mark]bool{{Kind: api.AskInput}: true}); err != nil {
			t.Fatal(err)
		}
		wantPending(t, key(alice), "")
		// Marks not named keep their earlier setting: typing still asks.
		if !e.svc.Marks().Asks(alice.ID, control.Mark{Kind: api.AskText}) {
			t.Fatal("setting one mark dropped another")
		}
		// Pause and control are not input: never asked.
		wantCode(t, e.svc.Control(ctx, alice, api.ControlArgs{Command: api.CommandRelease}).Answer, "")
		wantCode(t, key(bob), "")

		for _, bad := range [][]control.Mark{{{Kind: "nonsense"}}, {{Kind: api.AskApp}}, {{Kind: api.AskURL, Subject: "x"}}} {
			if err := e.svc.SetBoxMarks(ctx, bad); err == nil {
				t.Errorf("SetBoxMarks(%v) accepted", bad)
			}
		}
	})
}

// TestAskEventsAndExpiry: the asking client's watch hears the ask made
// and decided; an ask nobody answers expires on its own (the LED hook
// runs each time), and other clients hear nothing.
func TestAskEventsAndExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := store.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var changed atomic.Int32 // the hook runs on the asks' own goroutine too
		svc, err := control.New(ctx, control.Config{Store: st, Phone: controltest.New(time.Now), Now: time.Now,
			AskChanged: func() { changed.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		cur := func(c control.Client) string {
			r := svc.Watch(ctx, c, api.WatchArgs{WaitMS: ptr(0)})
			return r.Result.Cursor
		}
		ca, cb := cur(alice), cur(bob)
		remote := alice
		remote.Issuer = "https://box.local"
		r := svc.LaunchApp(ctx, remote, api.LaunchAppArgs{BundleID: "Settings", InputOptions: api.InputOptions{OperationID: id1}})
		if r.Ask == nil || r.Ask.URL != "https://box.local/asks/"+r.Ask.ID {
			t.Fatalf("ask %+v", r.Ask)
		}
		time.Sleep(api.AskTTL + time.Second)
		synctest.Wait()
		if n, _ := svc.PendingAsks(ctx); len(n) != 0 {
			t.Fatalf("%d asks still pending after their time", len(n))
		}
		if n := changed.Load(); n != 2 {
			t.Fatalf("AskChanged ran %d times, want 2 (created, expired)", n)
		}
		w := svc.Watch(ctx, alice, api.WatchArgs{Cursor: ca, WaitMS: ptr(0)})
		var got []string
		for _, ev := range w.Result.Events {
			if ev.Kind == api.KindAsk {
				got = append(got, ev.Ask.Event)
				if ev.Ask.AskID != r.Ask.ID || ev.Ask.OperationID != id1 || ev.Ask.Tool != api.ToolLaunchApp {
					t.Errorf("ask event %+v", ev.Ask)
				}
			}
		}
		if strings.Join(got, ",") != "created,expired" {
			t.Fatalf("alice's ask events = %v, want created,expired", got)
		}
		for _, ev := range svc.Watch(ctx, bob, api.WatchArgs{Cursor: cb, WaitMS: ptr(0)}).Result.Events {
			if ev.Kind == api.KindAsk {
				t.Fatalf("bob heard alice's ask: %+v", ev)
			}
		}
		x := svc.LaunchApp(ctx, alice, api.LaunchAppArgs{BundleID: "Settings", InputOptions: api.InputOptions{OperationID: id1}})
		wantCode(t, x.Answer, api.CodeAskExpired)
	})
}

// TestAskOpenLink: a deep link is asked about as launching its app when
// the app is marked, else as opening a URL.
func TestAskOpenLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		e := newEnv(t, control.Limits{})
		link := func(q string) control.Answer[api.OpenLinkResult] {
			return e.svc.OpenLink(ctx, alice, api.OpenLinkArgs{InputOptions: api.InputOptions{Observe: &noObserve},
				BundleID: "com.apple.Maps", Link: "search", Params: params(`{"query":"` + q + `"}`)}).Answer
		}
		wantCode(t, link("a"), "")
		if err := e.svc.SetBoxMarks(ctx, []control.Mark{{Kind: api.AskApp, Subject: "com.apple.Maps"}}); err != nil {
			t.Fatal(err)
		}
		a := wantPending(t, link("b"), "")
		if !strings.Contains(a.What, "Maps") || !strings.Contains(a.What, "search") {
			t.Fatalf("the ask says %q", a.What)
		}
		if err := e.svc.SetBoxMarks(ctx, []control.Mark{{Kind: api.AskURL}}); err != nil {
			t.Fatal(err)
		}
		wantPending(t, link("c"), "")
	})
}
