package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openlolo/openlolo/appliance/owner"
	"github.com/openlolo/openlolo/appliance/store"
)

func ownerCmd(ctx context.Context, c *Context, args []string) error {
	if len(args) == 0 || args[0] != "reset-passphrase" {
		return usagef("usage: openlolo owner reset-passphrase --state DIR (the new passphrase is read from standard input)")
	}
	fl := flags(c, "owner reset-passphrase", "--state DIR < passphrase")
	state := fl.String("state", "", "state directory of the box")
	if err := parse(fl, args[1:]); err != nil {
		return err
	}
	if *state == "" || fl.NArg() > 0 {
		return usagef("usage: openlolo owner reset-passphrase --state DIR (the new passphrase is read from standard input)")
	}
	// Never create a database here: a typo in --state must not make an
	// empty box.
	if _, err := os.Stat(filepath.Join(*state, store.FileName)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no box in %s: %s does not exist", *state, store.FileName)
	}
	fmt.Fprintf(c.Stderr, "New passphrase (one line, at least 10 characters): ")
	line, err := bufio.NewReader(c.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("read passphrase from standard input: %w", err)
	}
	fmt.Fprintln(c.Stderr)
	pass := strings.TrimRight(line, "\r\n")
	st, err := store.Open(ctx, *state)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := owner.ResetPassphrase(ctx, st, pass); err != nil {
		return err
	}
	fmt.Fprintln(c.Stdout, "The owner passphrase is set; existing owner sessions were signed out.")
	return st.Close()
}
