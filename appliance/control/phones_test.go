package control_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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

// A pause of one phone stops that phone's input only: an input running
// on another phone runs on, and the refusal names the paused phone. A
// pause naming no phone pauses every phone and says it was box-wide; the
// owner's box-wide pause is one Activity row and ResumeAll lifts it.
func TestPausePerPhone(t *testing.T) {
	ctx := t.Context()
	svc, _ := threePhones(t)
	c := control.Client{ID: "c", Name: "script"}
	sim1, _ := svc.On("sim-1")
	sim2, _ := svc.On("sim-2")

	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan control.Answer[api.KeyResult], 1)
	go func() {
		done <- control.Do(ctx, sim1, control.Call[api.KeyResult]{Client: c, Tool: api.ToolKey, Args: "slow", Input: true,
			Run: func(ctx context.Context) (*api.KeyResult, error) {
				close(started)
				select {
				case <-release:
					return &api.KeyResult{}, nil
				case <-ctx.Done():
					return nil, context.Cause(ctx)
				}
			}})
	}()
	<-started
	pause := svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolPause, Args: api.PauseArgs{PhoneArg: api.PhoneArg{Phone: "sim-2"}}})
	if pause.Outcome.Status != api.StatusOK {
		t.Fatalf("pause of sim-2: %+v", pause.Outcome)
	}
	close(release)
	if a := <-done; a.Status != api.StatusOK {
		t.Errorf("sim-1's input while sim-2 was paused: %+v", a.Outcome)
	}
	if sim1.Lease().Paused || !sim2.Lease().Paused {
		t.Fatalf("after pausing sim-2: sim-1 paused %v, sim-2 paused %v", sim1.Lease().Paused, sim2.Lease().Paused)
	}
	key := func(phone string) api.Outcome {
		return svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolKey, Args: api.KeyArgs{PhoneArg: api.PhoneArg{Phone: phone}, Key: "a"}}).Outcome
	}
	if out := key("sim-2"); codeOf(out) != api.CodePaused || !strings.Contains(out.Error.Message, "phone sim-2 is paused") {
		t.Errorf("input to the paused sim-2: %+v", out.Error)
	}
	if out := key("sim-3"); out.Status != api.StatusOK {
		t.Errorf("input to sim-3 while sim-2 is paused: %+v", out.Error)
	}

	if err := svc.OwnerPauseAll(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	for _, v := range svc.Views() {
		if !v.Lease().Paused || !v.Lease().PausedByOwner {
			t.Errorf("%s after the owner's box-wide pause: %+v", v.ID(), v.Lease())
		}
	}
	if out := key("sim-3"); codeOf(out) != api.CodePaused || !strings.Contains(out.Error.Message, "a pause of several phones at once") {
		t.Errorf("input during the box-wide pause: %+v", out.Error)
	}
	acts, err := svc.RecentActions(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	var boxWide int
	for _, a := range acts {
		if a.Action == "pause" && a.Actor == "owner" {
			if a.Phone != "" {
				t.Errorf("the owner's box-wide pause recorded for phone %s", a.Phone)
			}
			boxWide++
		}
	}
	if boxWide != 1 {
		t.Errorf("the owner's box-wide pause is %d Activity rows, want 1", boxWide)
	}
	if err := svc.ResumeAll(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	for _, v := range svc.Views() {
		if v.Lease().Paused {
			t.Errorf("%s is still paused after ResumeAll", v.ID())
		}
	}
	if acts, err = svc.RecentActions(ctx, 20); err != nil {
		t.Fatal(err)
	}
	var resumes []string
	for _, a := range acts {
		if a.Action == "resume" && a.Actor == "owner" {
			resumes = append(resumes, a.Phone)
		}
	}
	if len(resumes) != 1 || resumes[0] != "" {
		t.Errorf("ResumeAll's Activity rows are for phones %q, want one box-wide row", resumes)
	}

	// A client's pause naming no phone pauses them all, box-wide.
	svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolPause, Args: api.PauseArgs{}})
	if out := key("sim-1"); codeOf(out) != api.CodePaused || !strings.Contains(out.Error.Message, "a pause of several phones at once") {
		t.Errorf("input after a client's box-wide pause: %+v", out.Error)
	}
}

