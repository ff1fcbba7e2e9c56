package owner

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/openlolo/openlolo/appliance/control"
)

// liveBoundary separates the stream's pictures.
const liveBoundary = "openlolo-frame"

// livePartHead is what ends each picture of the stream and opens the
// next one: the boundary and the next part's headers together. Chromium
// shows a part of multipart/x-mixed-replace only once it has read the
// next part's headers (its multipart image parser hands the finished
// part to the image when the next part begins), so a stream that wrote
// only the boundary after a picture kept showing the picture before it
// until the screen changed again: after the owner's own input the live
// view stayed one step behind for seconds. The next part's length is not
// known yet, so parts carry no Content-Length; readers find a part's end
// by the boundary, as multipart/x-mixed-replace is defined.
const livePartHead = "--" + liveBoundary + "\r\nContent-Type: image/jpeg\r\n\r\n"

// liveWriteTimeout cuts a stream whose viewer stopped reading.
const liveWriteTimeout = 10 * time.Second

// liveSessionCheck is how often an open stream checks that its owner
// session still holds (a logout elsewhere ends it).
const liveSessionCheck = 30 * time.Second

// liveStream serves GET /status/live.mjpeg: the phone's screen as MJPEG
// (multipart/x-mixed-replace), which an <img> shows without JavaScript.
// A picture is sent only when the screen changed, at most LiveOptions.FPS
// a second and within the stream's byte rate; the box captures only while
// a stream is open and frees the viewer when the request ends.
func (p *Pages) liveStream(w http.ResponseWriter, r *http.Request) {
	pp, ok := p.pick(r)
	if !ok {
		http.Error(w, noPhone(r), http.StatusNotFound)
		return
	}
	live := pp.live
	if live == nil {
		http.Error(w, "No phone is attached to the box.", http.StatusServiceUnavailable)
		return
	}
	s, _ := sessionFrom(r.Context())
	v, err := live.join(string(s.idHash))
	if errors.Is(err, errLiveEnded) {
		http.Error(w, "The box is stopping; reload the page once it is back.", http.StatusServiceUnavailable)
		return
	}
	if err != nil {
		w.Header().Set("Retry-After", "10")
		text := "The box already streams the phone to as many viewers as it allows; close another page that shows it, or use the still picture at /status/screen.jpg."
		if errors.Is(err, errLiveSessionFull) {
			text = "This browser already watches the phone in " + strconv.Itoa(live.opt.PerSession) + " tabs; close one of them to watch here."
		}
		http.Error(w, text, http.StatusTooManyRequests)
		return
	}
	defer live.leave(v)

	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "multipart/x-mixed-replace; boundary="+liveBoundary)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The boundary and the next part's headers end each picture, so a
	// browser shows it at once rather than when the next one starts
	// (livePartHead).
	if _, err := w.Write([]byte(livePartHead)); err != nil {
		return
	}
	rc.Flush()

	bud := newBudget(live.opt.ViewerRate, time.Now())
	check := time.NewTicker(liveSessionCheck)
	defer check.Stop()
	ctx := r.Context()
	for {
		var fr *liveFrame
		select {
		case <-ctx.Done():
			return
		case <-live.ended:
			return
		case <-check.C:
			if _, err := p.lookupSession(r); err != nil {
				return
			}
			continue
		case fr = <-v.frames:
		}
		if d := bud.wait(len(fr.jpeg), time.Now()); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			select { // a newer picture came meanwhile: send that one
			case fr = <-v.frames:
			default:
			}
		}
		bud.spend(len(fr.jpeg), time.Now())
		rc.SetWriteDeadline(time.Now().Add(liveWriteTimeout))
		if _, err := w.Write(fr.jpeg); err != nil {
			return
		}
		if _, err := w.Write([]byte("\r\n" + livePartHead)); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		// No deadline while the stream waits for the next picture: over
		// HTTP/2 an expired write deadline resets the stream even when
		// nothing is being written, which ended every stream 10 s after
		// the screen last changed (the page's script then fell back to a
		// still picture a second; the browser suite's live step shows it).
		rc.SetWriteDeadline(time.Time{})
	}
}

// EndStreams ends every open live stream at once and refuses new ones:
// the box calls it when it stops, so a page left open does not hold up
// the servers' shutdown.
func (p *Pages) EndStreams() {
	for _, pp := range p.phones {
		if pp.live != nil {
			pp.live.end()
		}
	}
}

// controlView is Status's control block (template "control"): who holds
// control, the pause, and the forms that fit them.
type controlView struct {
	Lease    control.LeaseState
	State    string // controlStateWord of Lease: data-control-state
	CanDrive bool   // the owner can drive the phone (Take over)
	CSRF     string
	Phone    string // the phone's id on a box of several: the forms name it
}

// controlView is the control block for the session whose form token is
// csrf; the zero view when the box has no control service.
func (p *Pages) controlView(pp *pagePhone, csrf string) controlView {
	if pp.control == nil {
		return controlView{State: controlStateWord("", false, false)}
	}
	l := pp.control.Lease()
	return controlView{Lease: l, State: controlStateWord(l.Name, l.Owner(), l.Paused), CanDrive: pp.driver != nil, CSRF: csrf, Phone: pp.id}
}

// controlState is GET /status/control.json: who holds control, and the
// control block as Status draws it now, which the page's script puts in
// place of its own when they differ (so Give control back shows as soon
// as the owner's tap takes control, not after a reload).
type controlState struct {
	Holder string `json:"holder"` // "" when nobody holds control
	Owner  bool   `json:"owner"`  // the owner holds it
	Paused bool   `json:"paused"`
	State  string `json:"state"` // the page's data-control-state for this
	HTML   string `json:"html"`  // the control block; "" without a control service
}

func (p *Pages) controlJSON(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	pp, ok := p.pick(r)
	if !ok {
		http.Error(w, noPhone(r), http.StatusNotFound)
		return
	}
	v := p.controlView(pp, s.csrf)
	cs := controlState{Holder: v.Lease.Name, Owner: v.Lease.Owner(), Paused: v.Lease.Paused, State: v.State}
	if pp.control != nil {
		var buf bytes.Buffer
		if err := p.execute(&buf, "status", "control", v); err != nil {
			p.log.Error("owner: render the control block", "err", err)
			http.Error(w, "The box could not draw the control block; see its log.", http.StatusInternalServerError)
			return
		}
		cs.HTML = buf.String()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(cs)
}

// controlStateWord is the control state in one word per case the page
// shows differently.
func controlStateWord(holder string, owner, paused bool) string {
	s := "free"
	switch {
	case owner:
		s = "owner"
	case holder != "":
		s = "agent:" + holder
	}
	if paused {
		s += ",paused"
	}
	return s
}
