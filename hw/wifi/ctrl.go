package wifi

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Ctrl is a client of a wpa_supplicant or hostapd control socket (a Unix
// datagram socket, one per interface, e.g. /run/wpa_supplicant/wlan0).
type Ctrl struct {
	Path     string // the daemon's socket
	LocalDir string // where the client's own socket is made; "" is os.TempDir()
}

var localSeq atomic.Uint64

// Request sends one command and returns the reply. Unsolicited event
// messages ("<3>CTRL-EVENT-...") are skipped.
func (c *Ctrl) Request(ctx context.Context, cmd string) (string, error) {
	conn, err := c.dialBound()
	if err != nil {
		return "", err
	}
	defer conn.close()
	return conn.request(ctx, cmd)
}

// boundConn is a client socket whose name is removed on close.
type boundConn struct {
	*net.UnixConn
	local string
}

func (c *Ctrl) dialBound() (*boundConn, error) {
	dir := c.LocalDir
	if dir == "" {
		dir = os.TempDir()
	}
	local := filepath.Join(dir, fmt.Sprintf("openlolo-ctrl-%d-%d", os.Getpid(), localSeq.Add(1)))
	conn, err := net.DialUnix("unixgram", &net.UnixAddr{Name: local, Net: "unixgram"}, &net.UnixAddr{Name: c.Path, Net: "unixgram"})
	if err != nil {
		return nil, fmt.Errorf("wifi: ctrl %s: %w", c.Path, err)
	}
	return &boundConn{UnixConn: conn, local: local}, nil
}

func (b *boundConn) close() {
	b.UnixConn.Close()
	os.Remove(b.local)
}

func (b *boundConn) request(ctx context.Context, cmd string) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	stop := context.AfterFunc(ctx, func() { b.SetDeadline(time.Now()) })
	defer stop()
	_ = b.SetDeadline(deadline)
	if _, err := b.Write([]byte(cmd)); err != nil {
		return "", fmt.Errorf("wifi: ctrl %s: %w", cmdName(cmd), err)
	}
	buf := make([]byte, 8192)
	for {
		n, err := b.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return "", fmt.Errorf("wifi: ctrl %s: %w", cmdName(cmd), err)
		}
		reply := string(buf[:n])
		if strings.HasPrefix(reply, "<") {
			continue
		}
		if strings.HasPrefix(reply, "FAIL") || strings.HasPrefix(reply, "UNKNOWN COMMAND") {
			return reply, fmt.Errorf("wifi: ctrl %s: %s", cmdName(cmd), strings.TrimSpace(reply))
		}
		return reply, nil
	}
}

// cmdName is the command without its arguments (which may hold a
// passphrase), for errors and logs.
func cmdName(cmd string) string {
	name, _, _ := strings.Cut(cmd, " ")
	return name
}

// Events is an attached control connection that receives the daemon's
// event messages.
type Events struct {
	conn *boundConn
}

// Attach opens a connection that receives events; Close it when done.
func (c *Ctrl) Attach(ctx context.Context) (*Events, error) {
	conn, err := c.dialBound()
	if err != nil {
		return nil, err
	}
	if reply, err := conn.request(ctx, "ATTACH"); err != nil || strings.TrimSpace(reply) != "OK" {
		conn.close()
		return nil, fmt.Errorf("wifi: ctrl attach: %q %v", reply, err)
	}
	return &Events{conn: conn}, nil
}

// Next returns the next event without its priority prefix
// ("CTRL-EVENT-CONNECTED - ...").
func (e *Events) Next(ctx context.Context) (string, error) {
	stop := context.AfterFunc(ctx, func() { e.conn.SetReadDeadline(time.Now()) })
	defer stop()
	_ = e.conn.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	for {
		n, err := e.conn.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return "", fmt.Errorf("wifi: ctrl event: %w", err)
		}
		msg := string(buf[:n])
		if !strings.HasPrefix(msg, "<") {
			continue // a late reply
		}
		if i := strings.IndexByte(msg, '>'); i > 0 {
			msg = msg[i+1:]
		}
		return strings.TrimRight(msg, "\n"), nil
	}
}

// Close detaches and closes the connection.
func (e *Events) Close() error {
	_, _ = e.conn.Write([]byte("DETACH"))
	e.conn.close()
	return nil
}
