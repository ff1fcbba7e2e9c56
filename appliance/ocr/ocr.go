package ocr

import (
	"context"
	"errors"
	"image"
	"slices"
	"strings"
)

// ErrNoEngine is wrapped by every error that says the OCR engine is not
// installed or cannot run on this box (as opposed to a frame it failed on).
var ErrNoEngine = errors.New("ocr: no engine")

// Engine reads the text of an image.
type Engine interface {
	// Name names the engine and its version, e.g. "tesseract 5.3.0".
	Name() string
	// Recognize returns the words of img, each with its box in img's
	// pixels. It honours ctx.
	Recognize(ctx context.Context, img image.Image) ([]Word, error)
}

// Word is one word the engine read.
type Word struct {
	Text string
	// Conf is the engine's confidence in [0,1].
	Conf float64
	// Box is the word's box in the image's pixels.
	Box image.Rectangle
	// Line identifies the line the word belongs to; words of one line
	// share it.
	Line int
}

// Line is a line of text: its words joined by spaces, the mean confidence
// and the union of the words' boxes.
type Line struct {
	Text  string
	Conf  float64
	Box   image.Rectangle
	Words []Word
}

// Lines groups words by line, the lines ordered top to bottom (then left
// to right), each line's words left to right.
func Lines(words []Word) []Line {
	var lines []Line
	idx := map[int]int{}
	for _, w := range words {
		i, ok := idx[w.Line]
		if !ok {
			i = len(lines)
			idx[w.Line] = i
			lines = append(lines, Line{Box: w.Box})
		}
		lines[i].Words = append(lines[i].Words, w)
		lines[i].Box = lines[i].Box.Union(w.Box)
	}
	for i := range lines {
		l := &lines[i]
		slices.SortFunc(l.Words, func(a, b Word) int { return a.Box.Min.X - b.Box.Min.X })
		texts := make([]string, len(l.Words))
		sum := 0.0
		for j, w := range l.Words {
			texts[j] = w.Text
			sum += w.Conf
		}
		l.Text = strings.Join(texts, " ")
		l.Conf = sum / float64(len(l.Words))
	}
	slices.SortStableFunc(lines, func(a, b Line) int {
		// Lines whose vertical centres are within half a line's height
		// are one row; left to right within it.
		ca, cb := a.Box.Min.Y+a.Box.Dy()/2, b.Box.Min.Y+b.Box.Dy()/2
		if h := min(a.Box.Dy(), b.Box.Dy()) / 2; ca-cb > h || cb-ca > h {
			return ca - cb
		}
		return a.Box.Min.X - b.Box.Min.X
	})
	return lines
}

// Match is a piece of text that contains a query: a whole line, or the run
// of a line's words that contains it.
type Match struct {
	Text string
	Conf float64
	Box  image.Rectangle
}

// Find returns the matches of query (case-insensitive, spaces collapsed) in
// lines, top to bottom: for each line that contains it, the shortest run of
// the line's words whose text contains it, so the box is the words an agent
// would tap rather than the whole line.
func Find(lines []Line, query string) []Match {
	q := normalize(query)
	if q == "" {
		return nil
	}
	var out []Match
	for _, l := range lines {
		if !strings.Contains(normalize(l.Text), q) {
			continue
		}
		best := Match{Text: l.Text, Conf: l.Conf, Box: l.Box}
		bestN := len(l.Words)
		for i := range l.Words {
			for j := i + 1; j <= len(l.Words) && j-i < bestN; j++ {
				run := l.Words[i:j]
				texts := make([]string, len(run))
				box, sum := run[0].Box, 0.0
				for k, w := range run {
					texts[k] = w.Text
					box = box.Union(w.Box)
					sum += w.Conf
				}
				t := strings.Join(texts, " ")
				if strings.Contains(normalize(t), q) {
					best, bestN = Match{Text: t, Conf: sum / float64(len(run)), Box: box}, len(run)
					break
				}
			}
		}
		out = append(out, best)
	}
	return out
}

func normalize(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
