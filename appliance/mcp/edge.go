package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
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
	body, err := peekBody(r)
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

// peekBody reads r's body (up to one byte past MaxBody, which the go-sdk
// then refuses) and puts it back for the next reader.
func peekBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}

// keepID makes the answer carry the request's JSON-RPC id exactly as
// sent. The go-sdk reads a numeric id as a float64 and then an int64, so
// an id beyond ±2^53, fractional or written otherwise than as a plain
// integer (18446744073709551616, 1.5, 1e3, -0) came back as another
// number. For such an id keepID hands the go-sdk a string id in its place
// and returns the writer that puts the id back; other requests (string
// and plain integer ids, notifications, batches, broken JSON) pass
// untouched, with w itself.
func keepID(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func()) {
	body, err := peekBody(r)
	if err != nil || len(body) > MaxBody {
		return w, func() {}
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return w, func() {}
	}
	id := bytes.TrimSpace(msg["id"])
	if !exactNumber(id) {
		return w, func() {}
	}
	stand := []byte(`"openlolo-id-` + rand.Text() + `"`)
	msg["id"] = stand
	rewritten, err := json.Marshal(msg)
	if err != nil {
		return w, func() {}
	}
	r.Body = io.NopCloser(bytes.NewReader(rewritten))
	r.ContentLength = int64(len(rewritten))
	iw := &idWriter{ResponseWriter: w, status: http.StatusOK}
	return iw, func() {
		out := bytes.Replace(iw.buf.Bytes(), stand, id, 1)
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(iw.status)
		w.Write(out)
	}
}

// exactNumber reports whether id is a JSON number the go-sdk would not
// give back as written: anything but a plain integer within ±2^53.
func exactNumber(id []byte) bool {
	if len(id) == 0 || (id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		return false
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err != nil || n > 1<<53 || n < -(1<<53) || strconv.FormatInt(n, 10) != string(id)
}

// idWriter holds an answer back until keepID has put the id in it.
type idWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (w *idWriter) WriteHeader(status int)      { w.status = status }
func (w *idWriter) Write(b []byte) (int, error) { return w.buf.Write(b) }
