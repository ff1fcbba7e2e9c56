package sdk

import "testing"

// Issue 22 item 11: pair showed the box's plain http:// link.
func TestOnEntry(t *testing.T) {
	t.Parallel()
	tests := []struct{ box, link, want string }{
		{"https://openlolo-1a2b.local", "http://openlolo-1a2b.local/access?r=AbC", "https://openlolo-1a2b.local/access?r=AbC"},
		{"https://127.0.0.1:8443", "http://127.0.0.1:8080/access?r=x%2By", "https://127.0.0.1:8443/access?r=x%2By"},
		{"https://openlolo-1a2b.tail.ts.net", "https://openlolo-1a2b.tail.ts.net/access?r=q", "https://openlolo-1a2b.tail.ts.net/access?r=q"},
		{"https://openlolo-1a2b.local", "", ""},
		{"https://openlolo-1a2b.local", "http://%zz", "http://%zz"},
	}
	for _, tt := range tests {
		if got := onEntry(tt.box, tt.link); got != tt.want {
			t.Errorf("onEntry(%q, %q) = %q, want %q", tt.box, tt.link, got, tt.want)
		}
	}
}
