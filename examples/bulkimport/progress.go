package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/seoapi/seoapi-go/bulk"
)

// progressLine shows a job's progress on one line: redrawn in place on a
// terminal, one line each time otherwise (a log keeps them all).
type progressLine struct {
	w     io.Writer
	tty   bool
	start time.Time

	mu    sync.Mutex
	drawn bool
}

func newProgressLine(w io.Writer) *progressLine {
	return &progressLine{w: w, tty: isTerminal(w), start: time.Now()}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// show draws p.
func (l *progressLine) show(p bulk.Progress) {
	line := formatProgress(p, time.Since(l.start))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tty {
		// Back to the line's start, the line, and clear what is left of
		// a longer one drawn before.
		fmt.Fprint(l.w, "\r"+line+"\x1b[K")
		l.drawn = true
		return
	}
	fmt.Fprintln(l.w, line)
}

// finish ends a line redrawn in place.
func (l *progressLine) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.drawn {
		fmt.Fprintln(l.w)
		l.drawn = false
	}
}

// formatProgress is the line for p, elapsed after the start.
func formatProgress(p bulk.Progress, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d writes done", p.Done, p.Total)
	if p.Failed > 0 {
		fmt.Fprintf(&b, " (%d failed)", p.Failed)
	}
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(p.Requests) / s
	}
	fmt.Fprintf(&b, ", %d requests, %.1f req/s, ETA %s", p.Requests, rate, p.ETA.Round(100*time.Millisecond))
	return b.String()
}
