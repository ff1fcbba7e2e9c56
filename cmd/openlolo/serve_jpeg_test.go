package main

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// --jpeg-encoder: software opens nothing; auto on a machine without a
// hardware encoder says so in the log and encodes in software; a node that
// is no encoder, and a value that is neither, are usage errors that say
// what to give.
func TestOpenJPEG(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if j, err := openJPEG(jpegSoftware, "", log); j != nil || err != nil {
		t.Fatalf("software: %v, %v", j, err)
	}
	j, err := openJPEG(jpegAuto, t.TempDir(), log)
	if j != nil || err != nil || !strings.Contains(logs.String(), "pictures are encoded in software") || !strings.Contains(logs.String(), "no video device") {
		t.Fatalf("auto without video nodes: %v, %v; log %q", j, err, logs.String())
	}
	for _, tc := range []struct{ choice, want string }{
		{"/dev/null", "--jpeg-encoder /dev/null: capture: no hardware JPEG encoder: /dev/null: QUERYCAP"},
		{"/dev/video99-none", "--jpeg-encoder /dev/video99-none: capture: no hardware JPEG encoder: /dev/video99-none: open video99-none"},
		{"fast", `--jpeg-encoder "fast": give auto, software or a video node`},
	} {
		_, err := openJPEG(tc.choice, "", log)
		var u *usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a usage error %q", tc.choice, err, tc.want)
		}
	}
}
