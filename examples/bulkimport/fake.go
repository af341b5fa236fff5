package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// runAgainstFake serves the fake API on a loopback port, seeds a workspace
// and imports into it. The fake forgets everything when the program ends,
// so its journal is a temporary one.
func runAgainstFake(ctx context.Context, out, errOut io.Writer, o options, want []seoapi.ProjectCreateRequest) error {
	fake := seoapitest.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close.
	defer srv.Close()
	baseURL := "http://" + ln.Addr().String()

	o.workspace = seedFake(fake)
	o.journal = ""
	if o.lose > 0 {
		o.beforeApply = func() { fake.DropNext(o.lose, true) }
	}
	fmt.Fprintf(out, "No %s/%s set: importing into workspace %s of the in-process fake API at %s,\n", seoapi.EnvBaseURL, seoapi.EnvAPIKey, o.workspace, baseURL)
	fmt.Fprintln(out, "which holds three projects already: Acme Shoes, Acme Blog (named \"Blog\" there) and Legacy site.")
	client, err := seoapi.NewClient(baseURL, fake.Key(), seoapi.WithUserAgent("seoapi-bulkimport"))
	if err != nil {
		return err
	}
	return importInto(ctx, out, errOut, client, o, want)
}

// seedFake adds the demo workspace and its projects; it returns the
// workspace's ID.
func seedFake(fake *seoapitest.Server) string {
	ws := fake.AddWorkspace("Import demo")
	fake.AddProject(ws, "Acme Shoes", "shoes.acme.example")
	fake.AddProject(ws, "Blog", "blog.acme.example")
	fake.AddProject(ws, "Legacy site", "legacy.acme.example")
	return ws
}
