package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/openlolo/openlolo/appliance/store"
)

func versionCmd(ctx context.Context, c *Context, args []string) error {
	fs := flags(c, "version", "")
	check := fs.Bool("check-sqlite", false, "also open a temporary database to prove SQLite works in this binary")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "openlolo %s %s/%s %s\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
	if !*check {
		return nil
	}
	return checkSQLite(ctx, c)
}

// checkSQLite opens a store in a temporary directory, writes and reads a
// value, and runs an integrity check.
func checkSQLite(ctx context.Context, c *Context) error {
	dir, err := os.MkdirTemp("", "openlolo-check-")
	if err != nil {
		return fmt.Errorf("check sqlite: %w", err)
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, dir)
	if err != nil {
		return fmt.Errorf("check sqlite: %w", err)
	}
	defer st.Close()
	const want = "written by openlolo version --check-sqlite"
	if err := st.Update(ctx, func(tx *store.Tx) error { return tx.SetSetting("check", want) }); err != nil {
		return fmt.Errorf("check sqlite: %w", err)
	}
	var got string
	if err := st.View(ctx, func(tx *store.Tx) (err error) { got, err = tx.Setting("check"); return err }); err != nil {
		return fmt.Errorf("check sqlite: %w", err)
	}
	if got != want {
		return fmt.Errorf("check sqlite: read back %q, wrote %q", got, want)
	}
	if err := st.IntegrityCheck(ctx); err != nil {
		return fmt.Errorf("check sqlite: %w", err)
	}
	v, err := st.Version(ctx)
	if err != nil {
		return fmt.Errorf("check sqlite: %w", err)
	}
	fmt.Fprintf(c.Stdout, "sqlite ok: schema %d, write, read and integrity check passed\n", v)
	return st.Close()
}
