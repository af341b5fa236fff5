package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
)

// progressLine shows a job's progress on one line: redrawn in place on a
// terminal, one line each time otherwise (a log keeps them all).
type progressLine struct {
	w   io.Writer
	tty bool
	// client, when set, is asked for its budget, to show the requests of
	// the rolling second and hour against their limits.
	client *seoapi.Client

	mu    sync.Mutex
	drawn bool
}

func newProgressLine(w io.Writer, client *seoapi.Client) *progressLine {
	return &progressLine{w: w, tty: isTerminal(w), client: client}
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
	var budget *seoapi.Budget
	if l.client != nil {
		// Asking for the budget sends no request.
		if b, err := l.client.Budget(context.Background()); err == nil {
			budget = &b
		}
	}
	line := formatProgress(p, budget)
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

// formatProgress is the line for p, with the client's budget b when it
// is known: the requests of the rolling second and hour against their
// limits. An average rate would mislead: a job's first second may send
// all 50 of its requests in a few milliseconds, within the limits.
func formatProgress(p bulk.Progress, b *seoapi.Budget) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%d/%d writes done", p.Done, p.Total)
	if p.Failed > 0 {
		fmt.Fprintf(&s, " (%d failed)", p.Failed)
	}
	fmt.Fprintf(&s, ", %d requests", p.Requests)
	if b != nil {
		fmt.Fprintf(&s, ", used %d/%d of the second and %d/%d of the hour", b.UsedSecond, b.PerSecond, b.UsedHour, b.PerHour)
	}
	fmt.Fprintf(&s, ", ETA %s", p.ETA.Round(100*time.Millisecond))
	return s.String()
}
