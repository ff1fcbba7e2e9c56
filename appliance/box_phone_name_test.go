package appliance_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance"
	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/owner/ownertest"
)

// The owner names phones on the real box's Status, as serve --sims 3 and
// serve on one phone run it: each by its id (the box's one phone too).
func TestBoxPhoneNames(t *testing.T) {
	t.Parallel()
	var sims []control.Attached
	for i := range 3 {
		sims = append(sims, control.Attached{ID: fmt.Sprintf("sim-%d", i+1), Phone: simPhone(t)})
	}
	for _, tc := range []struct {
		cfg          appliance.Config
		phone, label string
	}{
		{appliance.Config{Phones: sims}, "sim-2", "Kitchen iPhone (sim-2)"},
		{appliance.Config{}, "", `<span id="phone-name">Kitchen iPhone</span>`},
	} {
		r := start(t, tc.cfg)
		c, base := browser(t, r)
		ownertest.Claim(t, c, base, r.field(t, "Setup code"), "correct horse battery staple")
		form := url.Values{"csrf": {ownertest.CSRF(t, c, base)}, "name": {"Kitchen iPhone"}}
		if tc.phone != "" {
			form.Set("phone", tc.phone)
		}
		res, body := ownertest.PostForm(t, c, base, "/status/name", form)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, tc.label) {
			t.Errorf("%d phones: naming %q = %d: %s", len(tc.cfg.Phones), tc.phone, res.StatusCode, ownertest.Text(body))
		}
	}
}
