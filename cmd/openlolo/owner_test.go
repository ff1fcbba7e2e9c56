package main

import (
	"context"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/store"
)

func TestOwnerResetPassphrase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, stdout, stderr := run(t, "correct horse battery staple\n", "owner", "reset-passphrase", "--state", dir)
	if code != 0 || !strings.Contains(stdout, "passphrase is set") {
		t.Fatalf("reset-passphrase = %d %q %q", code, stdout, stderr)
	}
	st, err = store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.View(context.Background(), func(tx *store.Tx) error {
		_, err := tx.Owner()
		return err
	})
	if err != nil {
		t.Errorf("no owner after reset-passphrase: %v", err)
	}

	tests := []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"x\n", []string{"owner"}, 2, "reset-passphrase --state DIR"},
		{"x\n", []string{"owner", "reset-passphrase"}, 2, "reset-passphrase --state DIR"},
		{"correct horse battery staple\n", []string{"owner", "reset-passphrase", "--state", t.TempDir()}, 1, "no box in"},
		{"", []string{"owner", "reset-passphrase", "--state", dir}, 1, "read passphrase"},
		{"short\n", []string{"owner", "reset-passphrase", "--state", dir}, 1, "passphrase"},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, tt.stdin, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("openlolo %q <%q = %d %q, want %d with %q", tt.args, tt.stdin, code, stderr, tt.code, tt.want)
		}
	}
}
