package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

func ExampleWithReserve_batchBesideAService() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL

	// A nightly sync and a service share one key's budget (100 an hour
	// here). The sync may use it only while 30 requests of the hour remain
	// for the service.
	shared, err := seoapi.NewLimiter(100, seoapi.DefaultRequestsPerSecond, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	batch, err := seoapi.NewClient(url, key, seoapi.WithLimiter(shared), seoapi.WithReserve(30, 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	service, _ := seoapi.NewClient(url, key, seoapi.WithLimiter(shared))

	ctx := context.Background()
	sent := 0
	for {
		_, _, err := batch.Workspaces.List(ctx, nil)
		if errors.Is(err, seoapi.ErrRateLimited) {
			// Waiting for the hour would take longer than the max wait
			// (WithMaxWait): refused at once, nothing sent.
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		sent++
	}
	b, _ := batch.Budget(ctx)
	fmt.Println("batch:", sent, "of", b.PerHour)

	served := 0
	for range 30 {
		if _, _, err := service.Workspaces.List(ctx, nil); err == nil {
			served++
		}
	}
	fmt.Println("service:", served)
	// Output:
	// batch: 70 of 70
	// service: 30
}
