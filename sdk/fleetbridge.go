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
// the whole fleet (every box answering) phone may be left out; otherwise
// the answer is PHONE_REQUIRED naming the phones and any box that did not
// answer. openlolo_pause naming no phone pauses every box at once
// (Fleet.Pause). The tools that name no phone (openlolo_watch,
// openlolo_operation_status, openlolo_cancel, the app profiles) take a
// box argument instead, which may be left out when the fleet has one box
// (or, for openlolo_watch, when its phones name one). A box that does not
// answer makes the calls to its phones PHONE_UNAVAILABLE and holds up no
// other box's.
//
// Only tools are served (no resources or prompts: those name no phone).
// FleetBridge returns when r ends or ctx is cancelled.
func FleetBridge(ctx context.Context, f *Fleet, r io.Reader, w io.Writer) error {
	return serveStdio(ctx, r, w, NewFleetRouter(f).Handle)
}

// FleetRouter answers MCP requests for a fleet one at a time, routing
// them as [FleetBridge] does, for a server that speaks MCP over another
// transport than stdio (openlolo fleet serve serves it over HTTP on the
// tailnet). It keeps the tools as first listed and nothing else. It is
// safe for concurrent use.
type FleetRouter struct{ b *fleetBridge }

// NewFleetRouter returns the router of f.
func NewFleetRouter(f *Fleet) *FleetRouter { return &FleetRouter{b: &fleetBridge{f: f}} }

// Handle answers one JSON-RPC request (initialize, ping, tools/list,
// tools/call; notifications answer nil) with its raw result. An error is
// a *ProtocolError to answer as a JSON-RPC error, or the context's.
func (r *FleetRouter) Handle(ctx context.Context, method string, params json.RawMessage) ([]byte, error) {
	return r.b.handle(ctx, method, params)
}

// Instructions is what initialize tells agents about the fleet.
func (r *FleetRouter) Instructions() string { return r.b.instructions() }

func (b *fleetBridge) instructions() string {
	return fmt.Sprintf("The phones of %d openlolo boxes. openlolo_phones lists them with ids box/phone; pass one as phone to every phone tool.", len(b.f.boxes))
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

// initialize is the first box's answer that comes (all are asked at
// once), made the fleet's: tools only, the fleet's name. When no box
// answers, the bridge still starts (the calls then say which box is off)
// with the version the client asked for.
func (b *fleetBridge) initialize(ctx context.Context, params json.RawMessage) ([]byte, error) {
	ans, _ := firstAnswer(ctx, b.f.boxes, func(ctx context.Context, box *FleetBox) (map[string]any, error) {
		raw, err := box.Client.RPC(ctx, "initialize", params)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return nil, &ProtocolError{Message: fmt.Sprintf("initialize answer is not an object: %s", api.Clip(string(raw)))}
		}
		return m, nil
	})
	if ans == nil {
		var req struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(params, &req)
		ans = map[string]any{"protocolVersion": req.ProtocolVersion}
	}
	ans["capabilities"] = map[string]any{"tools": map[string]any{}}
	ans["serverInfo"] = map[string]any{"name": FleetServerName, "version": "1"}
	ans["instructions"] = b.instructions()
	return json.Marshal(ans)
}

