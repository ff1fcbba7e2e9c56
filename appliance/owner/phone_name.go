package owner

import (
	"errors"
	"net/http"
	"strings"

	"github.com/openlolo/openlolo/appliance/store"
)

// nameForm is the Status page's form naming the phone shown.
type nameForm struct {
	Saved string // the stored name; "" when the phone has none
	Value string // the name in the field: Saved, or the one refused
	// Code and Error say why the box refused Value (a
	// store.CodePhoneName... code and a sentence); "" when it did not.
	Code, Error string
	MaxLen      int // the longest name the field takes, in characters
}

// namePost handles POST /status/name: the owner names the phone the form
// names (the box's one phone when none), or gives it back its backend's
// name with an empty one. A refused name stores nothing; the page says
// why, with its code, and keeps what the owner typed.
func (p *Pages) namePost(w http.ResponseWriter, r *http.Request) {
	pp, ok := p.pick(r)
	if !ok {
		p.message(w, r, http.StatusNotFound, "No such phone", noPhone(r), "Status", "/status")
		return
	}
	if pp.key == "" {
		p.message(w, r, http.StatusConflict, "Not available",
			"The box does not know this phone's id, so it cannot keep a name for it.", "Status", "/status")
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	err := p.st.Update(r.Context(), func(tx *store.Tx) error { return tx.SetPhoneName(pp.key, name, p.now()) })
	var ne *store.PhoneNameError
	if errors.As(err, &ne) {
		p.showStatus(w, r, http.StatusBadRequest, pp, &nameForm{Value: name, Code: ne.Code,
			Error: "The phone keeps its name: " + ne.Msg + "."})
		return
	}
	if err != nil {
		p.internal(w, r, "name the phone", err)
		return
	}
	done, detail := "named", "named phone "+pp.key+" "+quoted(name)
	if name == "" {
		done, detail = "unnamed", "gave phone "+pp.key+" back the name its backend reports"
	}
	p.log.Info("owner: phone "+done, "phone", pp.key, "name", name)
	p.record(r.Context(), actSettings, detail)
	http.Redirect(w, r, pp.statusPath("done="+done), http.StatusSeeOther)
}
