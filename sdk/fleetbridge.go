package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"

	"github.com/openlolo/openlolo/api"
)

// FleetServerName is the serverInfo name the fleet bridge answers
// initialize with.
const FleetServerName = "openlolo-fleet"

// FleetBridge serves MCP over stdio, as Bridge does, for every box of f
// at once. Its tools are the boxes' tools (as the first box that answers
// lists them); openlolo_phones lists the phones of every box under fleet
// ids box/phone, and every phone tool's phone takes such an id and goes
// to that box with its grant and pinned certificate. With one phone in
// the whole fleet phone may be left out; with several, the answer is
// PHONE_REQUIRED naming them. The tools that name no phone
// (openlolo_watch, openlolo_operation_status, openlolo_cancel, the app
// profiles) take a box argument instead, which may be left out when the
// fleet has one box. A box that does not answer makes the calls to its
// phones PHONE_UNAVAILABLE and holds up no other box's.
//
// Only tools are served (no resources or prompts: those name no phone).
// FleetBridge returns when r ends or ctx is cancelled.
func FleetBridge(ctx context.Context, f *Fleet, r io.Reader, w io.Writer) error {
	b := &fleetBridge{f: f}
	return serveStdio(ctx, r, w, b.handle)
}

// fleetBridge is the state of one FleetBridge: the tools as listed.
type fleetBridge struct {
	f *Fleet

	mu    sync.Mutex // guards tools and kinds
	tools []map[string]any
	kinds map[string]toolKind
}

// toolKind is what the bridge needs to know of a tool to route it.
type toolKind struct {
	phone    bool // it takes phone: route by it
	mutating bool // its answers carry dispatched
}

// handle answers one JSON-RPC request.
func (b *fleetBridge) handle(ctx context.Context, method string, params json.RawMessage) ([]byte, error) {
	switch {
	case method == "initialize":
		return b.initialize(ctx, params)
	case method == "ping":
		return []byte("{}"), nil
	case method == "tools/list":
		tools, err := b.listTools(ctx)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"tools": tools})
	case method == "tools/call":
		return b.call(ctx, params)
	case strings.HasPrefix(method, "notifications/"):
		return nil, nil
	}
	return nil, &ProtocolError{Code: -32601, Message: fmt.Sprintf("method %q not found: the fleet bridge serves tools only (openlolo mcp BOX serves one box's resources and prompts)", method)}
}

// initialize is the first box's answer that comes, made the fleet's: tools
// only, the fleet's name. When no box answers, the bridge still starts
// (the calls then say which box is off) with the version the client asked
// for.
func (b *fleetBridge) initialize(ctx context.Context, params json.RawMessage) ([]byte, error) {
	var ans map[string]any
	for _, box := range b.f.boxes {
		raw, err := box.quickRPC(ctx, "initialize", params)
		if err == nil && json.Unmarshal(raw, &ans) == nil {
			break
		}
	}
	if ans == nil {
		var req struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(params, &req)
		ans = map[string]any{"protocolVersion": req.ProtocolVersion}
	}
	ans["capabilities"] = map[string]any{"tools": map[string]any{}}
	ans["serverInfo"] = map[string]any{"name": FleetServerName, "version": "1"}
	ans["instructions"] = fmt.Sprintf("The phones of %d openlolo boxes. openlolo_phones lists them with ids box/phone; pass one as phone to every phone tool.", len(b.f.boxes))
	return json.Marshal(ans)
}

// quickRPC is one request to the box bounded by the listing's timeout
// (initialize: a box that does not answer is passed over).
func (box *FleetBox) quickRPC(ctx context.Context, method string, params json.RawMessage) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, fleetListTimeout)
	defer cancel()
	return box.Client.RPC(ctx, method, params)
}

// listTools is the tools of the first box that lists them, with box added
// to the tools that name no phone. It is kept once listed.
func (b *fleetBridge) listTools(ctx context.Context) ([]map[string]any, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tools != nil {
		return b.tools, nil
	}
	var errs []string
	for _, box := range b.f.boxes {
		lctx, cancel := context.WithTimeout(ctx, fleetListTimeout)
		tools, err := box.Client.ListTools(lctx)
		cancel()
		if err != nil {
			errs = append(errs, box.ID+": "+err.Error())
			continue
		}
		b.tools, b.kinds = fleetTools(tools)
		return b.tools, nil
	}
	return nil, &ProtocolError{Code: -32603, Message: "no box of the fleet listed its tools (" + strings.Join(errs, "; ") + "); check that the boxes are on and reachable (openlolo boxes)"}
}

