package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/oauth"
	"github.com/openlolo/openlolo/appliance/tmplexec"
)

// Where the discovery documents are served. The server card's path is
// SEP-2127's (/.well-known/mcp/server-card); the same card is also served
// with a .json suffix, the name earlier drafts and clients use.
const (
	LLMsTxtPath       = "/llms.txt"
	ServerCardPath    = "/.well-known/mcp/server-card"
	ServerCardPathAlt = ServerCardPath + ".json"
	// ServerCardSchema is the card's $schema in SEP-2127 as it stands.
	ServerCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// DiscoveryRoutes registers /llms.txt and the MCP server card on mux.
// issuer gives the entry's issuer (https://host, no trailing slash) for a
// request, as the OAuth server of that entry names itself. Both documents
// are public and are made from the same catalog as tools/list.
func (h *Handler) DiscoveryRoutes(mux *http.ServeMux, issuer func(*http.Request) string) {
	mux.HandleFunc("GET "+LLMsTxtPath, func(w http.ResponseWriter, r *http.Request) {
		b, err := h.LLMsTxt(issuer(r))
		if err != nil {
			h.log.Error("mcp: render llms.txt", "err", err)
			http.Error(w, "The box could not render llms.txt; see its log.", http.StatusInternalServerError)
			return
		}
		discoveryHeaders(w, "text/plain; charset=utf-8")
		w.Write(b)
	})
	card := func(w http.ResponseWriter, r *http.Request) {
		b, err := json.MarshalIndent(h.ServerCard(issuer(r)), "", "  ")
		if err != nil {
			h.log.Error("mcp: encode the server card", "err", err)
			http.Error(w, "The box could not encode its server card; see its log.", http.StatusInternalServerError)
			return
		}
		discoveryHeaders(w, "application/json")
		w.Write(append(b, '\n'))
	}
	mux.HandleFunc("GET "+ServerCardPath, card)
	mux.HandleFunc("GET "+ServerCardPathAlt, card)
}

// discoveryHeaders: public documents any browser-based client may read
// (SEP-2127's CORS), cached briefly (the tools follow the box's version).
func discoveryHeaders(w http.ResponseWriter, contentType string) {
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET")
	hd.Set("Access-Control-Allow-Headers", "Content-Type")
	hd.Set("Cache-Control", "public, max-age=300")
	hd.Set("X-Content-Type-Options", "nosniff")
}

// ServerCard is an MCP server card (SEP-2127, draft): who the server is,
// where and how to connect, and its tools as tools/list gives them.
type ServerCard struct {
	Schema       string                 `json:"$schema"`
	Name         string                 `json:"name"`
	Version      string                 `json:"version"`
	Title        string                 `json:"title,omitempty"`
	Description  string                 `json:"description,omitempty"`
	Remotes      []CardRemote           `json:"remotes"`
	Capabilities sdk.ServerCapabilities `json:"capabilities"`
	Tools        []*sdk.Tool            `json:"tools"`
	Meta         map[string]any         `json:"_meta,omitempty"`
}

// CardRemote is one way to reach the server over HTTP.
type CardRemote struct {
	Type                      string          `json:"type"`
	URL                       string          `json:"url"`
	SupportedProtocolVersions []string        `json:"supportedProtocolVersions"`
	Authentication            *CardAuthScheme `json:"authentication,omitempty"`
}

// CardAuthScheme says whether a remote needs credentials and which.
type CardAuthScheme struct {
	Required bool     `json:"required"`
	Schemes  []string `json:"schemes"`
}

// CardName is the server card's reverse-DNS name (the module's home).
const CardName = "io.github.openlolo/openlolo"

// ServerCard returns the card for the entry whose issuer is iss.
func (h *Handler) ServerCard(iss string) ServerCard {
	info := h.info()
	tools := make([]*sdk.Tool, 0, len(h.list))
	for _, t := range h.offeredTools() {
		tools = append(tools, t.sdkTool())
	}
	// In tools/list's order (the SDK sorts by name).
	slices.SortFunc(tools, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	return ServerCard{
		Schema:      ServerCardSchema,
		Name:        CardName,
		Version:     cardVersion(info.Version),
		Title:       "openlolo phone box " + info.Name,
		Description: summary,
		Remotes: []CardRemote{{
			Type: "streamable-http", URL: iss + "/mcp",
			SupportedProtocolVersions: sdk.SupportedProtocolVersions(),
			Authentication:            &CardAuthScheme{Required: true, Schemes: []string{"oauth2", "bearer"}},
		}},
		Capabilities: sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: false}},
		Tools:        tools,
		Meta: map[string]any{"openlolo.mcp/discovery": map[string]string{
			"llms_txt":             iss + LLMsTxtPath,
			"protected_resource":   iss + "/.well-known/oauth-protected-resource",
			"authorization_server": iss + "/.well-known/oauth-authorization-server",
			"device_authorization": iss + "/oauth/device_authorization",
		}},
	}
}

