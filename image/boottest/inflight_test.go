package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/store"
)

// After a power cut the last access token may be refused because the
// refresh in flight had committed; inflightCommitted must tell that apart,
// on the real schema, from an acknowledged pair that was lost.
func TestInflightCommitted(t *testing.T) {
	h := func(s string) string { x := sha256.Sum256([]byte(s)); return hex.EncodeToString(x[:]) }
	tests := []struct {
		name    string
		rows    []string // SQL run after the grant exists
		wantErr string
	}{
		{"committed in flight", []string{
			"INSERT INTO oauth_tokens (hash, grant_id, kind, created_ms, expires_ms, used_ms) VALUES ('" + h("rt-last") + "', 'g1', 'refresh', 100, 0, 150)",
			"INSERT INTO oauth_tokens (hash, grant_id, kind, created_ms, expires_ms, used_ms) VALUES ('" + h("rt-next") + "', 'g1', 'refresh', 150, 0, 0)",
		}, ""},
		{"acknowledged pair lost", []string{
			"INSERT INTO oauth_tokens (hash, grant_id, kind, created_ms, expires_ms, used_ms) VALUES ('" + h("rt-older") + "', 'g1', 'refresh', 50, 0, 0)",
		}, "write was lost"},
		{"access token lost", []string{
			"INSERT INTO oauth_tokens (hash, grant_id, kind, created_ms, expires_ms, used_ms) VALUES ('" + h("rt-last") + "', 'g1', 'refresh', 100, 0, 0)",
		}, "never used"},
		{"grant revoked", []string{
			"INSERT INTO oauth_tokens (hash, grant_id, kind, created_ms, expires_ms, used_ms) VALUES ('" + h("rt-last") + "', 'g1', 'refresh', 100, 0, 150)",
			"INSERT INTO oauth_tokens (hash, grant_id, kind, created_ms, expires_ms, used_ms) VALUES ('" + h("rt-next") + "', 'g1', 'refresh', 150, 0, 0)",
			"UPDATE oauth_grants SET revoked_ms = 160",
		}, "revoked_ms 160"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := store.Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			path := filepath.Join(dir, store.FileName)
			db, err := sql.Open("sqlite3", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range append([]string{
				"INSERT INTO oauth_clients (client_id, name, kind, entry, created_ms) VALUES ('c1', 'script', 'device', 'lan', 1)",
				"INSERT INTO oauth_grants (grant_id, client_id, scopes, entry, life, created_ms) VALUES ('g1', 'c1', 'phone:read', 'lan', 'forever', 1)",
			}, tt.rows...) {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			db.Close()
			tb := &test{dbCopy: path, tok: &tokens{RefreshToken: "rt-last"}}
			err = tb.inflightCommitted(context.Background())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("inflightCommitted() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}
