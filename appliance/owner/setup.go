package owner

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openlolo/openlolo/appliance/store"
)

// setupAlphabet has no characters that are easy to confuse (0/O, 1/I/L,
// 5/S, 2/Z, 8/B, U/V).
const setupAlphabet = "34679ACDEFGHJKMNPQRTWXY"

// setupLen is the setup code's length: 23^8 ≈ 7.8e10 codes.
const setupLen = 8

// SetupCode returns the box's setup code while the box is unclaimed,
// creating and storing one the first time; it also writes the code to
// Config.SetupCodeFile when that is set. Once the box is claimed it
// returns claimed = true and no code.
func (p *Pages) SetupCode(ctx context.Context) (code string, claimed bool, err error) {
	err = p.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.Owner(); err == nil {
			claimed = true
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		code, err = tx.SetupCode()
		if err == nil {
			return nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		code, err = newSetupCode()
		if err != nil {
			return err
		}
		return tx.SetSetupCode(code, p.now())
	})
	if err != nil {
		return "", false, fmt.Errorf("owner: setup code: %w", err)
	}
	if claimed {
		p.removeSetupCodeFile()
		return "", true, nil
	}
	if p.cfg.SetupCodeFile != "" {
		if err := os.MkdirAll(filepath.Dir(p.cfg.SetupCodeFile), 0o700); err != nil {
			return "", false, fmt.Errorf("owner: write setup code file: %w", err)
		}
		if err := os.WriteFile(p.cfg.SetupCodeFile, []byte(code+"\n"), 0o600); err != nil {
			return "", false, fmt.Errorf("owner: write setup code file: %w", err)
		}
	}
	return code, false, nil
}

func newSetupCode() (string, error) {
	b := make([]byte, setupLen)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("owner: setup code: %w", err)
	}
	// Rejection sampling keeps every character equally likely.
	out := make([]byte, 0, setupLen)
	for len(out) < setupLen {
		for _, c := range b {
			if int(c) < 256-256%len(setupAlphabet) && len(out) < setupLen {
				out = append(out, setupAlphabet[int(c)%len(setupAlphabet)])
			}
		}
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("owner: setup code: %w", err)
		}
	}
	return string(out), nil
}

// normalizeCode upper-cases a typed code and drops spaces and dashes.
func normalizeCode(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r == ' ' || r == '-' || r == '\t' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// removeSetupCodeFile deletes Config.SetupCodeFile once the box is claimed.
func (p *Pages) removeSetupCodeFile() {
	if p.cfg.SetupCodeFile == "" {
		return
	}
	if err := os.Remove(p.cfg.SetupCodeFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		p.log.Warn("owner: could not delete the setup code file", "file", p.cfg.SetupCodeFile, "err", err)
	}
}
