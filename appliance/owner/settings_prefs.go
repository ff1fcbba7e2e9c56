package owner

import (
	"context"
	"net/http"

	"github.com/openlolo/openlolo/appliance/store"
)

// prefsView is the Settings page's Preferences section: every setting the
// store declares as the owner's to choose ([store.Preferences]), drawn
// from its declaration, so a new one needs no change here.
type prefsView struct {
	CSRF  string
	Prefs []prefView
}

// prefView is one preference: its declaration and the owner's choice now.
type prefView struct {
	Name string
	store.Pref
	Chosen string // the stored choice's Value; "" for the default
}

// prefsSection reads the owner's choices.
func (p *Pages) prefsSection(ctx context.Context, csrf string) (*prefsView, error) {
	v := &prefsView{CSRF: csrf}
	err := p.st.View(ctx, func(tx *store.Tx) error {
		for _, pr := range store.Preferences() {
			c, err := pr.Choice(tx)
			if err != nil {
				return err
			}
			v.Prefs = append(v.Prefs, prefView{Name: pr.Name(), Pref: pr.Pref(), Chosen: c})
		}
		return nil
	})
	return v, err
}

// prefsPost stores the choices of POST /settings/prefs. A value that is
// not one of a preference's choices stores nothing at all and says which.
func (p *Pages) prefsPost(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	var changed []string
	err := p.st.Update(r.Context(), func(tx *store.Tx) error {
		for _, pr := range store.Preferences() {
			if _, sent := r.PostForm[pr.Name()]; !sent {
				continue
			}
			want := r.PostFormValue(pr.Name())
			was, err := pr.Choice(tx)
			if err != nil {
				return err
			}
			if want == was {
				continue
			}
			if err := pr.Choose(tx, want); err != nil {
				return &formError{err}
			}
			changed = append(changed, pr.Pref().Label+": "+choiceLabel(pr.Pref(), want))
		}
		return nil
	})
	if fe, ok := err.(*formError); ok {
		p.showSettings(w, r, http.StatusBadRequest, "", "The box kept your preferences as they were: "+fe.err.Error()+".")
		return
	}
	if err != nil {
		p.internal(w, r, "save the preferences", err)
		return
	}
	for _, c := range changed {
		p.record(r.Context(), actSettings, "changed "+c)
	}
	http.Redirect(w, r, "/settings?done=prefs#prefs", http.StatusSeeOther)
}

// formError is a choice the owner made that the store refused.
type formError struct{ err error }

func (e *formError) Error() string { return e.err.Error() }

// choiceLabel is what the page calls value.
func choiceLabel(pr store.Pref, value string) string {
	for _, c := range pr.Choices {
		if c.Value == value {
			return c.Label
		}
	}
	return value
}

// liveFPS is the owner's choice of the live view's pictures per second;
// 0 (the board's default) when unset or unreadable.
func (p *Pages) liveFPS() int {
	var n int
	err := p.st.View(context.Background(), func(tx *store.Tx) (err error) { n, err = store.LiveFPS.Get(tx); return err })
	if err != nil {
		p.log.Warn("owner: live: read the owner's pictures per second", "err", err)
		return 0
	}
	return n
}
