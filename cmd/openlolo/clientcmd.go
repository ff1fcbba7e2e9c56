package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/openlolo/openlolo/sdk"
)

// Exit statuses of the client commands (pair, call, mcp, boxes).
const (
	exitRefused = 1 // the box refused the call (code printed)
	exitUsage   = 2
	exitConnect = 3 // connection, pin or grant problem
	exitPending = 4 // the call waits for the owner's answer (an ask); nothing ran yet
)

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// clientExit classifies an SDK error into the exit statuses above.
func clientExit(err error) error {
	if err == nil {
		return nil
	}
	var (
		ref *sdk.Refused
		ue  *usageError
		ee  *exitError
	)
	switch {
	case errors.As(err, &ee), errors.As(err, &ue):
		return err
	case errors.As(err, &ref):
		return &exitError{exitRefused, err}
	}
	if _, ok := sdk.IsAskPending(err); ok {
		return &exitError{exitPending, err}
	}
	return &exitError{exitConnect, err}
}

// tokenStore is the user's token store, $XDG_CONFIG_HOME/openlolo/boxes.json
// (OPENLOLO_STORE overrides the path, for tests and several identities).
func tokenStore(c *Context) (*sdk.TokenStore, error) {
	if p := c.Getenv("OPENLOLO_STORE"); p != "" {
		return &sdk.TokenStore{Path: p}, nil
	}
	if x := c.Getenv("XDG_CONFIG_HOME"); x != "" {
		return &sdk.TokenStore{Path: filepath.Join(x, "openlolo", "boxes.json")}, nil
	}
	p, err := sdk.DefaultStorePath()
	if err != nil {
		return nil, err
	}
	return &sdk.TokenStore{Path: p}, nil
}

// dialBox opens the paired box the person named, with the user's token
// store; errors already carry their exit status.
func dialBox(ctx context.Context, c *Context, arg string) (*sdk.Client, error) {
	st, err := tokenStore(c)
	if err != nil {
		return nil, clientExit(err)
	}
	boxURL, err := resolveBox(st, arg)
	if err != nil {
		return nil, err
	}
	cl, err := sdk.Dial(ctx, boxURL, &sdk.Options{Store: st})
	if err != nil {
		return nil, clientExit(err)
	}
	return cl, nil
}

// resolveBox turns what the person typed into a stored box's URL: a URL or
// host is normalized; a bare name (openlolo-1a2b) matches a stored box's
// name, else becomes name.local.
func resolveBox(st *sdk.TokenStore, arg string) (string, error) {
	if !strings.ContainsAny(arg, ".:/") {
		boxes, err := st.List()
		if err != nil {
			return "", err
		}
		for _, b := range boxes {
			if b.Name == arg {
				return b.URL, nil
			}
		}
		arg += ".local"
	}
	u, err := sdk.NormalizeURL(arg)
	if err != nil {
		return "", usagef("%v", err)
	}
	return u, nil
}

// interleave parses flags that may stand between positional arguments
// ("call BOX TOOL --out f x=1") and returns the positional ones.
func interleave(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