// listTools is the tools of the first box that lists them (all are asked
// at once), with box added to the tools that name no phone. It is kept
// once listed. The boxes are asked without holding b.mu, so a call that
// needs the tools' kinds waits for no box a listing waits for.
func (b *fleetBridge) listTools(ctx context.Context) ([]map[string]any, error) {
	b.mu.Lock()
	tools := b.tools
	b.mu.Unlock()
	if tools != nil {
		return tools, nil
	}
	listed, errs := firstAnswer(ctx, b.f.boxes, func(ctx context.Context, box *FleetBox) ([]map[string]any, error) {
		return box.Client.ListTools(ctx)
	})
	if errs != nil {
		return nil, &ProtocolError{Code: -32603, Message: "no box of the fleet listed its tools (" + strings.Join(errs, "; ") + "); check that the boxes are on and reachable (openlolo boxes)"}
	}
	tools, kinds := fleetTools(listed)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tools == nil { // a listing running at the same time may have won
		b.tools, b.kinds = tools, kinds
	}
	return b.tools, nil
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
		props["box"] = map[string]any{
			"type":        "string",
			"description": "The box's id (openlolo_phones lists the boxes); may be left out when the fleet has one box.",
		}
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
	if phone, isString := p.Arguments["phone"].(string); p.Name == string(api.ToolPause) && phone == "" && (isString || p.Arguments["phone"] == nil) {
		// The emergency stop naming no phone stops every phone of every
		// box, as it does on one box.
		return b.pauseAll(ctx, p.Arguments, asJSON)
	}
	k := b.kind(ctx, p.Name)
	box, e := b.target(ctx, k, p.Arguments)
	if e != nil {
		return failedAnswer(p.Name, e, k.mutating && e.Code != api.CodeOutcomeUnknown, asJSON)
	}
	id, _ := p.Arguments["phone"].(string)
	p.Meta = withoutProtocolMeta(p.Meta)
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
// made the box's own id, or box taken out and phones (openlolo_watch's)
// made the box's own ids, the box they name standing for box left out.
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
	if list, ok := args["phones"]; ok && list != nil {
		local, owner, e := b.localPhones(list, id)
		if e != nil {
			return nil, e
		}
		args["phones"] = local
		if id == "" {
			id = owner
		}
	}
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

// pauseAll is openlolo_pause naming no phone: Fleet.pause on every box
// at once. It is ok when every box paused; otherwise it fails with the
// first silent or refusing box's error, and boxes says which did pause.
func (b *fleetBridge) pauseAll(ctx context.Context, args map[string]any, asJSON bool) ([]byte, error) {
	boxes := b.f.pause(ctx, args)
	var paused, not []string
	var first *api.Error
	for _, p := range boxes {
		if p.Error == nil {
			paused = append(paused, p.ID)
			continue
		}
		not = append(not, fmt.Sprintf("%s (%s: %s)", p.ID, p.Error.Code, strings.TrimSuffix(p.Error.Message, ".")))
		if first == nil {
			first = p.Error
		}
	}
	sc := struct {
		api.Outcome
		Paused bool       `json:"paused"`
		Boxes  []BoxPause `json:"boxes"`
	}{Outcome: api.Outcome{Status: api.StatusOK}, Paused: first == nil, Boxes: boxes}
	text := fmt.Sprintf("Input is paused on every box (%s); the control holder resumes each phone with openlolo_control command=resume.", strings.Join(paused, ", "))
	if first != nil {
		e := *first
		e.Message = fmt.Sprintf("input is not paused on box %s", strings.Join(not, "; "))
		if len(paused) > 0 {
			e.Message += "; it is paused on " + strings.Join(paused, ", ")
		}
		sc.Status, sc.Error = api.StatusFailed, &e
		text = failedText(string(api.ToolPause), &e)
	}
	return toolAnswer(sc, text, first != nil, asJSON)
}

// localPhones is a phones argument of fleet ids (openlolo_watch's) made
// the ids of their box, and that box. They must all be phones of one box,
// and of box when it is named: one call goes to one box.
func (b *fleetBridge) localPhones(list any, box string) (local []string, owner string, e *api.Error) {
	items, ok := list.([]any)
	if !ok {
		return nil, "", api.Invalid("phones must be a list of box/phone ids, as openlolo_phones lists them")
	}
	owner, local = box, make([]string, 0, len(items))
	for _, it := range items {
		id, _ := it.(string)
		boxID, phone, ok := strings.Cut(id, "/")
		if _, known := b.f.Box(boxID); !ok || phone == "" || !known {
			return nil, "", api.Invalid("phones holds %q, which is not a phone id of the fleet: ids are box/phone, as openlolo_phones lists them", api.Clip(fmt.Sprint(it)))
		}
		if owner != "" && boxID != owner {
			e := api.Invalid("phones holds %q, a phone of box %s, and this call goes to box %s: one call covers one box's phones", api.Clip(id), boxID, owner)
			e.NextSteps = []string{"call once per box, each with box set and only that box's phones"}
			return nil, "", e
		}
		owner = boxID
		local = append(local, phone)
	}
	return local, owner, nil
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
	return toolAnswer(o, failedText(tool, e), true, asJSON)
}

// failedText is the sentence of a failed answer the fleet makes.
func failedText(tool string, e *api.Error) string {
	text := fmt.Sprintf("%s failed with %s: %s", tool, e.Code, strings.TrimSuffix(e.Message, "."))
	if len(e.NextSteps) > 0 {
		text += "; next: " + e.NextSteps[0]
	}
	return text + "."
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

// protocolMetaPrefix begins the _meta keys of the client's own MCP
// exchange with the fleet (its protocol version, info and capabilities
// on every request since MCP 2026-07-28). The fleet's exchange with a box
// is another: a box refuses a request carrying them without the matching
// header, so they are not passed on.
const protocolMetaPrefix = "io.modelcontextprotocol/"

// withoutProtocolMeta is meta without the protocolMetaPrefix keys; nil
// when none is left.
func withoutProtocolMeta(meta json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return meta
	}
	n := len(m)
	maps.DeleteFunc(m, func(k string, _ json.RawMessage) bool { return strings.HasPrefix(k, protocolMetaPrefix) })
	switch {
	case len(m) == n:
		return meta
	case len(m) == 0:
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return meta
	}
	return b
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
