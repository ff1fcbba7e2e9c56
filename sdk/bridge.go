package sdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Bridge serves MCP over stdio (newline-delimited JSON-RPC, as local agents
// such as Claude Code, Cursor, VS Code and Codex speak it) and forwards
// every request to the box through c, with its pinning, refresh and
// retries. Tools, schemas and answers pass through unchanged.
//
// Requests are forwarded concurrently (a long openlolo_watch does not hold
// up a screenshot); answers are written whole, one per line, as they come.
// The client's own protocol metadata (the io.modelcontextprotocol/ keys
// of _meta that MCP 2026-07-28 clients send on every request) describes
// its exchange with the bridge, not the bridge's with the box, and is
// not passed on: the box refuses it without the matching header.
// Bridge returns when r ends or ctx is cancelled.
func Bridge(ctx context.Context, c *Client, r io.Reader, w io.Writer) error {
	return serveStdio(ctx, r, w, func(ctx context.Context, method string, params json.RawMessage) ([]byte, error) {
		var p any
		if len(params) > 0 {
			p = paramsWithoutProtocolMeta(params)
		}
		return c.RPC(ctx, method, p)
	})
}

// paramsWithoutProtocolMeta is params with its _meta's protocolMetaPrefix
// keys removed (and _meta itself when nothing else is left); params that
// carry none, or are not an object, are returned as they are.
func paramsWithoutProtocolMeta(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m["_meta"] == nil {
		return params
	}
	meta := withoutProtocolMeta(m["_meta"])
	if bytes.Equal(meta, m["_meta"]) {
		return params
	}
	if meta == nil {
		delete(m, "_meta")
	} else {
		m["_meta"] = meta
	}
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}

// rpcHandler answers one JSON-RPC request (or notification) with its raw
// result, or an error that becomes a JSON-RPC error.
type rpcHandler func(ctx context.Context, method string, params json.RawMessage) ([]byte, error)

// serveStdio reads newline-delimited JSON-RPC from r and runs h on each
// request concurrently, writing each answer whole, one per line, as it
// comes. It returns when r ends (after the answers in flight) or ctx is
// cancelled.
func serveStdio(ctx context.Context, r io.Reader, w io.Writer, h rpcHandler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wmu sync.Mutex
		wg  sync.WaitGroup
	)
	write := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		wmu.Lock()
		defer wmu.Unlock()
		w.Write(append(b, '\n'))
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			write(rpcErrorReply(nil, -32700, "parse error: "+err.Error()))
			continue
		}
		if msg.Method == "" {
			continue // a response from the client to us; we ask nothing
		}
		wg.Add(1)
		go func(id json.RawMessage, method string, params json.RawMessage) {
			defer wg.Done()
			res, err := h(ctx, method, params)
			if id == nil {
				return // a notification: no answer
			}
			if err != nil {
				write(rpcErrorReply(id, errCode(err), err.Error()))
				return
			}
			write(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
			}{"2.0", id, json.RawMessage(orEmpty(res))})
		}(msg.ID, msg.Method, msg.Params)
	}
	wg.Wait()
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("openlolo mcp: read stdin: %w", err)
	}
	return nil
}

func orEmpty(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return b
}

func rpcErrorReply(id json.RawMessage, code int, msg string) any {
	if id == nil {
		id = json.RawMessage("null")
	}
	return struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   map[string]any  `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": msg}}
}

// errCode picks the JSON-RPC error code for an error below MCP.
func errCode(err error) int {
	var pe *ProtocolError
	if errors.As(err, &pe) && pe.Code != 0 {
		return pe.Code
	}
	return -32603 // internal error: the box could not be reached or refused the grant
}
