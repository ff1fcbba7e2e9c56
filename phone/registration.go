package phone

import (
	"context"
	"flag"
	"log/slog"
)

// Registration is a phone backend's registration with the binary: the name
// `openlolo serve --phone` takes, its own flags, how it opens, and how
// --phone auto finds its phone. Each backend package exports one;
// cmd/openlolo lists them in one table, whose order is the order --phone
// auto tries them. Adding a backend is a new package plus one line there.
type Registration struct {
	// Name is what --phone takes, e.g. "sim".
	Name string
	// Help says in a few words what it drives, for --phone's usage, e.g.
	// "a simulated iPhone".
	Help string
	// AutoHelp says when --phone auto takes it, e.g. "if usbmuxd sees an
	// iPhone"; empty when auto takes it whenever it is reached.
	AutoHelp string
	// Flags adds the backend's own flags to fs and returns what opens
	// the backend with their values once fs is parsed.
	Flags func(fs *flag.FlagSet) Opener
}

// Opener opens a registered backend with its parsed flags.
type Opener struct {
	// Open opens the backend because --phone names it.
	Open func(ctx context.Context, env Env) (Phone, error)
	// Auto opens it for --phone auto when its phone is there. An error
	// wrapping [ErrUnavailable] says it is not (auto tries the next
	// backend); any other error stops auto. Nil: auto never takes it.
	Auto func(ctx context.Context, env Env) (Phone, error)
	// Check, if set, refuses flag values that do not fit the backend
	// --phone names (chosen, which may be "auto"): a usage mistake. It
	// runs before any backend opens.
	Check func(chosen string) error
}

// Env is what the binary gives every backend it opens.
type Env struct {
	// StateDir is the box's state directory; a backend keeps its files
	// in a folder of its name below it.
	StateDir string
	// Logger is the box's logger, tagged with the backend's name.
	Logger *slog.Logger
}
