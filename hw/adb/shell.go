package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Shell protocol v2 packet ids (shell_protocol.h): a 1-byte id and a
// little-endian u32 length, then the data.
const (
	ShellStdin      = 0
	ShellStdout     = 1
	ShellStderr     = 2
	ShellExit       = 3
	ShellCloseStdin = 4
	ShellWindowSize = 5
)

// MaxOutput bounds what [Conn.Shell] and [Conn.Exec] keep of a command's
// output (a 1440×3200 raw screenshot is 18 MB).
const MaxOutput = 64 << 20

// ErrOutputTooLarge: a command wrote more than [MaxOutput].
var ErrOutputTooLarge = fmt.Errorf("adb: command output is larger than %d bytes", MaxOutput)

// ShellResult is what a shell command left: its output, its error output
// and its exit status.
type ShellResult struct {
	Stdout, Stderr []byte
	ExitCode       int
}

// WriteShellPacket writes one shell protocol v2 packet.
func WriteShellPacket(w io.Writer, id byte, data []byte) error {
	hdr := [5]byte{id}
	binary.LittleEndian.PutUint32(hdr[1:], uint32(len(data)))
	_, err := w.Write(append(hdr[:], data...))
	return err
}

// ReadShellPacket reads one shell protocol v2 packet of at most max
// bytes of data.
func ReadShellPacket(r io.Reader, max uint32) (id byte, data []byte, err error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[1:])
	if n > max {
		return 0, nil, fmt.Errorf("adb: shell packet of %d bytes (at most %d)", n, max)
	}
	data = make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, noEOF(err)
	}
	return hdr[0], data, nil
}

// Shell runs cmd in the phone's shell (shell protocol v2, no terminal)
// and returns its output and exit status. A phone without shell_v2 runs
// it over the old shell service, which mixes stderr into stdout and
// reports no exit status (ExitCode -1).
func (c *Conn) Shell(ctx context.Context, cmd string) (ShellResult, error) {
	if !c.HasFeature("shell_v2") {
		out, err := c.run(ctx, "shell:"+cmd)
		return ShellResult{Stdout: out, ExitCode: -1}, err
	}
	s, err := c.Open(ctx, "shell,v2,raw:"+cmd)
	if err != nil {
		return ShellResult{}, err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	var res ShellResult
	var stdout, stderr bytes.Buffer
	for {
		id, data, err := ReadShellPacket(s, MaxPayload)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			} else if errors.Is(err, io.EOF) {
				err = fmt.Errorf("adb: shell %q: the phone closed the stream without an exit status", cmd)
			}
			return ShellResult{}, fmt.Errorf("adb: shell %q: %w", cmd, err)
		}
		switch id {
		case ShellStdout:
			stdout.Write(data)
		case ShellStderr:
			stderr.Write(data)
		case ShellExit:
			if len(data) != 1 {
				return ShellResult{}, fmt.Errorf("adb: shell %q: exit packet of %d bytes", cmd, len(data))
			}
			res.Stdout, res.Stderr, res.ExitCode = stdout.Bytes(), stderr.Bytes(), int(data[0])
			return res, nil
		}
		if stdout.Len()+stderr.Len() > MaxOutput {
			return ShellResult{}, fmt.Errorf("adb: shell %q: %w", cmd, ErrOutputTooLarge)
		}
	}
}

// Exec runs cmd with its raw output and no shell protocol ("exec:"),
// as `adb exec-out` does: the bytes are exactly what the command wrote
// (screencap's raw pixels). Exec needs no shell_v2.
func (c *Conn) Exec(ctx context.Context, cmd string) ([]byte, error) {
	return c.run(ctx, "exec:"+cmd)
}

func (c *Conn) run(ctx context.Context, service string) ([]byte, error) {
	s, err := c.Open(ctx, service)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	out, err := io.ReadAll(io.LimitReader(s, MaxOutput+1))
	if err == nil && len(out) > MaxOutput {
		err = ErrOutputTooLarge
	}
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("adb: %s: %w", service, err)
	}
	return out, nil
}
