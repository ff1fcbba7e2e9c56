package sdk

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openlolo/openlolo/api"
	"io"
	"net/http"
	"strings"
)

// Result is the answer of one tools/call.
type Result struct {
	// Outcome is the members every answer carries: status, the operation
	// of a mutating tool, and the error when failed.
	Outcome api.Outcome
	// Structured is structuredContent as generic JSON (any tool's, for
	// callers that pass it through); [Decode] reads it as a tool's typed
	// result.
	Structured map[string]any
	// structured is structuredContent as sent.
	structured json.RawMessage
	// Text is the text block meant for agents.
	Text string
	// Images are the image blocks (screenshots), decoded.
	Images []Image
	// IsError mirrors isError.
	IsError bool
	// Raw is the whole JSON-RPC result, for callers that pass it through.
	Raw json.RawMessage
}

// Image is one image content block.
type Image struct {
	MIMEType string
	Data     []byte
}

// Status is structuredContent.status ("ok", "failed", "pending").
func (r *Result) Status() string { return string(r.Outcome.Status) }

// OperationID is structuredContent.operation_id for mutating tools.
func (r *Result) OperationID() string { return r.Outcome.OperationID }

// Decode reads r's structuredContent as the result R of its tool (an api
// result type such as api.StatusResult). It is an error when the answer
// has no result (status failed).
func Decode[R any](r *Result) (*R, error) {
	if r.Outcome.Status == api.StatusFailed {
		return nil, &ProtocolError{Message: "a failed answer has no result"}
	}
	var v R
	if err := json.Unmarshal(r.structured, &v); err != nil {
		return nil, &ProtocolError{Message: fmt.Sprintf("structuredContent is not a %T: %v", v, err)}
	}
	return &v, nil
}

// rpcRequest is one JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

type toolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// errTransport marks a failure where the request may or may not have
// reached the box (the connection dropped), as opposed to an answer.
type errTransport struct{ err error }

func (e *errTransport) Error() string {
	return "openlolo: connection to the box failed: " + e.err.Error()
}
func (e *errTransport) Unwrap() error { return e.err }

// httpStatusError is a non-200 answer from /mcp.
type httpStatusError struct {
	status int
	header http.Header
	body   string
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("openlolo: the box answered HTTP %d: %s", e.status, strings.TrimSpace(e.body))
}

// rpc posts one JSON-RPC request to /mcp with the bearer token and returns
// the raw result.
func (c *Client) rpc(ctx context.Context, token, method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: c.nextID.Add(1), Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("openlolo: encode %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openlolo: %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.hc.Do(req)
	if err != nil {
		if pe := pinError(err); pe != nil {
			return nil, pe
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &errTransport{err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, &errTransport{err}
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil, nil // a notification was taken
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &httpStatusError{status: resp.StatusCode, header: resp.Header, body: string(data)}
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		data = lastSSEData(data)
	}
	var r rpcResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &ProtocolError{Message: fmt.Sprintf("answer to %s is not JSON-RPC: %v", method, err)}
	}
	if r.Error != nil {
		return nil, &ProtocolError{Code: r.Error.Code, Message: r.Error.Message}
	}
	return r.Result, nil
}

// lastSSEData returns the data of the last event in an SSE body, for servers
// that answer with a stream even when JSON was offered first.
func lastSSEData(b []byte) []byte {
	var last []byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			last = bytes.TrimSpace(d)
		}
	}
	return last
}

// decodeToolResult turns a tools/call result into a Result, and a failed
// answer into a *Refused (returned together with the Result).
func decodeToolResult(tool string, raw json.RawMessage) (*Result, error) {
	var tr toolResult
	if err := json.Unmarshal(raw, &tr); err != nil {
		return nil, &ProtocolError{Message: fmt.Sprintf("answer to %s is not a tool result: %v", tool, err)}
	}
	res := &Result{IsError: tr.IsError, Raw: raw}
	if err := res.setStructured(tr.StructuredContent); err != nil {
		return nil, &ProtocolError{Message: fmt.Sprintf("%s: structuredContent: %v", tool, err)}
	}
	for _, c := range tr.Content {
		switch c.Type {
		case "text":
			if res.Text == "" {
				res.Text = c.Text
			}
		case "image":
			b, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return nil, &ProtocolError{Message: fmt.Sprintf("%s: image block is not base64: %v", tool, err)}
			}
			res.Images = append(res.Images, Image{MIMEType: c.MIMEType, Data: b})
		}
	}
	if tr.IsError && res.Structured == nil {
		return res, &ProtocolError{Message: fmt.Sprintf("%s failed without a structured answer: %s", tool, res.Text)}
	}
	if res.Status() == "failed" || tr.IsError {
		return res, refusedFrom(tool, res.Outcome)
	}
	if err := askPending(tool, res); err != nil {
		return res, err
	}
	return res, nil
}

// setStructured keeps structuredContent raw, generic and as the outcome.
func (r *Result) setStructured(sc json.RawMessage) error {
	if len(sc) == 0 || string(sc) == "null" {
		return nil
	}
	r.structured = sc
	if err := json.Unmarshal(sc, &r.Structured); err != nil {
		return err
	}
	return json.Unmarshal(sc, &r.Outcome)
}

func refusedFrom(tool string, o api.Outcome) *Refused {
	r := &Refused{Tool: tool, Code: string(api.CodeInternal), Message: "the box reported a failure without an error"}
	if o.Dispatched != nil {
		r.Dispatched = *o.Dispatched
	}
	e := o.Error
	if e == nil {
		return r
	}
	if e.Code != "" {
		r.Code = string(e.Code)
	}
	if e.Message != "" {
		r.Message = e.Message
	}
	r.Retryable, r.NextSteps = e.Retryable, e.NextSteps
	if e.RetryAfterMS > 0 {
		r.RetryAfter = msDuration(float64(e.RetryAfterMS))
	}
	return r
}

// isTransport reports whether err means the connection dropped before an
// answer arrived.
func isTransport(err error) bool {
	var t *errTransport
	return errors.As(err, &t)
}
