package main

import (
	"archive/tar"
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openlolo/openlolo/hw/coredevice/lockdown"
	"github.com/openlolo/openlolo/image/vm"
)

func TestParseResults(t *testing.T) {
	t.Parallel()
	log := "boot noise\nRESULT keyboard-type-Hi! PASS presses ok (+1.0s)\r\n" +
		"[ 2.1] kernel line RESULT inside is not ours\nRESULT touch-android-tap FAIL no events\n" +
		"RESULT keyboard-type-Hi! FAIL second report wins\n"
	got := map[string]string{}
	order := parseResults(log, got)
	if strings.Join(order, ",") != "keyboard-type-Hi!,touch-android-tap" {
		t.Errorf("order = %v", order)
	}
	if got["keyboard-type-Hi!"] != "FAIL second report wins" || got["touch-android-tap"] != "FAIL no events" {
		t.Errorf("results = %q", got)
	}
}

// disk writes files as a tar at the start of a raw disk image.
func disk(t *testing.T, files map[string][]byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "export.img")
	if err := vm.NewDisk(p, 1<<20); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for name, b := range files {
		tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	f.WriteAt(buf.Bytes(), 0)
	f.Close()
	return p
}

func TestCheckFrame(t *testing.T) {
	t.Parallel()
	var pb bytes.Buffer
	png.Encode(&pb, image.NewRGBA(image.Rect(0, 0, 8, 4)))
	tests := []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"good", map[string][]byte{"frame.png": pb.Bytes(), "frame.txt": []byte("8 4 YUYV 0 0 8 4 1\n")}, "PASS frame.png 8x4"},
		{"size mismatch", map[string][]byte{"frame.png": pb.Bytes(), "frame.txt": []byte("640 360 YUYV\n")}, "FAIL frame.png is (8,4)"},
		{"not a png", map[string][]byte{"frame.png": []byte("nope"), "frame.txt": []byte("8 4 YUYV\n")}, "FAIL frame.png:"},
		{"no txt", map[string][]byte{"frame.png": pb.Bytes()}, "FAIL frame.txt:"},
	}
	for _, tt := range tests {
		if got := checkFrame(disk(t, tt.files)); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: checkFrame = %q, want prefix %q", tt.name, got, tt.want)
		}
	}
	empty := filepath.Join(t.TempDir(), "empty.img")
	vm.NewDisk(empty, 1<<20)
	if got := checkFrame(empty); !strings.HasPrefix(got, "FAIL") {
		t.Errorf("checkFrame(empty disk) = %q, want FAIL", got)
	}
}

// TestIPhoneKeys: the pair record made on the host is for the key the
// fake iPhone gets, so the guest can pair with it over USB.
func TestIPhoneKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyPath, recPath := filepath.Join(dir, "key"), filepath.Join(dir, "rec")
	if err := writeIPhoneKeys(keyPath, recPath); err != nil {
		t.Fatal(err)
	}
	kb, _ := os.ReadFile(keyPath)
	blk, _ := pem.Decode(kb)
	if blk == nil {
		t.Fatalf("key file is not PEM: %q", kb)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	key, ok := k.(*rsa.PrivateKey)
	if err != nil || !ok {
		t.Fatalf("key: %T, %v", k, err)
	}
	rb, _ := os.ReadFile(recPath)
	rec, err := lockdown.ParsePairRecord(rb)
	if err != nil {
		t.Fatal(err)
	}
	cblk, _ := pem.Decode(rec.DeviceCertificate)
	cert, err := x509.ParseCertificate(cblk.Bytes)
	if err != nil || !key.PublicKey.Equal(cert.PublicKey) || rec.SystemBUID != fakeBUID {
		t.Errorf("record's device certificate is not for the key (%v), BUID %q", err, rec.SystemBUID)
	}
}

// TestNoBinary: without the box's arm64 binary the run stops at once and
// says how to build it.
func TestNoBinary(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	err := run(vm.Fetcher{Cache: t.TempDir()}, filepath.Join(t.TempDir(), "missing"), false, time.Minute, false, &out)
	if err == nil || !strings.Contains(err.Error(), "make arm64") {
		t.Errorf("run without the binary = %v, want an error naming make arm64", err)
	}
}

// TestFetcherNeedsItsFiles: a missing sources file or pin list stops the
// run at once and says where to run from.
func TestFetcherNeedsItsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sources := filepath.Join(dir, "sources.list")
	if err := os.WriteFile(sources, []byte("deb http://deb.debian.org/debian bookworm main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sources, pins string }{
		{filepath.Join(dir, "none.list"), "../debian/packages.lock"},
		{sources, filepath.Join(dir, "none.lock")},
	} {
		if _, err := fetcher(dir, tc.sources, tc.pins); err == nil || !strings.Contains(err.Error(), "module root") {
			t.Errorf("fetcher(%s, %s) = %v, want an error naming the module root", tc.sources, tc.pins, err)
		}
	}
	f, err := fetcher(dir, sources, "../debian/packages.lock")
	if err != nil {
		t.Fatal(err)
	}
	if f.Pins["busybox-static"] == "" || f.Apt.SourceList != sources {
		t.Errorf("fetcher = %+v, want the card's pins and the private sources", f)
	}
}