// A grant limited to some phones reaches only those: openlolo_phones
// lists them, a call to another is PHONE_NOT_GRANTED naming the way on,
// a call naming none goes to the grant's only phone, and a pause naming
// none pauses the grant's phones only.
func TestGrantPhones(t *testing.T) {
	ctx := t.Context()
	svc, _ := threePhones(t)
	one := control.Client{ID: "one", Name: "one phone", Phones: []string{"sim-2"}}
	two := control.Client{ID: "two", Name: "two phones", Phones: []string{"sim-1", "sim-3"}}
	call := func(c control.Client, tool api.Tool, args any) api.Outcome {
		return svc.Invoke(ctx, control.Request{Client: c, Tool: tool, Args: args}).Outcome
	}
	var listed []string
	r := svc.Phones(ctx, two, api.PhonesArgs{})
	for _, p := range r.Result.Phones {
		listed = append(listed, p.ID)
	}
	if strings.Join(listed, " ") != "sim-1 sim-3" {
		t.Errorf("openlolo_phones for a grant of sim-1 and sim-3 lists %v", listed)
	}
	out := call(two, api.ToolStatus, api.StatusArgs{PhoneArg: api.PhoneArg{Phone: "sim-2"}})
	if codeOf(out) != api.CodePhoneNotGranted || !strings.Contains(out.Error.Message, "sim-2") ||
		!strings.Contains(strings.Join(out.Error.NextSteps, " "), "sim-1, sim-3") || !strings.Contains(strings.Join(out.Error.NextSteps, " "), "Access") {
		t.Errorf("a call to a phone outside the grant: %+v", out.Error)
	}
	if out := call(two, api.ToolStatus, api.StatusArgs{}); codeOf(out) != api.CodePhoneRequired || !strings.Contains(strings.Join(out.Error.NextSteps, " "), "one of: sim-1, sim-3") {
		t.Errorf("a call naming none with a grant of two phones: %+v", out.Error)
	}
	if out := call(two, api.ToolStatus, api.StatusArgs{PhoneArg: api.PhoneArg{Phone: "sim-3"}}); out.Status != api.StatusOK {
		t.Errorf("a call to a phone of the grant: %+v", out.Error)
	}
	if out := call(one, api.ToolKey, api.KeyArgs{Key: "a"}); out.Status != api.StatusOK {
		t.Errorf("a call naming none with a grant of one phone: %+v", out.Error)
	}
	if ops, err := svc.Recent(ctx, 5); err != nil || len(ops) == 0 || ops[0].Phone != "sim-2" {
		t.Errorf("the grant of one phone's key went to %+v (%v), want sim-2", ops, err)
	}
	if out := call(two, api.ToolPause, api.PauseArgs{}); out.Status != api.StatusOK {
		t.Fatalf("pause naming none: %+v", out.Error)
	}
	for _, v := range svc.Views() {
		if want := v.ID() != "sim-2"; v.Lease().Paused != want {
			t.Errorf("%s paused %v after a pause by a grant of sim-1 and sim-3", v.ID(), v.Lease().Paused)
		}
	}
	if out := call(control.Owner(), api.ToolStatus, api.StatusArgs{PhoneArg: api.PhoneArg{Phone: "sim-2"}}); out.Status != api.StatusOK {
		t.Errorf("the owner's call: %+v", out.Error)
	}
}

