package owner

import (
	"net/http"
	"strings"
)

// resetWord is what the owner types to confirm a factory reset from the
// Settings page.
const resetWord = "RESET"

// factoryResetPost returns the box to unclaimed, as holding the button
// does, once the owner typed resetWord: Config.Reset when set (the box
// also announces the new setup code on its console), else FactoryReset.
func (p *Pages) factoryResetPost(w http.ResponseWriter, r *http.Request) {
	if strings.TrimSpace(r.PostFormValue("confirm")) != resetWord {
		p.showSettings(w, r, http.StatusBadRequest, "", "Type "+resetWord+" in capitals to confirm the factory reset. Nothing was reset.")
		return
	}
	var err error
	if p.cfg.Reset != nil {
		err = p.cfg.Reset(r.Context())
	} else {
		_, _, err = p.FactoryReset(r.Context())
	}
	if err != nil {
		p.internal(w, r, "reset the box", err)
		return
	}
	p.log.Warn("owner: factory reset from the Settings page", "remote", r.RemoteAddr)
	clearCookie(w, CookieName)
	http.Redirect(w, r, "/claim", http.StatusSeeOther)
}
