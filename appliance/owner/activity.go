package owner

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openlolo/openlolo/appliance/store"
)

const (
	// activityScan is how many of the newest operations and actions the
	// Activity page reads to filter and page through.
	activityScan = 2000
	// activityRows is how many rows one Activity page lists.
	activityRows = 50
)

// activityPage is the Activity page.
type activityPage struct {
	basePage
	HasControl bool
	Rows       []activityRow
	Filter     activityFilter
	Clients    []string     // every client (and "owner") in the rows read, for the filter
	Phones     []namedPhone // the box's phones when it has several: the filter and a column
	Names      phoneNames   // labels the rows' phones
	Runs       []runOption
	Outcomes   []string
	Page       int    // 1-based
	Prev, Next string // links to the neighbouring pages; "" when none
	Total      int    // rows matching the filter
	Zone       string // the box's time zone, as the times show it
	Retention  string
}

// activityRow is one Activity row, with the run header before the first
// row of each run's group.
type activityRow struct {
	Activity
	RunHeader bool
}

// activityFilter is the Activity page's query: client, outcome, run and
// phone.
type activityFilter struct{ Client, Outcome, Run, Phone string }

// Any reports whether the filter leaves anything out.
func (f activityFilter) Any() bool { return f != activityFilter{} }

func (f activityFilter) match(a Activity) bool {
	return (f.Client == "" || a.Client == f.Client) &&
		(f.Phone == "" || a.Phone == f.Phone) &&
		(f.Outcome == "" || a.Outcome == f.Outcome) &&
		(f.Run == "" || a.RunID == f.Run)
}

func (f activityFilter) query(page int) string {
	v := url.Values{}
	for k, s := range map[string]string{"client": f.Client, "outcome": f.Outcome, "run": f.Run, "phone": f.Phone} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/activity"
	}
	return "/activity?" + v.Encode()
}

type runOption struct{ ID, Title string }

// activityOutcomes are the outcomes the filter offers.
var activityOutcomes = []string{"succeeded", "failed", "ok", "pending", "cancelled", "outcome_unknown", "queued", "dispatched", "done"}

func (p *Pages) activityPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	q := r.URL.Query()
	ap := &activityPage{basePage: basePage{Title: "Activity", Nav: "activity", CSRF: s.csrf, LoggedIn: true, Script: true, Reload: 15},
		Filter:   activityFilter{Client: q.Get("client"), Outcome: q.Get("outcome"), Run: q.Get("run"), Phone: q.Get("phone")},
		Phones:   p.namedPhones(r.Context()),
		Outcomes: activityOutcomes, Zone: zoneName(p.now().Local()), Retention: retention()}
	if ap.Phones != nil {
		ap.Names = p.phoneNames(r.Context())
	}
	ap.Page, _ = strconv.Atoi(q.Get("page"))
	ap.Page = max(ap.Page, 1)
	if p.cfg.Control != nil {
		ap.HasControl = true
		all, err := p.cfg.Control.Recent(r.Context(), activityScan)
		if err != nil {
			p.internal(w, r, "read recent operations", err)
			return
		}
		seenRun := map[string]bool{}
		var rows []Activity
		for _, a := range all {
			if !slices.Contains(ap.Clients, a.Client) {
				ap.Clients = append(ap.Clients, a.Client)
			}
			if a.RunID != "" && !seenRun[a.RunID] {
				seenRun[a.RunID] = true
				ap.Runs = append(ap.Runs, runOption{ID: a.RunID, Title: a.RunTitle})
			}
			if ap.Filter.match(a) {
				rows = append(rows, a)
			}
		}
		slices.Sort(ap.Clients)
		ap.Total = len(rows)
		start := (ap.Page - 1) * activityRows
		if start > len(rows) {
			start = len(rows)
		}
		end := min(start+activityRows, len(rows))
		for i, a := range rows[start:end] {
			head := a.RunID != "" && (i == 0 || rows[start+i-1].RunID != a.RunID)
			ap.Rows = append(ap.Rows, activityRow{Activity: a, RunHeader: head})
		}
		if ap.Page > 1 {
			ap.Prev = ap.Filter.query(ap.Page - 1)
		}
		if end < len(rows) {
			ap.Next = ap.Filter.query(ap.Page + 1)
		}
	}
	p.render(w, r, http.StatusOK, "activity", ap)
}

// activityThumb serves the thumbnail of the screen after operation id's
// input (of the client in ?client=; without it, of the newest operation
// with that id): what the Status page showed then. A thumbnail never
// changes, so the owner's browser may keep it.
func (p *Pages) activityThumb(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var th store.Thumb
	err := p.st.View(r.Context(), func(tx *store.Tx) error {
		var err error
		th, err = tx.OperationThumb(r.URL.Query().Get("client"), id)
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		http.Error(w, "No screen was kept for this entry (it had no observation, or it was pruned).", http.StatusNotFound)
		return
	case err != nil:
		p.log.Warn("owner: read a thumbnail", "op", id, "err", err)
		http.Error(w, "The box could not read the thumbnail.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "private, max-age=86400, immutable")
	w.Header().Set("Content-Length", strconv.Itoa(len(th.JPEG)))
	w.Write(th.JPEG)
}

// zoneName is the box's time zone as the page names it: its abbreviation
// and offset from UTC ("CET (UTC+01:00)"), the offset alone where the
// abbreviation is one ("+03", a zone without a name), and "UTC" for UTC
// (not "UTC (UTC+00:00)").
func zoneName(now time.Time) string {
	name, off := now.Zone()
	offset := fmt.Sprintf("UTC%+03d:%02d", off/3600, abs(off%3600)/60)
	switch {
	case off == 0 && (name == "UTC" || name == "GMT" || name == "Z" || name == ""):
		return "UTC"
	case name == "" || strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-"):
		return offset
	}
	return name + " (" + offset + ")"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// retention says how long Activity's history is kept.
func retention() string {
	return fmt.Sprintf("Kept for %d days: at most %d operations and %d other entries (owner actions, reads, refused calls); older ones are deleted.",
		int(store.KeepAge/(24*time.Hour)), store.KeepOperations, store.KeepActions)
}
