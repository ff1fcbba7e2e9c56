// Command openlolo is the box (openlolo serve) and the tools around it.
// Run "openlolo help" for the list of commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// version is set at link time: -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default action: a second
		// Ctrl-C ends a shutdown that waits too long.
		<-ctx.Done()
		stop()
	}()
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		exe = ""
	}
	code := Main(ctx, &Context{
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Args:       os.Args[1:],
		Env:        os.Environ(),
		Executable: exe,
	})
	stop()
	os.Exit(code)
}

// Context is one run of the program: its arguments (without the program
// name), environment and standard streams. Tests run commands in-process
// with buffers.
type Context struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Args           []string
	Env            []string // KEY=VALUE, as os.Environ
	// Executable is this program's absolute path (os.Executable), for the
	// commands it prints; "" prints the bare name openlolo.
	Executable string
	// ConnState, when set, follows the connections of serve's LAN entry
	// (appliance.Config.ConnState): tests wait on it until the box has
	// read a request's headers. nil: nothing is called.
	ConnState func(net.Conn, http.ConnState)
}

// Getenv returns the value of key in c.Env, or "".
func (c *Context) Getenv(key string) string {
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// logger logs to Stderr; OPENLOLO_LOG=debug shows debug messages.
func (c *Context) logger() *slog.Logger {
	level := slog.LevelInfo
	if strings.EqualFold(c.Getenv("OPENLOLO_LOG"), "debug") {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: level}))
}

// command is one subcommand. run gets the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *Context, args []string) error
	hidden  bool
}

// commands is the command table: one line per command, each implemented in
// the file of the same name.
func commands() []command {
	return []command{
		{name: "serve", summary: "run the box: LAN HTTPS, box page, OAuth and MCP on a phone backend", run: serve},
		{name: "fingerprint", summary: "print the certificate pins of a state dir or of a box at https://host:port", run: fingerprint},
		{name: "owner", summary: "owner account tools: owner reset-passphrase --state DIR", run: ownerCmd},
		{name: "version", summary: "print the version", run: versionCmd},
		{name: "pair", summary: "pair with a box: confirm its certificate, ask the owner to approve, store the grant", run: pairCmd},
		{name: "call", summary: "call one tool on a paired box: openlolo call BOX TOOL key=value …", run: callCmd},
		{name: "mcp", summary: "serve MCP on stdio for a local agent, forwarding to a paired box", run: mcpCmd},
		{name: "update", summary: "install a signed update bundle on a box as its owner: openlolo update BOX BUNDLE", run: updateCmd},
		{name: "fleet", summary: "serve the phones of every paired box as one MCP endpoint on the tailnet: fleet serve [--allow WHO]", run: fleetCmd},
		{name: "boxes", summary: "list the boxes this user has paired with", run: boxesCmd},
		{name: "profiles", summary: "check the owner's app profile file: profiles check --state DIR | FILE", run: profilesCmd},
		{name: "selftest", summary: "check a phone attached to this machine and print a report: selftest --phone coredevice --state DIR, or --phone gadget", run: selftest},
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// Main runs the command c.Args names and returns the exit status: 0 on
// success, 1 when the command failed, 2 for a usage mistake.
func Main(ctx context.Context, c *Context) int {
	if len(c.Args) == 0 {
		usage(c.Stderr)
		return 2
	}
	name, args := c.Args[0], c.Args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(c.Stdout)
		return 0
	}
	for _, cmd := range commands() {
		if cmd.name != name {
			continue
		}
		err := cmd.run(ctx, c, args)
		var (
			ue *usageError
			ee *exitError
			qe quietError
		)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ee):
			if !errors.As(err, &qe) {
				fmt.Fprintf(c.Stderr, "openlolo %s: %v\n", name, err)
			}
			return ee.code
		case errors.As(err, &ue):
			fmt.Fprintf(c.Stderr, "openlolo %s: %v\n", name, err)
			return 2
		default:
			fmt.Fprintf(c.Stderr, "openlolo %s: %v\n", name, err)
			return 1
		}
	}
	fmt.Fprintf(c.Stderr, "openlolo: unknown command %q\n\n", name)
	usage(c.Stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: openlolo <command> [flags]\n\ncommands:\n")
	cmds := commands()
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, cmd := range cmds {
		if !cmd.hidden {
			fmt.Fprintf(w, "  %-12s %s\n", cmd.name, cmd.summary)
		}
	}
	fmt.Fprintf(w, "\nRun openlolo <command> -h for a command's flags.\n")
}

// flags returns a flag set for command name that prints to c.Stderr and
// returns errors instead of exiting.
func flags(c *Context, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.Stderr, "usage: openlolo %s %s\n\nflags:\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args into fs; a bad flag is a usage error (flag has already
// printed what was wrong and the usage).
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	return nil
}
