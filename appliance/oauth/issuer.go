package oauth

import "net/http"

// Issuer is the issuer URL the server names itself with for r (no
// trailing slash): the base of its endpoints and of the MCP resource, for
// other documents of the same entry (llms.txt, the MCP server card).
func (s *Server) Issuer(r *http.Request) string { return s.issuer(r) }
