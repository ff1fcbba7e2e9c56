// Command bundle makes the signed update bundle of an SD image build
// (make update-bundle) and the development key pair that signs it.
//
//	go run ./image/bundle key -dir keys
//	go run ./image/bundle build -key keys/update.key -version V -board rpi \
//	    -built EPOCH -root WORK/rootfs.squashfs -boot WORK/card/boot -o out/openlolo-V-rpi.update
//
// key makes keys/update.key (private, mode 0600, never in git) and
// keys/update.pub (the public key image/mkimage.sh puts on the root as
// /etc/openlolo/update.pub) unless update.key exists. build writes the
// bundle: the root image, the boot files of the slot (kernel, initramfs,
// device trees, overlays, cmdline.txt; not the firmware or config.txt,
// which both slots share) and the signed manifest.
package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openlolo/openlolo/appliance/update"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bundle key -dir DIR | bundle build [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "key":
		err = keyCmd(os.Args[2:])
	case "build":
		err = buildCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: use key or build", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

func keyCmd(args []string) error {
	fs := flag.NewFlagSet("key", flag.ExitOnError)
	dir := fs.String("dir", "keys", "folder of update.key and update.pub")
	fs.Parse(args)
	if _, err := os.Stat(filepath.Join(*dir, "update.key")); err == nil {
		if _, err := update.ReadPublicKey(filepath.Join(*dir, "update.pub")); err != nil {
			return fmt.Errorf("%s/update.key exists but update.pub does not read: %w", *dir, err)
		}
		return nil
	}
	pub, err := update.GenerateKey(*dir, nil)
	if err != nil {
		return err
	}
	fmt.Printf("bundle: made a development update key pair in %s (update.key stays out of git); public key %s", *dir, update.MarshalPublicKey(pub))
	return nil
}

func buildCmd(args []string) error {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	keyPath := fs.String("key", "keys/update.key", "the signing key")
	version := fs.String("version", "", "the image version")
	board := fs.String("board", "rpi", "the board the image runs on")
	built := fs.Int64("built", 0, "build time, Unix seconds (SOURCE_DATE_EPOCH)")
	root := fs.String("root", "", "the root image (rootfs.squashfs)")
	boot := fs.String("boot", "", "the staged boot partition folder")
	out := fs.String("o", "", "the bundle to write")
	fs.Parse(args)
	if *version == "" || *root == "" || *boot == "" || *out == "" || *built <= 0 {
		return errors.New("build needs -version, -built, -root, -boot and -o")
	}
	key, err := update.ReadPrivateKey(*keyPath)
	if err != nil {
		return err
	}
	pubLine, err := os.ReadFile(filepath.Join(filepath.Dir(*keyPath), "update.pub"))
	if err == nil {
		if pub, err := update.ParsePublicKey(pubLine); err != nil || !pub.Equal(key.Public().(ed25519.PublicKey)) {
			return fmt.Errorf("%s does not match update.pub beside it: a box built with that update.pub would refuse this bundle", *keyPath)
		}
	}
	srcs := []update.Source{fileSource(update.RootName, *root)}
	names, err := bootFiles(*boot)
	if err != nil {
		return err
	}
	for _, n := range names {
		srcs = append(srcs, fileSource("boot/"+n, filepath.Join(*boot, n)))
	}
	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	m, err := update.Write(f, key, update.Manifest{Version: *version, Board: *board, Built: *built}, srcs)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	fmt.Printf("bundle: %s: version %s for %s, root %d bytes, %d boot files\n", *out, m.Version, m.Board, m.Root().Size, len(m.Files)-1)
	return nil
}

// bootFiles lists the slot's own files in the staged boot folder: what
// the firmware loads through os_prefix (kernel, initramfs, cmdline.txt,
// device trees, overlays). Firmware, config.txt and the openlolo/ folder
// are shared by both slots and stay out.
func bootFiles(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "openlolo" || rel == "b" {
				return filepath.SkipDir
			}
			return nil
		}
		if slotFile(rel) {
			names = append(names, rel)
		}
		return nil
	})
	sort.Strings(names)
	if err == nil && !contains(names, "cmdline.txt") {
		err = fmt.Errorf("%s has no cmdline.txt: is it the staged boot partition (WORK/card/boot)?", dir)
	}
	return names, err
}

func slotFile(rel string) bool {
	base := filepath.Base(rel)
	switch {
	case strings.HasPrefix(rel, "overlays/"):
		return true
	case strings.Contains(rel, "/"):
		return false
	case base == "cmdline.txt", base == "initrd.img", base == "vmlinuz", base == "Image", base == "kernel8.img", base == "kernel_2712.img":
		return true
	case strings.HasSuffix(base, ".dtb"):
		return true
	}
	return false
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func fileSource(name, path string) update.Source {
	return update.Source{Name: name, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}
