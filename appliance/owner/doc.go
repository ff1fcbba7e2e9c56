// Package owner serves the box page: the pages the box's owner uses in a
// browser, and the owner's claim, passphrase and sessions behind them.
//
// An unclaimed box shows only "Claim this box": the owner proves presence
// with the setup code the box printed at start (see [Pages.SetupCode]) and
// chooses a passphrase, kept as an argon2id hash. A box with a button
// (Config.Button) also takes a short press as the proof: the person
// chooses the passphrase first, and the press within two minutes confirms
// that one claim and logs in only the browser that started it.
// [Pages.FactoryReset] (the button held ten seconds) makes the box
// unclaimed again with a new setup code. The owner then logs in
// with the passphrase; the session lives in the __Host-openlolo cookie
// (Secure, HttpOnly, SameSite=Strict; 12 hours idle, 7 days at most) and
// only its SHA-256 is stored. Every POST must come from the page's own
// origin and carry the session's CSRF token (or, on the claim and login
// forms, the pre-session token).
//
// One route table (routes.go) names every path, who may call it (anyone,
// the claim and login forms, the owner's pages and assets, the owner's
// update upload) and its handler; the table's guard runs those checks
// once for every route, [net/http.CrossOriginProtection] included.
//
// The pages are Status (box, phone, live screenshot, control holder,
// pause and resume), Access (pending client requests to approve or deny,
// approved clients to revoke), Activity (recent operations), Connect (how
// to pair a script or an agent) and the OAuth consent page for the browser
// flow. They are html/template pages (templates/*.html), escaped by
// html/template at test time into templates/escaped/*.tmpl, which
// appliance/tmplexec executes (a binary 6.5 MB smaller: see tmplexec's doc).
// After editing a page, run `go test ./appliance/owner -run
// TestEscapedPages -update`; every page test renders each page both ways
// and fails on a byte of difference. The pages call no method of their
// data (render.go's funcs stand in): TestPagesReadOnlyFields checks every
// path of every page against its data's types. They work without JavaScript; a small external script (static/live.js) refreshes the
// screenshot every 2 s and reloads Access and Activity until the owner
// touches a form.
// Every answer carries a Content-Security-Policy without inline script,
// nosniff, Referrer-Policy same-origin and frame-ancestors 'none'.
package owner
