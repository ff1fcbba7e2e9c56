package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/openlolo/openlolo/sdk"
)

func callCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "call", "BOX TOOL [key=value …] [--text] [--out FILE]")
	text := fs.Bool("text", false, "print the agent text instead of the structured JSON")
	out := fs.String("out", "", "where to write a screenshot (default: a new temp file, whose path is printed)")
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
	var res *sdk.Result
	if mutating(schema) {
		res, err = cl.Mutate(ctx, tool, targs)
	} else {
		res, err = cl.CallTool(ctx, tool, targs)
	}
	if res == nil && err != nil {
		return clientExit(err)
	}
	if len(res.Images) > 0 {
		path, werr := writeImage(*out, res.Images[0])
		if werr != nil {
			return &exitError{exitConnect, werr}
		}
		if res.Structured == nil {
			res.Structured = map[string]any{}
		}
		res.Structured["image_file"] = path
		fmt.Fprintf(c.Stderr, "image written to %s\n", path)
	}
	if *text {
		fmt.Fprintln(c.Stdout, res.Text)
	} else {
		b, _ := json.MarshalIndent(res.Structured, "", "  ")
		fmt.Fprintln(c.Stdout, string(b))
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

// writeImage writes an image block to path, or to a new temp file.
func writeImage(path string, img sdk.Image) (string, error) {
	if path == "" {
		ext := ".jpg"
		if img.MIMEType == "image/png" {
			ext = ".png"
		}
		f, err := os.CreateTemp("", "openlolo-screenshot-*"+ext)
		if err != nil {
			return "", fmt.Errorf("write screenshot: %w", err)
		}
		defer f.Close()
		if _, err := f.Write(img.Data); err != nil {
			return "", fmt.Errorf("write screenshot: %w", err)
		}
		return f.Name(), f.Close()
	}
	if err := os.WriteFile(path, img.Data, 0o644); err != nil {
		return "", fmt.Errorf("write screenshot: %w", err)
	}
	return path, nil
}
