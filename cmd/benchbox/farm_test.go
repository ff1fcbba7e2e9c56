package main

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		farm    int
		farmFor time.Duration
		want    string // "" no error
	}{
		{0, 0, ""},
		{2, time.Second, ""},
		{32, time.Second, ""},
		{1, time.Second, "-farm 1: give 2 to 32 phones"},
		{-3, time.Second, "-farm -3: give 2 to 32 phones"},
		{33, time.Second, "-farm 33: give 2 to 32 phones"},
		{8, 0, "-farm-for 0s: give how long"},
	} {
		err := options{farm: c.farm, farmFor: c.farmFor}.check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("farm %d for %s: %v, want no error", c.farm, c.farmFor, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("farm %d for %s: %v, want %q", c.farm, c.farmFor, err, c.want)
		}
	}
}

func TestPrintFarm(t *testing.T) {
	one := farmFigures{phones: 1, calls: 100, wall: 10 * time.Second, perPhone: []time.Duration{20 * time.Millisecond}, idle: 100 << 10, peak: 120 << 10}
	many := farmFigures{phones: 8, calls: 400, failed: 2, wall: 10 * time.Second,
		perPhone: []time.Duration{30, 40, 40, 50, 60, 60, 70, 80}, idle: 170 << 10, peak: 260 << 10}
	for i := range many.perPhone {
		many.perPhone[i] *= time.Millisecond
	}
	var b strings.Builder
	if err := printFarm(&b, one, many); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(b.String()), " ") // the table's cells, one space apart
	for _, want := range []string{
		"calls/s, all phones 10.0 40.0 4.00",
		"calls/s per phone 10.0 5.0 0.50",
		"p50 per phone (median of the phones') 20 ms 60 ms 3.00",
		"slowest phone's p50 20 ms 80 ms",
		"calls answered (failed) 100 (0) 400 (2)",
		"before the calls 100.0 MiB 170.0 MiB per extra phone 10.0 MiB",
		"during the calls 120.0 MiB 260.0 MiB per extra phone 20.0 MiB",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}
