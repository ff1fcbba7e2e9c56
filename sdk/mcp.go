package sdk

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Result is the answer of one tools/call.
type Result struct {
	// Structured is structuredContent: status, the tool's fields, and
	// error on failure.
	Structured map[string]any
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
func (r *Result) Status() string { s, _ := r.Structured["status"].(string); return s }

// OperationID is structuredContent.operation_id for mutating tools.
func (r *Result) OperationID() string { s, _ := r.Structured["operation_id"].(string); return s }

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
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
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
	res := &Result{Structured: tr.StructuredContent, IsError: tr.IsError, Raw: raw}
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
	if tr.IsError && tr.StructuredContent == nil {
		return res, &ProtocolError{Message: fmt.Sprintf("%s failed without a structured answer: %s", tool, res.Text)}
	}
	if res.Status() == "failed" || tr.IsError {
		return res, refusedFrom(tool, tr.StructuredContent)
	}
	return res, nil
}

func refusedFrom(tool string, sc map[string]any) *Refused {
	r := &Refused{Tool: tool, Code: "INTERNAL", Message: "the box reported a failure without an error"}
	if d, ok := sc["dispatched"].(bool); ok {
		r.Dispatched = d
	}
	e, ok := sc["error"].(map[string]any)
	if !ok {
		return r
	}
	if s, ok := e["code"].(string); ok {
		r.Code = s
	}
	if s, ok := e["message"].(string); ok {
		r.Message = s
	}
	if b, ok := e["retryable"].(bool); ok {
		r.Retryable = b
	}
	if ms, ok := e["retry_after_ms"].(float64); ok {
		r.RetryAfter = msDuration(ms)
	}
	if steps, ok := e["next_steps"].([]any); ok {
		for _, s := range steps {
			if str, ok := s.(string); ok {
				r.NextSteps = append(r.NextSteps, str)
			}
		}
	}
	return r
}

// isTransport reports whether err means the connection dropped before an
// answer arrived.
func isTransport(err error) bool {
	var t *errTransport
	return errors.As(err, &t)
}
