package vm

import (
	"fmt"
	"io"
	"strings"
)

// cpioWriter writes a "newc" cpio archive, the format the kernel unpacks
// into its initial root file system.
type cpioWriter struct {
	w   io.Writer
	ino uint32
	off int64
	err error
}

// cpio mode bits.
const (
	cpioDir  = 0o040000
	cpioFile = 0o100000
	cpioLink = 0o120000
	cpioChar = 0o020000
)

// entry writes one header, name and data (for files and symlinks).
func (c *cpioWriter) entry(name string, mode uint32, rmaj, rmin uint32, data []byte) error {
	if c.err != nil {
		return c.err
	}
	name = strings.TrimPrefix(name, "/")
	c.ino++
	nlink := 1
	if mode&0o170000 == cpioDir {
		nlink = 2
	}
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmaj, rmin, len(name)+1, 0)
	c.write([]byte(hdr))
	c.write([]byte(name + "\x00"))
	c.pad()
	c.write(data)
	c.pad()
	return c.err
}

func (c *cpioWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.off += int64(n)
	c.err = err
}

func (c *cpioWriter) pad() {
	if r := c.off % 4; r != 0 {
		c.write(make([]byte, 4-r))
	}
}

// Dir adds a directory.
func (c *cpioWriter) Dir(name string, perm uint32) error {
	return c.entry(name, cpioDir|perm, 0, 0, nil)
}

// File adds a regular file.
func (c *cpioWriter) File(name string, perm uint32, data []byte) error {
	return c.entry(name, cpioFile|perm, 0, 0, data)
}

// Symlink adds a symbolic link name → target.
func (c *cpioWriter) Symlink(name, target string) error {
	return c.entry(name, cpioLink|0o777, 0, 0, []byte(target))
}

// CharDev adds a character device node.
func (c *cpioWriter) CharDev(name string, perm, major, minor uint32) error {
	return c.entry(name, cpioChar|perm, major, minor, nil)
}

// Close writes the trailer.
func (c *cpioWriter) Close() error {
	return c.entry("TRAILER!!!", 0, 0, 0, nil)
}
