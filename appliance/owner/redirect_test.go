package owner

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

// boxOrigin is the page a redirect is resolved against in these tests.
const boxOrigin = "https://openlolo-ab12.local"

// location is the Location header the login handlers send for next.
func location(next string) string {
	rec := httptest.NewRecorder()
	http.Redirect(rec, httptest.NewRequest("POST", boxOrigin+"/login", nil), next, http.StatusSeeOther)
	return rec.Header().Get("Location")
}

// whatwgHost resolves ref against boxOrigin+"/login" by the steps of the
// WHATWG URL standard that decide the host (basic URL parser: trim C0
// controls and spaces, remove tabs and newlines, a special scheme's
// backslash is a slash, then scheme, authority or path), and returns the
// host it lands on.
func whatwgHost(ref string) string {
	ref = strings.TrimFunc(ref, func(r rune) bool { return r <= ' ' })
	ref = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(ref)
	if i := strings.IndexAny(ref, ":/\\?#"); i > 0 && ref[i] == ':' && isScheme(ref[:i]) {
		scheme, rest := strings.ToLower(ref[:i]), ref[i+1:]
		if scheme != "https" {
			return "(scheme " + scheme + ")"
		}
		ref = rest // the base's special scheme: relative, unless two slashes follow
	}
	if len(ref) >= 2 && (ref[0] == '/' || ref[0] == '\\') && (ref[1] == '/' || ref[1] == '\\') {
		return authority(ref[2:])
	}
	return "openlolo-ab12.local"
}

func isScheme(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

func authority(s string) string {
	if i := strings.IndexAny(s, "/\\?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "@"); i >= 0 {
		s = s[i+1:]
	}
	return strings.ToLower(s)
}

// FuzzLocalPath: whatever localPath accepts, the Location it becomes
// lands on the box itself under the browser's URL rules.
func FuzzLocalPath(f *testing.F) {
	for _, s := range redirectCorpus()[:200] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		if !localPath(next) {
			return
		}
		loc := location(next)
		if h := whatwgHost(loc); h != "openlolo-ab12.local" {
			t.Fatalf("localPath(%q) = true, Location %q lands on %q", next, loc, h)
		}
	})
}

// redirectCorpus combines the pieces open-redirect tricks are made of.
func redirectCorpus() []string {
	pieces := []string{"/", "\\", "\t", "\n", "\r", " ", "\x00", "\x0c", "%09", "%2F", "%5C", ".", "..",
		"evil.example", ":", "@", "?", "#", "https:", "javascript:", "\u3002", "%0a"}
	out := []string{""}
	var grow func(prefix string, depth int)
	grow = func(prefix string, depth int) {
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			s := prefix + p
			out = append(out, s, s+"evil.example")
			grow(s, depth-1)
		}
	}
	grow("", 3)
	return out
}

// TestLocalPathInBrowserParser runs every corpus string localPath accepts
// through Node's URL, which implements the WHATWG URL standard as browsers
// do, and checks that its Location stays on the box; and checks that the
// Go resolver the fuzz target uses agrees with Node on the whole corpus.
func TestLocalPathInBrowserParser(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (scripts/deps.sh installs it)")
	}
	corpus := redirectCorpus()
	locs := make([]string, len(corpus))
	for i, s := range corpus {
		locs[i] = s
		if localPath(s) {
			locs[i] = location(s)
		}
	}
	in, _ := json.Marshal(locs)
	cmd := exec.Command(node, "-e", `let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{
		const out=JSON.parse(d).map(s=>{try{const u=new URL(s,'`+boxOrigin+`/login');
		return u.protocol==='https:'?u.host:'(scheme '+u.protocol.slice(0,-1)+')'}catch(e){return '(invalid)'}});
		process.stdout.write(JSON.stringify(out))})`)
	cmd.Stdin = bytes.NewReader(in)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var hosts []string
	if err := json.Unmarshal(raw, &hosts); err != nil || len(hosts) != len(corpus) {
		t.Fatalf("node answered %d hosts, %v", len(hosts), err)
	}
	accepted, disagree := 0, 0
	for i, s := range corpus {
		if localPath(s) {
			accepted++
			if hosts[i] != "openlolo-ab12.local" {
				t.Errorf("localPath(%q) = true, Location %q lands on %q in a browser's parser", s, locs[i], hosts[i])
			}
		}
		if hosts[i] != "(invalid)" && !strings.HasPrefix(hosts[i], "(scheme") && whatwgHost(locs[i]) != hosts[i] &&
			(hosts[i] == "openlolo-ab12.local") != (whatwgHost(locs[i]) == "openlolo-ab12.local") {
			disagree++
			if disagree < 5 {
				t.Errorf("the fuzz target's resolver says %q lands on %q, node says %q", locs[i], whatwgHost(locs[i]), hosts[i])
			}
		}
	}
	if accepted < 100 {
		t.Errorf("only %d corpus strings were accepted: the check proves little", accepted)
	}
	t.Logf("%d strings, %d accepted, all land on the box in node's WHATWG URL", len(corpus), accepted)
}
