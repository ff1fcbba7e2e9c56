package setupnet

import "testing"

// VerifyRendering has p check every page it renders against
// html/template's rendering of the same data (escaped_internal_test.go).
func VerifyRendering(t testing.TB, p *Page) { verifyRendering(t, p) }
