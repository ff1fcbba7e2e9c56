// Package store keeps the box's state in one SQLite file, openlolo.db in the
// state directory: the owner, sessions, OAuth clients, grants and tokens,
// the operation journal and events.
//
// The file is created 0600 and opened in WAL mode with synchronous=FULL and
// foreign keys on. Schema changes are numbered migrations embedded in the
// binary (migrations/NNNN_name.sql) and applied in one transaction at
// [Open]; PRAGMA user_version records how far the file has come. A file
// that is not a healthy SQLite database, or that a newer version of the box
// wrote, is refused with [ErrCorrupt] or [ErrTooNew] and left untouched.
//
// Writes go through [Store.Update], which runs a function in a BEGIN
// IMMEDIATE transaction on the single writer connection, so writers never
// fail with SQLITE_BUSY; reads go through [Store.View] on a pool of
// read-only connections that WAL lets run beside the writer. The typed
// methods on [Tx] for each subject (owner, oauth, operations …) live in
// files named for that subject; no SQL leaves this package.
package store