// cardVersion is the box's version, or 0.0.0-dev when it has none (the
// card requires one and rejects ranges).
func cardVersion(v string) string {
	if v == "" {
		return "0.0.0-dev"
	}
	return strings.TrimPrefix(v, "v")
}

// summary says what the box is, in one paragraph (llms.txt, server card).
const summary = "An openlolo box drives one real phone (screen, touch, keyboard, hardware buttons) for agents and scripts over MCP. " +
	"Every client is approved by the box's owner on the box page, and the owner can pause input or revoke a client at any time."

// LLMsTxt renders /llms.txt for the entry whose issuer is iss: what the
// box is, how an agent connects, the tools, limits and error codes, from
// the catalog tools/list serves and the contract's constants.
func (h *Handler) LLMsTxt(iss string) ([]byte, error) {
	type toolLine struct{ Name, Title, Scope, Sentence string }
	type codeLine struct {
		Code      api.Code
		Retryable bool
		Steps     string
	}
	data := struct {
		Box, Version, Issuer, Summary, Instructions string
		Versions                                    string
		Tools                                       []toolLine
		Codes                                       []codeLine
		ReadScope, ControlScope                     api.Scope
		CallsPerMinute                              int
		Lease, FrameTTL, AccessLife, RetryWindow    time.Duration
		MaxBodyKiB, MaxText, MinImage, MaxImage     int
		DefaultImage, MaxWaitMS                     int
		DeviceGrant                                 string
		MaxPending, DevicePerMinute                 int
	}{
		Box: h.info().Name, Version: h.info().Version, Issuer: iss, Summary: summary, Instructions: instructions,
		Versions:  strings.Join(sdk.SupportedProtocolVersions(), ", "),
		ReadScope: api.ScopePhoneRead, ControlScope: api.ScopePhoneControl,
		CallsPerMinute: api.CallsPerMinute, Lease: api.LeaseTime, FrameTTL: api.FrameTTL,
		AccessLife: oauth.AccessTokenLife, RetryWindow: oauth.RefreshRetryWindow,
		MaxBodyKiB: api.MaxBody >> 10, MaxText: api.MaxText, MinImage: api.MinImageSize, MaxImage: api.MaxImageSize,
		DefaultImage: api.DefaultMaxSize, MaxWaitMS: api.MaxWaitMS,
		DeviceGrant: oauth.DeviceCodeGrantType, MaxPending: oauth.MaxPendingRequests, DevicePerMinute: oauth.DeviceRequestsLimit,
	}
	for _, t := range h.offeredTools() {
		data.Tools = append(data.Tools, toolLine{string(t.name), t.title, string(t.scope), firstSentence(t.desc)})
	}
	for _, c := range api.Codes() {
		retry, steps := c.Guide()
		data.Codes = append(data.Codes, codeLine{c, retry, strings.Join(steps, "; ")})
	}
	var buf bytes.Buffer
	t, err := tmplexec.Parse("llms.txt", llmsText, tmplexec.FuncMap{"dur": llmsDur})
	if err != nil {
		return nil, fmt.Errorf("mcp: llms.txt: %w", err)
	}
	if err := t.Execute(&buf, "llms.txt", data); err != nil {
		return nil, fmt.Errorf("mcp: llms.txt: %w", err)
	}
	return buf.Bytes(), nil
}

// firstSentence is s up to its first ". " that does not end an
// abbreviation (e.g., i.e.); the whole of s if none.
func firstSentence(s string) string {
	for off := 0; ; {
		i := strings.Index(s[off:], ". ")
		if i < 0 {
			return s
		}
		end := off + i
		if !strings.HasSuffix(s[:end], "e.g") && !strings.HasSuffix(s[:end], "i.e") {
			return s[:end+1]
		}
		off = end + 2
	}
}

// llmsDur writes a duration of llms.txt in minutes or seconds.
func llmsDur(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	return fmt.Sprintf("%d s", int(d/time.Second))
}

