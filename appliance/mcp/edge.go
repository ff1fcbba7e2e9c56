package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/appliance/oauth"
)

// The HTTP edges of /mcp, before the go-sdk handler: the protocol version
// header, Accept, and the scope step-up.

// errUnsupportedProtocolVersion is the JSON-RPC code of the 2026-07-28
// transport's UnsupportedProtocolVersionError.
const errUnsupportedProtocolVersion = -32022

// checkProtocolVersion answers 400 naming the versions the box speaks when
// the MCP-Protocol-Version header carries another (the go-sdk takes any
// value from 2026-07-28 on for the draft protocol, and says "missing
// _meta"). It reports whether the request may go on.
func checkProtocolVersion(w http.ResponseWriter, r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	if v == "" {
		return true
	}
	supported := sdk.SupportedProtocolVersions()
	if slices.Contains(supported, v) {
		return true
	}
	msg := fmt.Sprintf("MCP-Protocol-Version %q is not one this box speaks; send one of %s (newest first)",
		v, strings.Join(supported, ", "))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
		"code": errUnsupportedProtocolVersion, "message": msg,
		"data": map[string]any{"supported": supported, "requested": v}}})
	return false
}

// acceptJSON lets a client that accepts only application/json in: the box
// always answers JSON (it never streams), while the go-sdk asks for both
// types.
func acceptJSON(r *http.Request) {
	jsonOK, streamOK := false, false
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	if len(r.Header.Values("Accept")) == 0 {
		jsonOK = true
	}
	if jsonOK && !streamOK {
		r.Header.Set("Accept", "application/json, text/event-stream")
	}
}

// stepUp answers 403 insufficient_scope with the scope to ask for, for a
// tools/call of a tool the caller's grant does not cover, when the caller
// is an MCP client of the browser flow (oauth.Caller.Registered): its SDK
// re-authorizes with the wider scope (MCP authorization, scope challenge).
// Scripts of the device flow get the tool answer SCOPE_REQUIRED instead.
// It reports whether it answered.
func (h *Handler) stepUp(w http.ResponseWriter, r *http.Request) bool {
	c, ok := oauth.CallerFrom(r.Context())
	if !ok || !c.Registered {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false // the go-sdk answers the broken body
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	if msg.Method == "resources/read" || msg.Method == "prompts/get" {
		if c.Has(string(api.ScopePhoneRead)) {
			return false
		}
		oauth.InsufficientScope(w, r, string(api.ScopePhoneRead), fmt.Sprintf("%s needs the %s scope, which this grant does not have; ask the owner for it", msg.Method, api.ScopePhoneRead))
		return true
	}
	if msg.Method != "tools/call" {
		return false
	}
	t := h.tools[msg.Params.Name]
	if t == nil || c.Has(string(t.scope)) {
		return false
	}
	oauth.InsufficientScope(w, r, string(t.scope), fmt.Sprintf("%s needs the %s scope, which this grant does not have; ask the owner for it", t.name, t.scope))
	return true
}
