package card

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Card is an image file with its partition table.
type Card struct {
	// Path is the image file.
	Path string
	// Table is its MBR.
	Table *Table
}

// Open reads the image at path.
func Open(path string) (*Card, error) {
	t, err := ReadTable(path)
	if err != nil {
		return nil, err
	}
	return &Card{Path: path, Table: t}, nil
}

// Partition numbers of an openlolo card.
const (
	BootPartition  = 1
	RootAPartition = 2
	RootBPartition = 3
	DataPartition  = 4
)

// BootFile returns the file at name (e.g. "openlolo/setup-code.txt") on
// the FAT partition 1, read with mcopy. A missing file is an error that
// wraps os.ErrNotExist.
func (c *Card) BootFile(ctx context.Context, name string) ([]byte, error) {
	p, err := c.Table.Partition(BootPartition)
	if err != nil {
		return nil, err
	}
	img := fmt.Sprintf("%s@@%d", c.Path, p.Offset())
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "mtype", "-i", img, "::/"+strings.TrimPrefix(name, "/"))
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("card: boot partition: %w (install Debian's mtools)", err)
		}
		if strings.Contains(msg, "not found") {
			return nil, fmt.Errorf("card: boot partition: %s: %w", name, os.ErrNotExist)
		}
		return nil, fmt.Errorf("card: boot partition: mtype %s: %v: %s", name, err, msg)
	}
	return out.Bytes(), nil
}

// CopyPartition writes partition n of the image to the file dst.
func (c *Card) CopyPartition(n int, dst string) error {
	p, err := c.Table.Partition(n)
	if err != nil {
		return err
	}
	src, err := os.Open(c.Path)
	if err != nil {
		return fmt.Errorf("card: copy partition %d: %w", n, err)
	}
	defer src.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("card: copy partition %d: %w", n, err)
	}
	if _, err := io.Copy(out, io.NewSectionReader(src, p.Offset(), p.Size())); err != nil {
		out.Close()
		return fmt.Errorf("card: copy partition %d to %s: %w", n, dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("card: copy partition %d to %s: %w", n, dst, err)
	}
	return nil
}

// DataFiles copies the files at paths (absolute inside the ext4 data
// partition 4, e.g. "/openlolo/openlolo.db") into dir with debugfs, without
// mounting, and returns the host paths in the same order. A path that is
// not on the partition is an error wrapping os.ErrNotExist.
func (c *Card) DataFiles(ctx context.Context, dir string, paths ...string) ([]string, error) {
	part := filepath.Join(dir, "data.ext4")
	if err := c.CopyPartition(DataPartition, part); err != nil {
		return nil, err
	}
	defer os.Remove(part)
	var out []string
	for _, p := range paths {
		dst := filepath.Join(dir, filepath.Base(p))
		var errb bytes.Buffer
		cmd := exec.CommandContext(ctx, "debugfs", "-R", "dump "+p+" "+dst, part)
		cmd.Stderr = &errb
		if err := cmd.Run(); errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("card: data partition: %w (install Debian's e2fsprogs)", err)
		} else if err != nil {
			return nil, fmt.Errorf("card: data partition: debugfs dump %s: %v: %s", p, err, strings.TrimSpace(errb.String()))
		}
		// debugfs exits 0 when the file is missing; it says so on stderr.
		if strings.Contains(errb.String(), "File not found") {
			return nil, fmt.Errorf("card: data partition: %s: %w", p, os.ErrNotExist)
		}
		if _, err := os.Stat(dst); err != nil {
			return nil, fmt.Errorf("card: data partition: %s: %w", p, err)
		}
		out = append(out, dst)
	}
	return out, nil
}
