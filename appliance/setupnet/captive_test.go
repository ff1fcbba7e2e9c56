package setupnet_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/setupnet"
)

func TestCaptiveProbesOpenTheBoxPage(t *testing.T) {
	box := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "box page "+r.URL.Path) })
	c := &setupnet.Captive{Hosts: []string{"192.168.4.1", "openlolo-3f2a.local"}, Page: "http://192.168.4.1/", Box: box}
	srv := httptest.NewServer(c)
	defer srv.Close()
	// Each probe expects an exact success answer; any other answer opens
	// the OS's captive sheet. The box answers with its page instead.
	success := map[string]func(*http.Response, string) bool{
		"hotspot-detect.html": func(r *http.Response, b string) bool { return strings.Contains(b, "Success") },
		"success.html":        func(r *http.Response, b string) bool { return strings.Contains(b, "Success") },
		"generate_204":        func(r *http.Response, b string) bool { return r.StatusCode == 204 },
		"connecttest.txt":     func(r *http.Response, b string) bool { return b == "Microsoft Connect Test" },
		"ncsi.txt":            func(r *http.Response, b string) bool { return b == "Microsoft NCSI" },
		"canonical.html":      func(r *http.Response, b string) bool { return strings.Contains(b, "success") },
	}
	client := srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if len(setupnet.Probes()) < 6 {
		t.Fatalf("probes %q", setupnet.Probes())
	}
	for _, probe := range setupnet.Probes() {
		host, path, _ := strings.Cut(probe, "/")
		req, _ := http.NewRequest("GET", srv.URL+"/"+path, nil)
		req.Host = host // DNS sent the phone here
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ok := success[path[strings.LastIndex(path, "/")+1:]]
		if ok == nil {
			t.Fatalf("%s: no success rule in the test", probe)
		}
		if ok(resp, string(b)) {
			t.Errorf("%s: answered as success, the captive sheet would not open", probe)
		}
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "http://192.168.4.1/" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %s Location %q, want 302 to the box page, not cached", probe, resp.Status, resp.Header.Get("Location"))
		}
	}
	// The box's own names reach the box page.
	for _, host := range []string{"192.168.4.1", "192.168.4.1:80", "OpenLolo-3F2A.local."} {
		req, _ := http.NewRequest("GET", srv.URL+"/setup", nil)
		req.Host = host
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "box page /setup" {
			t.Errorf("Host %s: %s %q, want the box page", host, resp.Status, b)
		}
	}
}
