package owner

import "strings"

// browserName names the browser a User-Agent header describes, as the
// owner would: "Chrome 156 on Linux", "Safari 18 on iPhone". A header it
// cannot read is named by its first product ("curl 8.5.0"), or "an
// unknown browser" when there is none.
func browserName(ua string) string {
	// The products that name a browser, most specific first: Edge, Opera
	// and Samsung Internet also say Chrome and Safari; Chrome also says
	// Safari.
	browsers := [...]struct{ token, name, unless string }{
		{token: "Edg/", name: "Edge"},
		{token: "EdgA/", name: "Edge"},
		{token: "EdgiOS/", name: "Edge"},
		{token: "OPR/", name: "Opera"},
		{token: "SamsungBrowser/", name: "Samsung Internet"},
		{token: "Firefox/", name: "Firefox"},
		{token: "FxiOS/", name: "Firefox"},
		{token: "CriOS/", name: "Chrome"},
		{token: "HeadlessChrome/", name: "Headless Chrome"},
		{token: "Chromium/", name: "Chromium"},
		{token: "Chrome/", name: "Chrome"},
		{token: "Version/", name: "Safari", unless: "Android"},
	}
	// The systems, most specific first (an iPhone's header also says
	// "like Mac OS X"; Android's says Linux).
	systems := [...]struct{ token, name string }{
		{"iPhone", "iPhone"}, {"iPad", "iPad"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
		{"Windows", "Windows"}, {"Macintosh", "macOS"}, {"Linux", "Linux"},
	}
	name := ""
	for _, b := range browsers {
		if v, ok := uaVersion(ua, b.token); ok && (b.unless == "" || !strings.Contains(ua, b.unless)) {
			name = b.name + " " + v
			break
		}
	}
	if name == "" {
		first, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
		if first == "" {
			return "an unknown browser"
		}
		name = strings.Replace(first, "/", " ", 1)
	}
	for _, o := range systems {
		if strings.Contains(ua, o.token) {
			return name + " on " + o.name
		}
	}
	return name
}

// uaVersion is the major version after token in ua ("156" of
// "Chrome/156.0.7000.1").
func uaVersion(ua, token string) (string, bool) {
	i := strings.Index(ua, token)
	if i < 0 {
		return "", false
	}
	v := ua[i+len(token):]
	if j := strings.IndexAny(v, ". ;)"); j >= 0 {
		v = v[:j]
	}
	return v, v != ""
}