// boxProperty is the box argument the fleet adds to the tools that name
// no phone.
var boxProperty = map[string]any{
	"type":        "string",
	"description": "The box's id (openlolo_phones lists the boxes); may be left out when the fleet has one box.",
}

// fleetTools adds box to the tools without phone (but openlolo_phones,
// which lists every box) and reads each tool's kind.
func fleetTools(tools []map[string]any) ([]map[string]any, map[string]toolKind) {
	kinds := make(map[string]toolKind, len(tools))
	for _, t := range tools {
		name, _ := t["name"].(string)
		in, _ := t["inputSchema"].(map[string]any)
		props, _ := in["properties"].(map[string]any)
		out, _ := t["outputSchema"].(map[string]any)
		outProps, _ := out["properties"].(map[string]any)
		_, phone := props["phone"]
		_, mutating := outProps["dispatched"]
		kinds[name] = toolKind{phone: phone, mutating: mutating}
		if phone || name == string(api.ToolPhones) || in == nil {
			continue
		}
		props = maps.Clone(props)
		if props == nil {
			props = map[string]any{}
		}
		props["box"] = boxProperty
		in["properties"] = props
	}
	return tools, kinds
}

// kind is tool's kind; a tool of a fleet whose tools could not be listed
// is taken as a phone tool (it is routed by phone, and its box's answer
// says the rest).
func (b *fleetBridge) kind(ctx context.Context, tool string) toolKind {
	if _, err := b.listTools(ctx); err != nil {
		return toolKind{phone: true}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	k, ok := b.kinds[tool]
	if !ok {
		return toolKind{phone: true}
	}
	return k
}

// callParams are tools/call's params as the bridge reads them.
type callParams struct {
	Name      string          `json:"name"`
	Arguments map[string]any  `json:"arguments"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// call routes one tools/call to its box and passes the answer back as
// the box gave it; the fleet answers openlolo_phones itself, and a call it
// cannot route or whose box does not answer with a failed tool answer.
func (b *fleetBridge) call(ctx context.Context, raw json.RawMessage) ([]byte, error) {
	var p callParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &ProtocolError{Code: -32602, Message: "tools/call params: " + err.Error()}
	}
	if p.Arguments == nil {
		p.Arguments = map[string]any{}
	}
	asJSON := structuredText(p.Meta)
	if p.Name == string(api.ToolPhones) {
		return b.phones(ctx, asJSON)
	}
	k := b.kind(ctx, p.Name)
	box, e := b.target(ctx, k, p.Arguments)
	if e != nil {
		return failedAnswer(p.Name, e, k.mutating && e.Code != api.CodeOutcomeUnknown, asJSON)
	}
	id, _ := p.Arguments["phone"].(string)
	res, err := box.Client.RPC(ctx, "tools/call", p)
	if err == nil {
		if k.phone && boxRefused(res, api.CodePhoneRequired) {
			// The box has no such phone: name the fleet's, not the box's.
			return failedAnswer(p.Name, b.f.unknownPhone(ctx, box.ID+"/"+id), k.mutating, asJSON)
		}
		return res, nil
	}
	if pe := (*ProtocolError)(nil); errors.As(err, &pe) {
		return nil, pe
	}
	e = box.unavailable(err)
	sent := !notSent(err) && isTransport(err)
	if k.mutating && sent {
		e = api.Errorf(api.CodeOutcomeUnknown, "the connection to box %s dropped before its answer (%v); the call may have run", box.ID, err)
	}
	return failedAnswer(p.Name, e, k.mutating && !sent, asJSON)
}

// target is the box a call goes to, with args rewritten for it: phone
// made the box's own id, or box taken out.
func (b *fleetBridge) target(ctx context.Context, k toolKind, args map[string]any) (*FleetBox, *api.Error) {
	if k.phone {
		id, ok := args["phone"].(string)
		if !ok && args["phone"] != nil {
			return nil, api.Invalid("phone must be a string: a box/phone id as openlolo_phones lists them")
		}
		box, local, e := b.f.route(ctx, id)
		if e != nil {
			return nil, e
		}
		args["phone"] = local
		return box, nil
	}
	id, ok := args["box"].(string)
	if !ok && args["box"] != nil {
		return nil, api.Invalid("box must be a string: a box id as openlolo_phones lists them")
	}
	delete(args, "box")
	if id == "" && len(b.f.boxes) == 1 {
		return b.f.boxes[0], nil
	}
	if box, ok := b.f.Box(id); ok {
		return box, nil
	}
	ids := make([]string, len(b.f.boxes))
	for i, box := range b.f.boxes {
		ids[i] = box.ID
	}
	e := api.Invalid("the fleet has %d boxes and this tool names no phone; name the box as box", len(ids))
	if id != "" {
		e = api.Invalid("the fleet has no box %q", api.Clip(id))
	}
	e.NextSteps = []string{"call again with box set to one of: " + strings.Join(ids, ", ")}
	return nil, e
}

// phones is openlolo_phones's answer for the whole fleet.
func (b *fleetBridge) phones(ctx context.Context, asJSON bool) ([]byte, error) {
	l, err := b.f.Phones(ctx)
	if err != nil {
		return failedAnswer(string(api.ToolPhones), api.Errorf(api.CodeCancelled, "%v", err), false, asJSON)
	}
	sc := struct {
		Status api.Status `json:"status"`
		*FleetPhones
	}{api.StatusOK, l}
	ids := make([]string, len(l.Phones))
	for i, p := range l.Phones {
		ids[i] = fmt.Sprintf("%s (%s)", p.ID, p.State)
	}
	text := fmt.Sprintf("%d phones on %d boxes: %s.", len(l.Phones), len(l.Boxes), strings.Join(ids, ", "))
	for _, s := range l.Boxes {
		if !s.Reachable {
			text += fmt.Sprintf(" Box %s is not listed: %s %s.", s.ID, s.Error.Code, strings.TrimSuffix(s.Error.Message, "."))
		}
	}
	return toolAnswer(sc, text, false, asJSON)
}

// failedAnswer is a failed tool answer made by the fleet: the outcome
// with e (dispatched false when nothing reached a phone of a mutating
// tool) and the sentence agents read.
func failedAnswer(tool string, e *api.Error, notDispatched, asJSON bool) ([]byte, error) {
	o := api.Outcome{Status: api.StatusFailed, Error: e}
	if notDispatched {
		o.Dispatched = new(bool)
	}
	text := fmt.Sprintf("%s failed with %s: %s", tool, e.Code, strings.TrimSuffix(e.Message, "."))
	if len(e.NextSteps) > 0 {
		text += "; next: " + e.NextSteps[0]
	}
	return toolAnswer(o, text+".", true, asJSON)
}

// toolAnswer is a tools/call result: structuredContent sc and a text
// block (the sentence, or the JSON itself when asJSON).
func toolAnswer(sc any, text string, isError, asJSON bool) ([]byte, error) {
	b, err := json.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("openlolo mcp: encode the fleet's answer: %w", err)
	}
	if asJSON {
		text = string(b)
	}
	return json.Marshal(struct {
		Content           []map[string]string `json:"content"`
		StructuredContent json.RawMessage     `json:"structuredContent"`
		IsError           bool                `json:"isError,omitempty"`
	}{[]map[string]string{{"type": "text", "text": text}}, b, isError})
}

// structuredText reports _meta["openlolo.mcp"].structured: the client
// wants the text block to be the JSON.
func structuredText(meta json.RawMessage) bool {
	var m struct {
		MCP struct {
			Structured bool `json:"structured"`
		} `json:"openlolo.mcp"`
	}
	json.Unmarshal(meta, &m)
	return m.MCP.Structured
}

// boxRefused reports whether a box's tools/call result failed with code.
func boxRefused(res []byte, code api.Code) bool {
	var r struct {
		IsError           bool        `json:"isError"`
		StructuredContent api.Outcome `json:"structuredContent"`
	}
	if json.Unmarshal(res, &r) != nil || !r.IsError || r.StructuredContent.Error == nil {
		return false
	}
	return r.StructuredContent.Error.Code == code
}
