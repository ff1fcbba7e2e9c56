package vm

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
)

// NewDisk creates (or empties) a raw disk image of size bytes at path. Pass
// it as Config.Disk; the guest sees it as /dev/vda.
func NewDisk(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("vm: disk: %w", err)
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return fmt.Errorf("vm: disk: %w", err)
	}
	return f.Close()
}

// ReadTar reads the files of a tar stream written at the start of a raw
// disk image (in the guest: tar -cf /dev/vda -C DIR .). It returns regular
// files by their name in the archive ("./frame.png"). An empty disk is an
// error.
func ReadTar(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vm: read disk: %w", err)
	}
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("vm: read disk %s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("vm: read disk %s: %s: %w", path, h.Name, err)
		}
		files[h.Name] = b
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("vm: read disk %s: no files (did the guest write a tar to /dev/vda?)", path)
	}
	return files, nil
}
