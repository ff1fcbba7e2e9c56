package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fillAll puts a row into every table a factory reset empties.
func fillAll(t *testing.T, s *Store) {
	t.Helper()
	now := time.UnixMilli(1_800_000_000_000).UTC()
	err := s.Update(context.Background(), func(tx *Tx) error {
		steps := []func() error{
			func() error {
				return tx.SetOwner(Owner{Hash: []byte("h"), Salt: []byte("s"), TimeCost: 1, MemoryKiB: 8, Threads: 1, Created: now, Updated: now})
			},
			func() error { return tx.SetSetupCode("AAAA4444", now) },
			func() error {
				return tx.InsertOwnerSession(OwnerSession{IDHash: []byte("sess"), Created: now, LastSeen: now})
			},
			func() error { return tx.InsertOwnerFailure("claim", now) },
			func() error { return tx.SetOwnerLock("login", now.Add(time.Minute)) },
			func() error {
				return tx.InsertOAuthClient(OAuthClient{ClientID: "c1", Name: "nightly", Kind: "device", Entry: "lan", Created: now})
			},
			func() error {
				return tx.InsertGrant(OAuthGrant{GrantID: "g1", ClientID: "c1", Scopes: []string{"phone:read"}, Entry: "lan", Life: "forever", Created: now})
			},
			func() error {
				return tx.InsertToken(OAuthToken{Hash: "rt", GrantID: "g1", Kind: "refresh", Created: now})
			},
			func() error {
				return tx.InsertAuthCode(AuthCode{Hash: "ac", GrantID: "g1", RedirectURI: "http://127.0.0.1/cb", CodeChallenge: "x", Created: now, Expires: now.Add(time.Minute)})
			},
			func() error {
				return tx.InsertDeviceRequest(DeviceRequest{Handle: "h1", DeviceHash: "dh", UserCode: "BCDFGHJK", ClientID: "c1",
					Scopes: []string{"phone:read"}, Entry: "lan", Status: "pending", Interval: 5 * time.Second, Created: now, Expires: now.Add(time.Minute)})
			},
			func() error {
				return tx.InsertOperation(Operation{ID: "op1", ClientID: "c1", ClientName: "nightly", Tool: "openlolo_tap", Fingerprint: "f", State: OpSucceeded, Created: now, Updated: now})
			},
			func() error { return tx.SetOperationThumb("c1", "op1", Thumb{Width: 1, Height: 1, JPEG: []byte{0xff}}) },
			func() error { _, err := tx.InsertEvent(Event{At: now, Kind: "frame", Data: "{}"}); return err },
			func() error { return tx.SetSetting("journal.key", "kept") },
			func() error { return tx.InsertAction(Action{At: now, Actor: "owner", Action: "pause"}) },
			func() error {
				return tx.InsertAsk(Ask{ID: "a1", OperationID: "op2", ClientID: "c1", ClientName: "nightly", Tool: "openlolo_open_url",
					Fingerprint: "f", Kind: "url", What: "open a URL", State: AskPending, Created: now, Expires: now.Add(time.Minute)})
			},
			func() error { return tx.SetClientAskMark(AskMark{ClientID: "c1", Kind: "input", Ask: true}) },
			func() error { return tx.SetPhoneName("sim-1", "Anna's iPhone", now) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	err := s.View(context.Background(), func(tx *Tx) error {
		return tx.tx.QueryRow("SELECT count(*) FROM " + table).Scan(&n)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFactoryReset(t *testing.T) {
	ctx := context.Background()
	s := openT(t, t.TempDir())
	fillAll(t, s)
	for _, table := range resetTables {
		if count(t, s, table) == 0 {
			t.Fatalf("fillAll left %s empty; the test would prove nothing", table)
		}
	}

	// A reset whose transaction fails later leaves everything in place.
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.FactoryReset(); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	for _, table := range resetTables {
		if n := count(t, s, table); n == 0 {
			t.Errorf("%s emptied by a reset that rolled back", table)
		}
	}

	var lost map[string]int64
	err = s.Update(ctx, func(tx *Tx) (err error) {
		lost, err = tx.FactoryReset()
		if err != nil {
			return err
		}
		return tx.SetSetupCode("CCCC7777", time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range resetTables {
		want := 0
		if table == "owner_setup" {
			want = 1 // the new code, stored in the same transaction
		}
		if n := count(t, s, table); n != want {
			t.Errorf("%s has %d rows after the reset, want %d", table, n, want)
		}
		if lost[table] < 1 {
			t.Errorf("FactoryReset reported %d rows gone from %s, want at least 1", lost[table], table)
		}
	}
	if lost["oauth_clients"] != 1 || lost["operations"] != 1 {
		t.Errorf("FactoryReset counts = %v, want one client and one operation", lost)
	}
	var v string
	if err := s.View(ctx, func(tx *Tx) (err error) { v, err = tx.Setting("journal.key"); return err }); err != nil || v != "kept" {
		t.Errorf("setting after the reset = %q, %v; want it kept", v, err)
	}
}

// TestFactoryResetCoversEveryTable makes each new table a decision: a
// factory reset empties it, or it is listed here as kept.
func TestFactoryResetCoversEveryTable(t *testing.T) {
	s := openT(t, t.TempDir())
	kept := map[string]bool{"settings": true, "sqlite_sequence": true, "ask_marks": true}
	reset := map[string]bool{}
	for _, table := range resetTables {
		reset[table] = true
	}
	var tables []string
	err := s.View(context.Background(), func(tx *Tx) error {
		rows, err := tx.tx.Query("SELECT name FROM sqlite_master WHERE type = 'table'")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return err
			}
			tables = append(tables, name)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range tables {
		if !kept[name] && !reset[name] {
			t.Errorf("table %s is neither emptied by FactoryReset nor listed as kept", name)
		}
		delete(reset, name)
	}
	for name := range reset {
		t.Errorf("FactoryReset lists %s, which no migration creates", name)
	}
}
