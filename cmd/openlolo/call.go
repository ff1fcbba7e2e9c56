package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/api"
	"github.com/openlolo/openlolo/sdk"
)

func callCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "call", "BOX TOOL [key=value …] [--text] [--out FILE] [--wait] [--keep-control]")
	text := fs.Bool("text", false, "print the agent text instead of the structured JSON")
	out := fs.String("out", "", "where to write the answer's images: FILE for one, FILE-1.jpg … FILE-N.jpg for several (openlolo_full_page); "+
		"without it a screenshot or full page goes to new temp files (paths printed) and an input's observation is not saved")
	wait := fs.Bool("wait", false, "when the box asks the owner first (status pending, exit 4), wait for their answer and send the call again with the same operation_id")
	keep := fs.Bool("keep-control", false, "keep control after the call; by default a call gives it back when it ends, so the next client is not refused with CONTROL_BUSY")
	pos, err := interleave(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) < 2 {
		return usagef("give a box and a tool: openlolo call openlolo-1a2b.local openlolo_status [key=value …]")
	}
	cl, err := dialBox(ctx, c, pos[0])
	if err != nil {
		return err
	}
	tool := pos[1]
	tools, err := cl.ListTools(ctx)
	if err != nil {
		return clientExit(err)
	}
	schema, ok := findTool(tools, tool)
	if !ok {
		return usagef("the box offers no tool %q to this client; it offers: %s", tool, strings.Join(toolNames(tools), ", "))
	}
	targs, err := typedArgs(schema, pos[2:])
	if err != nil {
		return err
	}
	send := func() (*sdk.Result, error) { return cl.CallTool(ctx, tool, targs) }
	if mutating(schema) {
		// Mutate puts the operation_id into targs: sending targs again is
		// the retry with the same id.
		send = func() (*sdk.Result, error) { return cl.Mutate(ctx, tool, targs) }
	}
	var ow *ownerWait
	if *wait {
		if ow, err = startOwnerWait(ctx, cl); err != nil {
			return clientExit(err)
		}
	}
	res, err := send()
	if ow != nil {
		res, err = ow.until(ctx, c, res, err, send)
	}
	if mutating(schema) && !*keep && tool != string(api.ToolControl) {
		giveBackControl(ctx, c, cl, res)
	}
	if res == nil && err != nil {
		return clientExit(err)
	}
	if werr := saveImages(c, *out, res); werr != nil {
		return &exitError{exitConnect, werr}
	}
	if *text {
		fmt.Fprintln(c.Stdout, res.Text)
	} else {
		b, _ := json.MarshalIndent(res.Structured, "", "  ")
		fmt.Fprintln(c.Stdout, string(b))
	}
	if ask, ok := sdk.IsAskPending(err); ok {
		fmt.Fprintf(c.Stderr, "pending: %v\n", ask)
		fmt.Fprintln(c.Stderr, "  next: openlolo call --wait waits for the owner's answer and sends the call again")
		return &exitError{exitPending, quietError{err}}
	}
	if err != nil {
		if r, ok := err.(*sdk.Refused); ok {
			fmt.Fprintf(c.Stderr, "refused: %s: %s\n", r.Code, r.Message)
			for _, s := range r.NextSteps {
				fmt.Fprintf(c.Stderr, "  next: %s\n", s)
			}
			return &exitError{exitRefused, quietError{err}}
		}
		return clientExit(err)
	}
	return nil
}

// quietError has already been explained on stderr; Main prints nothing more.
type quietError struct{ error }

func findTool(tools []map[string]any, name string) (map[string]any, bool) {
	for _, t := range tools {
		if t["name"] == name {
			return t, true
		}
	}
	return nil, false
}

func toolNames(tools []map[string]any) []string {
	var names []string
	for _, t := range tools {
		if n, ok := t["name"].(string); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// mutating reports whether a tool changes the phone: it takes an
// operation_id, so the SDK's once-only retry applies.
func mutating(tool map[string]any) bool {
	props := schemaProps(tool)
	_, ok := props["operation_id"]
	return ok
}

func schemaProps(tool map[string]any) map[string]any {
	in, _ := tool["inputSchema"].(map[string]any)
	props, _ := in["properties"].(map[string]any)
	return props
}

// typedArgs turns key=value words into arguments typed by the tool's input
// schema: numbers, booleans, JSON for arrays and objects, strings as given.
func typedArgs(tool map[string]any, words []string) (map[string]any, error) {
	props := schemaProps(tool)
	name, _ := tool["name"].(string)
	args := map[string]any{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, usagef("argument %q is not key=value", w)
		}
		p, ok := props[k].(map[string]any)
		if !ok {
			var keys []string
			for k := range props {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return nil, usagef("%s has no argument %q; it takes: %s", name, k, strings.Join(keys, ", "))
		}
		val, err := typed(p, v)
		if err != nil {
			return nil, usagef("%s=%q: %v", k, v, err)
		}
		args[k] = val
	}
	return args, nil
}

func typed(prop map[string]any, v string) (any, error) {
	typ, _ := prop["type"].(string)
	if typ == "" {
		if ts, ok := prop["type"].([]any); ok {
			for _, t := range ts {
				if s, _ := t.(string); s != "null" {
					typ = s
					break
				}
			}
		}
	}
	switch typ {
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number")
		}
		return f, nil
	case "integer":
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want a whole number")
		}
		return i, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("want true or false")
		}
		return b, nil
	case "array", "object":
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			if typ == "array" && !strings.HasPrefix(strings.TrimSpace(v), "[") {
				// a,b,c for an array of strings
				var out []any
				for _, s := range strings.Split(v, ",") {
					out = append(out, strings.TrimSpace(s))
				}
				return out, nil
			}
			return nil, fmt.Errorf("want JSON (%v)", err)
		}
		return x, nil
	}
	return v, nil
}
