package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

func main() {
	image := flag.String("image", "", "the card image (default: the newest out/openlolo-*-rpi.img)")
	work := flag.String("work", "", "scratch folder (default: a temporary folder, removed after)")
	raspi := flag.Bool("raspi3b", true, "also boot the card on -M raspi3b (slower, shorter check)")
	verbose := flag.Bool("v", false, "echo the guests' consoles")
	timeout := flag.Duration("timeout", 25*time.Minute, "give up after this long")
	v2 := flag.String("update-v2", "", "the update scenario (make test-update): a good bundle newer than the image")
	v3 := flag.String("update-v3", "", "the update scenario: a bundle whose version fails its self-check")
	wifi := flag.Bool("wifi", false, "the setup Wi-Fi scenario (make test-wifi): three mac80211_hwsim radios, the box's, a home access point and a phone")
	cli := flag.String("openlolo", "bin/openlolo", "the update scenario: the host's openlolo binary (openlolo update)")
	flag.Parse()

	if *image == "" {
		m, _ := filepath.Glob("out/openlolo-*-rpi.img")
		sort.Slice(m, func(i, j int) bool { return modTime(m[i]).After(modTime(m[j])) })
		if len(m) == 0 {
			fmt.Fprintln(os.Stderr, "boottest: no out/openlolo-*-rpi.img; run make image first or pass -image")
			os.Exit(2)
		}
		*image = m[0]
	}
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "openlolo-boottest-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "boottest:", err)
			os.Exit(2)
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "boottest:", err)
		os.Exit(2)
	}
	var echo io.Writer
	if *verbose {
		echo = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	r := &results{out: os.Stdout}
	fmt.Printf("boottest: %s\n", *image)
	start := time.Now()
	t := &test{img: *image, dir: dir, r: r, echo: echo}
	if *wifi {
		(&wifiTest{test: t}).run(ctx)
	} else if *v2 != "" || *v3 != "" {
		if *v2 == "" || *v3 == "" {
			fmt.Fprintln(os.Stderr, "boottest: the update scenario needs -update-v2 and -update-v3")
			os.Exit(2)
		}
		(&updateTest{test: t, v2: *v2, v3: *v3, cli: *cli}).run(ctx)
	} else {
		t.run(ctx, *raspi)
	}
	r.figure("test time", "%.0f s", time.Since(start).Seconds())
	fmt.Println(r.summary())
	if r.failed > 0 {
		os.Exit(1)
	}
}

func modTime(p string) time.Time {
	st, err := os.Stat(p)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}
