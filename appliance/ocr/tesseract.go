package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Tesseract runs the tesseract program: the image goes in on stdin as a
// grayscale PNG, the words come back as TSV on stdout. The zero value runs
// "tesseract" from PATH with its own English data.
type Tesseract struct {
	// Path is the program (default "tesseract", looked up in PATH).
	Path string
	// DataDir, when set, is the tessdata directory (TESSDATA_PREFIX).
	DataDir string
	// Lang is the language (default "eng").
	Lang string
}

// Name names the engine.
func (t Tesseract) Name() string { return "tesseract" }

func (t Tesseract) lang() string {
	if t.Lang == "" {
		return "eng"
	}
	return t.Lang
}

// Check reports whether the program and its language data are there, with
// an error wrapping [ErrNoEngine] that says what to install when not.
func (t Tesseract) Check(ctx context.Context) error {
	path, err := t.lookPath()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, path, "--list-langs")
	cmd.Env = t.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s --list-langs: %v: %s", ErrNoEngine, path, err, firstLine(out))
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) == t.lang() {
			return nil
		}
	}
	return fmt.Errorf("%w: tesseract has no %q language data; install tesseract-ocr-%s (Debian) or put %s.traineddata in its tessdata directory",
		ErrNoEngine, t.lang(), t.lang(), t.lang())
}

func (t Tesseract) lookPath() (string, error) {
	p := t.Path
	if p == "" {
		p = "tesseract"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("%w: the tesseract program is not installed on this box (%v); install Debian's tesseract-ocr and tesseract-ocr-eng, or update the box to an image that ships them", ErrNoEngine, err)
	}
	return path, nil
}

func (t Tesseract) env() []string {
	env := os.Environ()
	if t.DataDir != "" {
		env = append(env, "TESSDATA_PREFIX="+filepath.Clean(t.DataDir))
	}
	// One thread per call: the box has few cores and calls are serialized
	// by the caller's rate limit, and OpenMP's spinning costs more than it
	// saves on a small image.
	return append(env, "OMP_THREAD_LIMIT=1")
}

// Recognize runs tesseract on img in sparse-text mode (page segmentation
// 11: screens are scattered labels, not paragraphs).
func (t Tesseract) Recognize(ctx context.Context, img image.Image) ([]Word, error) {
	path, err := t.lookPath()
	if err != nil {
		return nil, err
	}
	var in bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	if err := enc.Encode(&in, Gray(img)); err != nil {
		return nil, fmt.Errorf("ocr: encode frame: %w", err)
	}
	cmd := exec.CommandContext(ctx, path, "stdin", "stdout", "-l", t.lang(), "--psm", "11", "tsv")
	cmd.Env = t.env()
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ocr: tesseract: %w", ctx.Err())
		}
		msg := stderr.String()
		if strings.Contains(msg, "Failed loading language") || strings.Contains(msg, "Error opening data file") {
			return nil, fmt.Errorf("%w: tesseract has no %q language data (%s); install tesseract-ocr-%s", ErrNoEngine, t.lang(), firstLine([]byte(msg)), t.lang())
		}
		return nil, fmt.Errorf("ocr: tesseract: %v: %s", err, firstLine(stderr.Bytes()))
	}
	return ParseTSV(out.Bytes())
}

// ParseTSV reads tesseract's TSV output: the word rows (level 5) with text.
func ParseTSV(b []byte) ([]Word, error) {
	var words []Word
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if !strings.HasPrefix(line, "level\t") {
				return nil, fmt.Errorf("ocr: parse tsv: header %q is not tesseract's", line)
			}
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(strings.Join(f[11:], "\t"))
		if text == "" {
			continue
		}
		var n [10]int
		for i := range 10 {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, fmt.Errorf("ocr: parse tsv: column %d of %q: %w", i+1, line, err)
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, fmt.Errorf("ocr: parse tsv: confidence of %q: %w", line, err)
		}
		if conf < 0 {
			continue
		}
		words = append(words, Word{
			Text: text, Conf: min(conf, 100) / 100,
			Box: image.Rect(n[6], n[7], n[6]+n[8], n[7]+n[9]),
			// page, block, paragraph, line
			Line: ((n[1]*1000+n[2])*1000+n[3])*1000 + n[4],
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ocr: parse tsv: %w", err)
	}
	if first {
		return nil, errors.New("ocr: parse tsv: tesseract wrote nothing")
	}
	return words, nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}
