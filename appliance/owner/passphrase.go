package owner

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/openlolo/openlolo/appliance/store"
)

// Passphrase limits.
const (
	MinPassphrase = 10   // characters
	MaxPassphrase = 1024 // bytes
)

// argon2id parameters for new hashes (RFC 9106 §4, second recommended
// option). Each hash keeps its own parameters, so these may change.
const (
	argonTime    = 3
	argonMemory  = 64 * 1024 // KiB
	argonThreads = 4
	argonKeyLen  = 32
	argonSaltLen = 16
)

// ErrPassphrase is returned for a passphrase that breaks the rules above.
var ErrPassphrase = errors.New("owner: passphrase must be at least 10 characters and at most 1024 bytes")

func checkPassphrase(p string) error {
	if utf8.RuneCountInString(p) < MinPassphrase || len(p) > MaxPassphrase || !utf8.ValidString(p) {
		return ErrPassphrase
	}
	return nil
}

// hashPassphrase makes a new owner record for p with a fresh salt.
func hashPassphrase(p string, now time.Time) (store.Owner, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return store.Owner{}, fmt.Errorf("owner: salt: %w", err)
	}
	return store.Owner{
		Hash:      argonKey(p, salt, argonTime, argonMemory, argonThreads, argonKeyLen),
		Salt:      salt,
		TimeCost:  argonTime,
		MemoryKiB: argonMemory,
		Threads:   argonThreads,
		Created:   now,
		Updated:   now,
	}, nil
}

// argonKey is argon2id of p, after which the hash's memory (memKiB,
// 64 MiB for new hashes) goes back to the system at once: left to the
// collector it stayed resident (a box idling at 35 MiB sat at 111 MiB
// after one login) and, on a 512 MB Pi Zero 2 W, counted against
// everything else. FreeOSMemory collects and returns the freed pages; it
// costs one collection of the box's small heap (a few ms, against the
// hash's hundreds). Callers hold the box's hash slot ([HashSlot]), so
// only one hash's memory is ever taken.
func argonKey(p string, salt []byte, time, memKiB uint32, threads uint8, keyLen uint32) []byte {
	key := argon2.IDKey([]byte(p), salt, time, memKiB, threads, keyLen)
	debug.FreeOSMemory()
	return key
}

// HashSlot lets one argon2 hash run at a time: each takes 64 MiB, so N
// logins at once would take N times that. A box makes one and gives it to
// every owner page it serves (LAN and tailnet) through Config.HashSlot.
type HashSlot chan struct{}

// NewHashSlot makes a free hash slot.
func NewHashSlot() HashSlot { return make(HashSlot, 1) }

// matches reports whether p is o's passphrase, hashing with o's own
// parameters.
func matches(o store.Owner, p string) bool {
	if len(p) > MaxPassphrase || o.Threads == 0 || len(o.Hash) == 0 {
		return false
	}
	got := argonKey(p, o.Salt, o.TimeCost, o.MemoryKiB, o.Threads, uint32(len(o.Hash)))
	return subtle.ConstantTimeCompare(got, o.Hash) == 1
}

// ResetPassphrase sets the owner's passphrase to passphrase and ends every
// owner session. It is the console command `openlolo owner reset-passphrase`
// (physical access is the proof). On an unclaimed box it claims the box and
// voids the setup code.
func ResetPassphrase(ctx context.Context, st *store.Store, passphrase string) error {
	if err := checkPassphrase(passphrase); err != nil {
		return err
	}
	o, err := hashPassphrase(passphrase, time.Now().UTC())
	if err != nil {
		return err
	}
	err = st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SetOwner(o); err != nil {
			return err
		}
		if err := tx.DeleteSetupCode(); err != nil {
			return err
		}
		if err := tx.DeleteOwnerFailures(kindLogin); err != nil {
			return err
		}
		return tx.DeleteOwnerSessions()
	})
	if err != nil {
		return fmt.Errorf("owner: reset passphrase: %w", err)
	}
	return nil
}
