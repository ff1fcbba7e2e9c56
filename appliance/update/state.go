package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Phases of the update record.
const (
	PhaseTrying     = "trying"      // the new slot is armed for one boot, or on trial
	PhaseCommitted  = "committed"   // the new slot passed its check and boots from now on
	PhaseRolledBack = "rolled-back" // the trial failed; the old slot and the database before the update are back
)

// Record is the last update, kept in the state directory (update/state.json)
// across the reboots of a trial.
type Record struct {
	Phase       string    `json:"phase"`
	From        Slot      `json:"from"`
	To          Slot      `json:"to"`
	FromVersion string    `json:"from_version"`
	Version     string    `json:"version"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished,omitzero"`
	// Reason is why a trial failed, a sentence.
	Reason string `json:"reason,omitempty"`
}

// Files of the update folder in the state directory.
const (
	recordName   = "state.json"
	backupName   = "backup.db"
	trialLogName = "trial.log" // what the boot scripts saw of a trial that failed
)

// dir is the update folder of a state directory.
func dir(stateDir string) string { return filepath.Join(stateDir, "update") }

func readRecord(stateDir string) (Record, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir(stateDir), recordName))
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("update: read the update record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, false, fmt.Errorf("update: the update record %s is damaged: %w", filepath.Join(dir(stateDir), recordName), err)
	}
	return r, true, nil
}

func writeRecord(stateDir string, r Record) error {
	if err := os.MkdirAll(dir(stateDir), 0o700); err != nil {
		return fmt.Errorf("update: write the update record: %w", err)
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	if err := writeFileSync(filepath.Join(dir(stateDir), recordName), append(b, '\n')); err != nil {
		return fmt.Errorf("update: write the update record: %w", err)
	}
	return nil
}

// Boot is what [Recover] found at start-up.
type Boot struct {
	// Trial is true when this boot is a new version's trial: the box must
	// run [Updater.Confirm] once it serves.
	Trial bool
	// RolledBack is true when this boot is the old slot after a failed
	// trial; the database was restored.
	RolledBack bool
	// Record is the last update's record, if there is one.
	Record *Record
}

// Recover runs at start-up, before the database is opened: after a
// failed trial (the box runs the slot it updated from while the record
// says the new one was on trial) it puts the database backup taken
// before the update back in place and records why the trial failed. On
// a trial boot it reports Trial. stateDir holds openlolo.db and the
// update folder; dbName is the database's file name there.
func Recover(stateDir, dbName string, slots Slots, now time.Time) (Boot, error) {
	rec, ok, err := readRecord(stateDir)
	if err != nil || !ok {
		return Boot{}, err
	}
	b := Boot{Record: &rec}
	if rec.Phase != PhaseTrying {
		return b, nil
	}
	running, committed, err := slots.Booted()
	if err != nil {
		return b, err
	}
	switch {
	case running == rec.To && committed != rec.To:
		b.Trial = true
		return b, nil
	case running == rec.To && committed == rec.To:
		// committed, but the record's update was lost with the power
		rec.Phase, rec.Finished = PhaseCommitted, now
		return b, writeRecord(stateDir, rec)
	}
	// the old slot runs: the trial failed or never started
	if err := restoreDB(stateDir, dbName); err != nil {
		return b, err
	}
	reason := "The new version did not confirm itself after its first boot (it failed its self-check, crashed or hung), so the box went back to the version it ran before."
	if rec.Reason != "" {
		reason = rec.Reason
	}
	if log, err := os.ReadFile(filepath.Join(dir(stateDir), trialLogName)); err == nil && len(log) > 0 {
		reason += " The boot scripts said: " + strings.TrimSpace(lastLines(string(log), 3))
		os.Remove(filepath.Join(dir(stateDir), trialLogName))
	}
	rec.Phase, rec.Reason, rec.Finished = PhaseRolledBack, reason, now
	b.RolledBack = true
	return b, writeRecord(stateDir, rec)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " ")
}

// restoreDB puts the backup in place of the database: the WAL and shared
// memory files of the database it replaces go first (SQLite would apply
// a newer version's WAL to the restored file), then the backup is copied
// next to the database and renamed over it. It can be repeated after a
// power cut.
func restoreDB(stateDir, dbName string) error {
	src := filepath.Join(dir(stateDir), backupName)
	db := filepath.Join(stateDir, dbName)
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("update: restore the database from before the update: %w", err)
	}
	defer in.Close()
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Remove(db + ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("update: restore the database: %w", err)
		}
	}
	tmp := db + ".restore"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("update: restore the database: %w", err)
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, db)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("update: restore the database: %w", err)
	}
	if d, err := os.Open(stateDir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
