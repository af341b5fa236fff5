package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// finale shows, against the fake only, what a tour of a live API must not
// provoke: a typed error, listing everything with All, a 503 the SDK
// retries and the client waiting for the rate limit.
func finale(ctx context.Context, out io.Writer, fake *seoapitest.Server, baseURL string, client *seoapi.Client, t touring) error {
	fmt.Fprintln(out, "\nWhat the fake can also show:")

	_, _, err := client.Members.Add(ctx, t.workspaceID, &seoapi.MemberAddRequest{Email: t.memberEmail})
	fmt.Fprintf(out, "\n* Errors are typed. Adding %s again:\n    _, _, err := client.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: %q})\n", t.memberEmail, t.memberEmail)
	fmt.Fprintf(out, "    errors.Is(err, seoapi.ErrConflict) = %t; %s\n", errors.Is(err, seoapi.ErrConflict), describe(err))

	if err := showAll(ctx, out, fake, client, t.workspaceID); err != nil {
		return err
	}
	if err := showRetry(ctx, out, fake, client); err != nil {
		return err
	}
	return showRateLimitWait(ctx, out, fake, baseURL)
}

// showAll lists every content plan one per page, so that All follows the
// pages.
func showAll(ctx context.Context, out io.Writer, fake *seoapitest.Server, client *seoapi.Client, workspaceID string) error {
	fmt.Fprintln(out, "\n* All follows every page for you (one item a page here):\n    for plan, err := range client.ContentPlans.All(ctx, ws.ID, &seoapi.ListOptions{PerPage: 1}) { ... }")
	before := len(fake.Requests())
	for plan, err := range client.ContentPlans.All(ctx, workspaceID, &seoapi.ListOptions{PerPage: 1}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "      %s  %s\n", plan.ID, plan.Name)
	}
	fmt.Fprintf(out, "    %d requests, one per page.\n", len(fake.Requests())-before)
	return nil
}

// showRetry makes the fake answer 503 once; the SDK waits as told and
// tries again.
func showRetry(ctx context.Context, out io.Writer, fake *seoapitest.Server, client *seoapi.Client) error {
	fmt.Fprintln(out, "\n* A 503 is retried. The fake fails the next request:\n    fake.FailNext(1, http.StatusServiceUnavailable, http.Header{\"Retry-After\": {\"1\"}})\n    client.Workspaces.List(ctx, nil)")
	fake.FailNext(1, http.StatusServiceUnavailable, http.Header{"Retry-After": {"1"}})
	start := time.Now()
	_, resp, err := client.Workspaces.List(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "    -> %s after %d attempts; the SDK waited %s, as Retry-After asked.\n", status(resp), resp.Attempts, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// showRateLimitWait has the fake allow 2 requests a second and a client
// limited to the same: the client waits instead of being refused.
func showRateLimitWait(ctx context.Context, out io.Writer, fake *seoapitest.Server, baseURL string) error {
	const calls, perSecond = 5, 2
	fmt.Fprintf(out, "\n* The client keeps to the rate limit. The fake now allows %d requests a second, and so does this client:\n", perSecond)
	fmt.Fprintf(out, "    fake.SetLimits(seoapitest.Limits{PerSecond: %d})\n    client, err := seoapi.NewClient(url, key, seoapi.WithRateLimit(10000, %d))\n", perSecond, perSecond)
	fake.SetLimits(seoapitest.Limits{PerSecond: perSecond})
	paced, err := seoapi.NewClient(baseURL, fake.Key(), seoapi.WithUserAgent("seoapi-quickstart"), seoapi.WithRateLimit(seoapitest.PublishedLimits().PerHour, perSecond))
	if err != nil {
		return err
	}
	refusedBefore := fake.Throttled()
	start := time.Now()
	for range calls {
		if _, _, err := paced.Workspaces.List(ctx, nil); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "    %d calls took %s: the client waited its turn", calls, time.Since(start).Round(100*time.Millisecond))
	if refused := fake.Throttled() - refusedBefore; refused > 0 {
		// Possible on a busy machine: a request reached the fake later
		// than it was sent, closer to the next one than a second.
		fmt.Fprintf(out, "; the fake refused %d that arrived late, and the SDK waited as Retry-After said and sent it again.\n", refused)
		return nil
	}
	fmt.Fprintln(out, ", and the fake refused none.")
	return nil
}