// openlolo_watch keeps the events of the phones it names, and a
// grant limited to some phones sees none of the others' events.
func TestWatchPhone(t *testing.T) {
	ctx := t.Context()
	svc, _ := threePhones(t)
	all := control.Client{ID: "all", Name: "all phones"}
	limited := control.Client{ID: "lim", Name: "sim-1 only", Phones: []string{"sim-1"}}
	wait, hold := 0, 2000
	watch := func(c control.Client, a api.WatchArgs) control.Invoked {
		if a.WaitMS == nil {
			a.WaitMS = &wait
		}
		return svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolWatch, Args: a})
	}
	cursor := func(c control.Client) string {
		return watch(c, api.WatchArgs{}).Result.(*api.WatchResult).Cursor
	}
	from, fromLimited := cursor(all), cursor(limited)
	for _, id := range []string{"sim-1", "sim-2", "sim-3"} {
		v, _ := svc.On(id)
		if err := v.OwnerPause(ctx, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	phonesOf := func(out control.Invoked) []string {
		if out.Status != api.StatusOK {
			t.Fatalf("watch: %+v", out.Error)
		}
		var ids []string
		for _, e := range out.Result.(*api.WatchResult).Events {
			ids = append(ids, e.PhoneID)
		}
		return ids
	}
	// The events are written in the background: follow the watch of
	// every phone (each call held until an event comes) until sim-3's
	// pause shows.
	var got []string
	at := from
	for range 20 {
		if slices.Contains(got, "sim-3") {
			break
		}
		w := watch(all, api.WatchArgs{Cursor: at, WaitMS: &hold})
		got = append(got, phonesOf(w)...)
		at = w.Result.(*api.WatchResult).Cursor
	}
	if !slices.Contains(got, "sim-3") || !slices.Contains(got, "sim-1") {
		t.Fatalf("a watch of every phone has events of %v only", got)
	}
	if got := phonesOf(watch(all, api.WatchArgs{Cursor: from, Phones: []string{"sim-2"}})); len(got) == 0 || slices.ContainsFunc(got, func(id string) bool { return id != "sim-2" }) {
		t.Errorf("a watch of sim-2 has events of %v", got)
	}
	if got := phonesOf(watch(limited, api.WatchArgs{Cursor: fromLimited})); len(got) == 0 || slices.ContainsFunc(got, func(id string) bool { return id != "sim-1" }) {
		t.Errorf("a grant of sim-1 watches events of %v", got)
	}
	if out := watch(limited, api.WatchArgs{Phones: []string{"sim-2"}}).Outcome; codeOf(out) != api.CodePhoneNotGranted {
		t.Errorf("a grant of sim-1 watching sim-2: %+v", out)
	}
	if out := watch(all, api.WatchArgs{Phones: []string{"sim-1", "sim-9"}}).Outcome; codeOf(out) != api.CodePhoneRequired {
		t.Errorf("a watch of a phone the box lacks: %+v", out)
	}
}

// A grant limited to sim-2 hears the owner's decision on its own ask on
// sim-2 (the owner decides on the box's first view, sim-1), and the
// events of its own box-wide pause; never those of another phone.
func TestWatchAskAndBoxEventsOfALimitedGrant(t *testing.T) {
	ctx := t.Context()
	svc, _ := threePhones(t)
	c := control.Client{ID: "lim", Name: "sim-2 only", Phones: []string{"sim-2"}}
	wait, hold := 0, 2000
	watch := func(cursor string, ms *int) *api.WatchResult {
		out := svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolWatch, Args: api.WatchArgs{Cursor: cursor, WaitMS: ms}})
		if out.Status != api.StatusOK {
			t.Fatalf("watch: %+v", out.Error)
		}
		return out.Result.(*api.WatchResult)
	}
	from := watch("", &wait).Cursor
	ask := svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolLaunchApp,
		Args: api.LaunchAppArgs{BundleID: "com.apple.Preferences", InputOptions: api.InputOptions{OperationID: "22222222-2222-4222-8222-222222222222"}}})
	if ask.Outcome.Ask == nil {
		t.Fatalf("launch on sim-2: %+v, want an ask", ask.Outcome)
	}
	if _, err := svc.DecideAsk(ctx, ask.Outcome.Ask.ID, false, false); err != nil {
		t.Fatal(err)
	}
	if out := svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolPause, Args: api.PauseArgs{}}); out.Status != api.StatusOK {
		t.Fatalf("pause: %+v", out.Error)
	}
	var asks []string
	ops := 0
	at := from
	for range 20 {
		if slices.Contains(asks, "denied") && ops > 0 {
			break
		}
		w := watch(at, &hold)
		for _, e := range w.Events {
			if e.PhoneID != "" && e.PhoneID != "sim-2" {
				t.Errorf("a grant of sim-2 got an event of %s: %+v", e.PhoneID, e)
			}
			switch b := e.Body().(type) {
			case *api.AskEvent:
				asks = append(asks, b.Event)
			case *api.OperationEvent:
				if b.Tool == api.ToolPause {
					ops++
				}
			}
		}
		at = w.Cursor
	}
	if !slices.Contains(asks, "created") || !slices.Contains(asks, "denied") {
		t.Errorf("the ask's events seen by its client: %v, want created and denied", asks)
	}
	if ops == 0 {
		t.Error("the client's own box-wide pause left no operation event in its watch")
	}
}