// llmsText is llms.txt's template (appliance/tmplexec executes it).
const llmsText = `# openlolo phone box {{.Box}}

> {{.Summary}}

Box {{.Box}}, version {{.Version}}. This file is generated by the box from the tool catalog its MCP endpoint serves.

## Connect

- MCP endpoint: {{.Issuer}}/mcp (Streamable HTTP, POST only, stateless: no session, tools/call works without initialize; JSON answers). Protocol versions: {{.Versions}}.
- Protected resource metadata (RFC 9728): {{.Issuer}}/.well-known/oauth-protected-resource
- Authorization server metadata (RFC 8414): {{.Issuer}}/.well-known/oauth-authorization-server
- MCP server card: {{.Issuer}}/.well-known/mcp/server-card.json
- Entries: the LAN entry (https://<box>.local, self-signed certificate: trust it by its public-key pin, or by the certificate the box page's Connect page offers as a PEM download, after comparing its fingerprint) and, when the owner turns it on, the tailnet entry (https://<box>.<tailnet>.ts.net, a publicly trusted certificate). Each entry is its own OAuth issuer: a token from one is refused on the other.
- A local stdio bridge exists for agents that speak only stdio: ` + "`openlolo pair <box URL>`, then `openlolo mcp <box URL>`" + `.

## OAuth

- Scopes: {{.ReadScope}} (look: status, screenshots, events) and {{.ControlScope}} (act: touch, keys, buttons, apps, URLs). Ask for both to operate the phone.
- Device flow (scripts and CLIs, RFC 8628): POST {{.Issuer}}/oauth/device_authorization (form: client_id of your choice or one the box issued, or client_name alone; scope). Show the user_code to the owner, who approves it on the box page (Access). Poll {{.Issuer}}/token with grant_type={{.DeviceGrant}}, device_code and client_id at the given interval. At most {{.MaxPending}} pending requests per box and {{.DevicePerMinute}} per minute.
- Browser flow (MCP clients): register at {{.Issuer}}/oauth/register (RFC 7591, public client, token_endpoint_auth_method none; loopback redirects on any port, https, or a private-use scheme), send the owner to {{.Issuer}}/oauth/authorize (authorization code, PKCE S256, resource={{.Issuer}}/mcp), exchange the code at {{.Issuer}}/token.
- Tokens: access tokens last {{dur .AccessLife}}; every refresh rotates the refresh token, and presenting a used one revokes the whole grant, except the immediately previous one within {{dur .RetryWindow}} while its successor is unused (a lost answer). Revoke with POST {{.Issuer}}/oauth/revoke.
- Send the token as Authorization: Bearer on every request. No or a bad token: 401 with WWW-Authenticate naming the resource metadata. A missing scope: 403 insufficient_scope with the scope to ask for (browser-flow clients), or the tool answer SCOPE_REQUIRED.

## How to operate

{{.Instructions}}

## Tools
{{range .Tools}}
- ` + "`{{.Name}}`" + ` ({{.Scope}}): {{.Title}}. {{.Sentence}}{{end}}

tools/list lists the tools your grant's scopes allow, with their input and output schemas.

## Limits

- {{.CallsPerMinute}} tool calls per minute per client; beyond, the answer is RATE_LIMITED with retry_after_ms and the call did not run. openlolo_pause is never limited.
- Control: one client holds it at a time; the first input takes it when free; it lapses after {{dur .Lease}} without a control call.
- Touch tools need frame_id and geometry_epoch of your own latest screenshot; coordinates are fractions (0..1) of that image; frames older than {{dur .FrameTTL}} are refused (FRAME_EXPIRED).
- Request bodies up to {{.MaxBodyKiB}} KiB (larger: HTTP 413). openlolo_type_text takes up to {{.MaxText}} bytes. Screenshots are {{.MinImage}} to {{.MaxImage}} px on the long side (default {{.DefaultImage}}). openlolo_watch waits up to {{.MaxWaitMS}} ms.
- operation_id (a UUID) makes a mutating call run at most once: the same id with the same arguments returns the recorded outcome.

## Answers and error codes

Every tools/call result has structuredContent with status ok, failed or pending, and a text block; isError is true exactly when status is failed. A failed answer carries error.code, error.message, error.retryable and error.next_steps.
{{range .Codes}}
- {{.Code}}{{if .Retryable}} (retryable){{end}}: {{.Steps}}{{end}}
`
