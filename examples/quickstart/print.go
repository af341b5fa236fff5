package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/seoapi/seoapi-go"
)

// rows turns items into table rows under headers.
func rows[T any](headers []string, items []T, row func(T) []string) [][]string {
	out := [][]string{headers}
	for _, item := range items {
		out = append(out, row(item))
	}
	return out
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(time.DateTime)
}

// printer numbers the steps of the tour and prints each: the HTTP request
// and the status it got, the Go call that sent it, then a table.
type printer struct {
	out io.Writer
	n   int
}

func (p *printer) step(request, goCall string, resp *seoapi.Response, rows [][]string) {
	p.n++
	fmt.Fprintf(p.out, "\n%2d. %s  -> %s\n    %s\n", p.n, request, status(resp), goCall)
	t := newTable(p.out)
	for _, r := range rows {
		t.row(append([]string{"   "}, r...)...)
	}
	t.flush()
}

// note prints an explanation under the current step.
func (p *printer) note(text string) {
	fmt.Fprintf(p.out, "    (%s)\n", text)
}

func status(resp *seoapi.Response) string {
	if resp == nil || resp.Response == nil {
		return "no response"
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

type table struct{ w *tabwriter.Writer }

func newTable(out io.Writer, headers ...string) *table {
	t := &table{w: tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)}
	if len(headers) > 0 {
		t.row(headers...)
	}
	return t
}

func (t *table) row(cells ...string) {
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

func (t *table) flush() { t.w.Flush() }
