package owner

import (
	"net/http"
)

// activityRows is how many operations the Activity page lists.
const activityRows = 100

// activityPage is the Activity page.
type activityPage struct {
	basePage
	HasControl bool
	Rows       []Activity
}

func (p *Pages) activityPage(w http.ResponseWriter, r *http.Request) {
	s, _ := sessionFrom(r.Context())
	ap := &activityPage{basePage: basePage{Title: "Activity", Nav: "activity", CSRF: s.csrf, LoggedIn: true, Script: true, Reload: 15}}
	if p.cfg.Control != nil {
		ap.HasControl = true
		rows, err := p.cfg.Control.Recent(r.Context(), activityRows)
		if err != nil {
			p.internal(w, r, "read recent operations", err)
			return
		}
		ap.Rows = rows
	}
	p.render(w, r, http.StatusOK, "activity", ap)
}
