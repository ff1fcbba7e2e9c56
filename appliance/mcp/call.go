package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openlolo/openlolo/appliance/control"
	"github.com/openlolo/openlolo/appliance/oauth"
)

// metaKey is the _meta member that asks for JSON text blocks.
const metaKey = "openlolo.mcp"

// toolHandler wraps t's run with what every call goes through: the caller,
// the arguments' outer shape, the scope, the rate window, and the answer's
// rendering.
func (h *Handler) toolHandler(t *tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		caller, ok := oauth.CallerFrom(ctx)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "no authenticated caller: /mcp must sit behind the bearer check"}
		}
		raw := req.Params.Arguments
		if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) && trimmed[0] != '{' {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params.arguments must be a JSON object"}
		}
		c := call{caller: caller, raw: raw, client: control.Client{ID: caller.ClientID, Name: caller.ClientName,
			GrantID: caller.GrantID, GrantExpires: caller.GrantExpires}}
		res := h.gate(t, c)
		if res == nil {
			r := t.run(h, ctx, c)
			res = &r
		}
		return render(t, *res, structured(req.Params.Meta)), nil
	}
}

// gate refuses a call the caller's scopes or rate window do not allow.
func (h *Handler) gate(t *tool, c call) *result {
	refuse := func(e *control.Error) *result {
		a := control.Fail(e)
		if t.mutating {
			a.Dispatched = ptr(false)
		}
		return &result{answer: a}
	}
	if !c.caller.Has(t.scope) {
		return refuse(api.Errorf(api.CodeScopeRequired, "%s needs the %s scope, which this client's grant does not have", t.name, t.scope))
	}
	if t.noRateLimit {
		return nil
	}
	if _, e := h.ctl.Allow(c.client); e != nil {
		return refuse(e)
	}
	return nil
}

func structured(meta sdk.Meta) bool {
	m, ok := meta[metaKey].(map[string]any)
	if !ok {
		return false
	}
	b, _ := m["structured"].(bool)
	return b
}

// render turns an answer into the MCP result: structuredContent, a text
// block (a sentence, or the JSON when structured), and the image.
func render(t *tool, r result, asJSON bool) *sdk.CallToolResult {
	m := r.answer.Map()
	var text string
	if asJSON {
		b, err := json.Marshal(m)
		if err != nil {
			b = []byte(`{"status":"failed"}`)
		}
		text = string(b)
	} else {
		text = sentence(t, r.answer)
	}
	res := &sdk.CallToolResult{StructuredContent: m, IsError: r.answer.Failed(),
		Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	if r.image != nil {
		res.Content = append(res.Content, &sdk.ImageContent{Data: r.image.data, MIMEType: r.image.mime})
	}
	return res
}

// sentence is the one-sentence summary for agents.
func sentence(t *tool, a control.Answer) string {
	switch a.Status {
	case api.StatusFailed:
		s := fmt.Sprintf("%s failed with %s: %s", t.name, a.Error.Code, strings.TrimSuffix(a.Error.Message, "."))
		if len(a.Error.NextSteps) > 0 {
			s += "; next: " + a.Error.NextSteps[0]
		}
		return s + "."
	case api.StatusPending:
		return fmt.Sprintf("%s is still running as operation %s; openlolo_operation_status or openlolo_watch reports its outcome.", t.name, a.OperationID)
	}
	if t.say != nil {
		return t.say(a)
	}
	return t.name + " succeeded."
}

func sayInput(verb string) func(control.Answer) string {
	return func(a control.Answer) string {
		s := verb
		if a.Fields["replayed"] == true {
			s += " (stored answer of an earlier call with this operation_id; nothing was sent again)"
		}
		s += "; operation " + a.OperationID + " succeeded"
		if o, ok := a.Fields["observation"].(map[string]any); ok {
			s += fmt.Sprintf("; the attached screenshot is frame %v (geometry_epoch %v)", o["frame_id"], o["geometry_epoch"])
		}
		return s + "."
	}
}

func sayFrame(a control.Answer) string {
	return fmt.Sprintf("Screenshot %vx%v attached; touch with frame_id %v and geometry_epoch %v, coordinates as fractions of this image.",
		a.Fields["width"], a.Fields["height"], a.Fields["frame_id"], a.Fields["geometry_epoch"])
}

func sayStatus(a control.Answer) string {
	ph, _ := a.Fields["phone"].(map[string]any)
	ctl, _ := a.Fields["control"].(map[string]any)
	s := "The phone is "
	if ph["ready"] == true {
		s += "ready"
	} else {
		s += fmt.Sprintf("not ready (%v)", ph["reason"])
	}
	switch {
	case ctl["you_hold"] == true:
		s += "; you hold control"
	case ctl["held"] == true:
		s += fmt.Sprintf("; %v holds control", ctl["holder"])
	default:
		s += "; control is free"
	}
	if a.Fields["paused"] == true {
		s += "; input is paused"
	}
	if n, ok := a.Fields["calls_left"].(int); ok && n >= 0 {
		s += fmt.Sprintf("; %d calls left this minute", n)
	}
	return s + "."
}

func sayOperation(a control.Answer) string {
	op, _ := a.Fields["operation"].(map[string]any)
	return fmt.Sprintf("Operation %v (%v) is %v.", op["id"], op["tool"], op["state"])
}

func sayWatch(a control.Answer) string {
	evs, _ := a.Fields["events"].([]map[string]any)
	if len(evs) == 0 {
		return fmt.Sprintf("Nothing happened; watch again with cursor %v.", a.Fields["cursor"])
	}
	return fmt.Sprintf("%d events; watch again with cursor %v.", len(evs), a.Fields["cursor"])
}

func sayControl(a control.Answer) string {
	ctl, _ := a.Fields["control"].(map[string]any)
	if ctl["you_hold"] == true {
		return "You hold control."
	}
	if ctl["held"] == true {
		return fmt.Sprintf("%v holds control.", ctl["holder"])
	}
	return "Control is free."
}