// A grant limited to a phone the box no longer has (approved when it had
// several) watches none of the events of the one phone it has now; a
// grant of that phone sees them, without a phone id (a box of one names
// none, as before).
func TestWatchBoxOfOneLimitedGrant(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	svc, err := control.New(ctx, control.Config{Store: st, Phones: []control.Attached{{ID: "sim-1", Phone: controltest.New(nil)}}})
	if err != nil {
		t.Fatal(err)
	}
	other := control.Client{ID: "other", Name: "sim-2 only", Phones: []string{"sim-2"}}
	mine := control.Client{ID: "mine", Name: "sim-1 only", Phones: []string{"sim-1"}}
	wait, hold := 0, 2000
	watch := func(c control.Client, cursor string, ms *int) *api.WatchResult {
		out := svc.Invoke(ctx, control.Request{Client: c, Tool: api.ToolWatch, Args: api.WatchArgs{Cursor: cursor, WaitMS: ms}})
		if out.Status != api.StatusOK {
			t.Fatalf("watch: %+v", out.Error)
		}
		return out.Result.(*api.WatchResult)
	}
	fromOther, fromMine := watch(other, "", &wait).Cursor, watch(mine, "", &wait).Cursor
	if err := svc.OwnerPause(ctx, "owner"); err != nil {
		t.Fatal(err)
	}
	var seen []api.Event
	at := fromMine
	for range 10 {
		w := watch(mine, at, &hold)
		seen = append(seen, w.Events...)
		if len(seen) > 0 {
			break
		}
		at = w.Cursor
	}
	if len(seen) == 0 || seen[0].PhoneID != "" {
		t.Fatalf("a grant of the only phone watched %+v, want its control event without a phone id", seen)
	}
	if got := watch(other, fromOther, &wait).Events; len(got) != 0 {
		t.Errorf("a grant of another phone watched %+v", got)
	}
}

// A pause naming no phone from a grant that reaches none of the box's
// phones (limited to one since unplugged) is refused: answering paused
// would say the emergency stop worked when it stopped nothing.
func TestPauseOfAGrantOfNoAttachedPhone(t *testing.T) {
	ctx := t.Context()
	svc, _ := threePhones(t)
	gone := control.Client{ID: "gone", Name: "an unplugged phone's", Phones: []string{"sim-9"}}
	out := svc.Invoke(ctx, control.Request{Client: gone, Tool: api.ToolPause, Args: api.PauseArgs{}}).Outcome
	if codeOf(out) != api.CodePhoneNotGranted || !strings.Contains(out.Error.Message, "sim-9") || len(out.Error.NextSteps) == 0 {
		t.Errorf("pause by a grant of no attached phone: %+v", out)
	}
	for _, v := range svc.Views() {
		if v.Lease().Paused {
			t.Errorf("%s paused by a grant that does not reach it", v.ID())
		}
	}
}

// openlolo_phones names a phone as the owner named it on the box page,
// and the others as their backends report them; a name given to a phone
// the box has not now waits for it.
func TestPhonesNames(t *testing.T) {
	ctx := t.Context()
	svc, st := threePhones(t)
	err := st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SetPhoneName("sim-2", "Kitchen iPhone", time.Now()); err != nil {
			return err
		}
		return tx.SetPhoneName("gone-1", "Away", time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	r := svc.Phones(ctx, control.Client{ID: "c", Name: "script"}, api.PhonesArgs{})
	var got []string
	for _, p := range r.Result.Phones {
		got = append(got, p.ID+"="+p.Name)
	}
	if want := "sim-1=Fake phone sim-2=Kitchen iPhone sim-3=Fake phone"; strings.Join(got, " ") != want {
		t.Errorf("openlolo_phones names %v, want %s", got, want)
	}
}

// A store that cannot be read leaves openlolo_phones naming the phones as
// their backends report them, not failing.
func TestPhonesNamesUnreadable(t *testing.T) {
	ctx := t.Context()
	svc, st := threePhones(t)
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.SetPhoneName("sim-2", "Kitchen iPhone", time.Now()) }); err != nil {
		t.Fatal(err)
	}
	st.Close()
	r := svc.Phones(ctx, control.Client{ID: "c", Name: "script"}, api.PhonesArgs{})
	if r.Outcome.Status != api.StatusOK || len(r.Result.Phones) != 3 || r.Result.Phones[1].Name != "Fake phone" {
		t.Errorf("openlolo_phones over a closed store = %+v %+v, want every phone by its model", r.Outcome.Error, r.Result)
	}
}
