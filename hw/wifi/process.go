package wifi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one daemon the package starts and stops (hostapd, udhcpd).
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
	out  *syncBuffer
}

// syncBuffer is a daemon's output, read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 64<<10 {
		s.b.Reset()
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (p *process) start(name, bin string, args ...string) error {
	if p.cmd != nil {
		return fmt.Errorf("wifi: %s: already running", name)
	}
	p.name, p.out = name, &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("wifi: %s: start: %w", name, err)
	}
	p.done = make(chan error, 1)
	go func(done chan<- error) { done <- cmd.Wait() }(p.done)
	p.cmd = cmd
	return nil
}

// exited returns the daemon's failure if it has ended, else nil.
func (p *process) exited() error {
	if p.cmd == nil {
		return fmt.Errorf("wifi: %s: not running", p.name)
	}
	select {
	case err := <-p.done:
		p.cmd = nil
		return fmt.Errorf("wifi: %s exited (%v): %s", p.name, err, strings.TrimSpace(p.out.String()))
	default:
		return nil
	}
}

// stop ends the daemon (SIGTERM, then SIGKILL after 5 s).
func (p *process) stop() error {
	if p.cmd == nil {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.cmd = nil
	return nil
}

func writeConf(dir, name string, conf []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, conf, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return path, nil
}

func touch(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return errors.Join(f.Close())
}
