package ocr_test

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/openlolo/openlolo/appliance/ocr"
)

const tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
	"1\t1\t0\t0\t0\t0\t0\t0\t700\t1536\t-1\t\n" +
	"5\t1\t2\t1\t1\t2\t160\t100\t50\t20\t90.5\tin\n" +
	"5\t1\t2\t1\t1\t1\t100\t100\t50\t20\t95\tSign\n" +
	"5\t1\t1\t1\t1\t1\t10\t10\t40\t20\t80\t9:41\n" +
	"5\t1\t3\t1\t1\t1\t10\t300\t40\t20\t-1\t \n" +
	"5\t1\t4\t1\t1\t1\t10\t400\t60\t20\t70\tSIGN\n"

func TestParseTSVLinesFind(t *testing.T) {
	words, err := ocr.ParseTSV([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != 4 {
		t.Fatalf("words %v, want 4 (the empty and conf -1 rows dropped)", words)
	}
	lines := ocr.Lines(words)
	var got []string
	for _, l := range lines {
		got = append(got, l.Text)
	}
	if strings.Join(got, "|") != "9:41|Sign in|SIGN" {
		t.Fatalf("lines %q, want top to bottom, words left to right", got)
	}
	if lines[1].Box != image.Rect(100, 100, 210, 120) || lines[1].Conf != (0.95+0.905)/2 {
		t.Errorf("line %+v: box or confidence wrong", lines[1])
	}
	ms := ocr.Find(lines, "  sign ")
	if len(ms) != 2 || ms[0].Text != "Sign" || ms[0].Box != image.Rect(100, 100, 150, 120) || ms[1].Text != "SIGN" {
		t.Errorf("find sign: %+v, want the word Sign (not the whole line) and SIGN", ms)
	}
	if ms := ocr.Find(lines, "SIGN IN"); len(ms) != 1 || ms[0].Box != lines[1].Box {
		t.Errorf("find sign in: %+v", ms)
	}
	if ms := ocr.Find(lines, "   "); ms != nil {
		t.Errorf("blank query matched %v", ms)
	}
}

func TestParseTSVRefusesOtherOutput(t *testing.T) {
	for _, in := range []string{"", "Tesseract Open Source OCR Engine\n", "level\n5\t1\t1\t1\t1\t1\tx\t0\t1\t1\t90\tw\n"} {
		if _, err := ocr.ParseTSV([]byte(in)); err == nil {
			t.Errorf("ParseTSV(%q) succeeded", in)
		}
	}
}

// A box without the program or without the language data says so with
// ErrNoEngine and what to install.
func TestNoEngine(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	_, err := ocr.Tesseract{Path: "/nonexistent/tesseract"}.Recognize(context.Background(), img)
	if !errors.Is(err, ocr.ErrNoEngine) || !strings.Contains(err.Error(), "tesseract-ocr") {
		t.Errorf("missing program: %v", err)
	}
	e := engine(t)
	e.Lang = "qqq"
	if err := e.Check(context.Background()); !errors.Is(err, ocr.ErrNoEngine) || !strings.Contains(err.Error(), "tesseract-ocr-qqq") {
		t.Errorf("missing language, Check: %v", err)
	}
	if _, err := e.Recognize(context.Background(), img); !errors.Is(err, ocr.ErrNoEngine) {
		t.Errorf("missing language, Recognize: %v", err)
	}
}

func TestGrayInvertsDarkScreens(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 1))
	copy(img.Pix, []byte{0x10, 0x20, 0x80, 255, 0xFF, 0xFF, 0xFF, 255, 0x10, 0x20, 0x80, 255})
	img2 := image.NewRGBA(image.Rect(0, 0, 3, 1))
	copy(img2.Pix, []byte{0xFF, 0xFF, 0xFF, 255, 0xFF, 0xFF, 0xFF, 255, 0xE0, 0xA8, 0x00, 255})
	if g := ocr.Gray(img); g.Pix[0] != 255-0x10 || g.Pix[1] != 0 {
		t.Errorf("dark image: %v, want inverted min channel", g.Pix)
	}
	if g := ocr.Gray(img2); g.Pix[2] != 0 || g.Pix[0] != 255 {
		t.Errorf("light image with yellow: %v, want yellow dark", g.Pix)
	}
}

// BenchmarkRecognize1536 is find_text's engine time on the sim's home
// screen at the default screenshot size (709×1536).
func BenchmarkRecognize1536(b *testing.B) {
	e := engine(b)
	img := frame1536(b, newSim(b))
	for b.Loop() {
		if _, err := e.Recognize(context.Background(), img); err != nil {
			b.Fatal(err)
		}
	}
}
