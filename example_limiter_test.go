package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/seoapi/seoapi-go"
)

func ExampleWithReserve_batchBesideAService() {
	url, key, _, stop := exampleServer()
	defer stop()

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
	fmt.Println("batch:", sent)

	served := 0
	for range 30 {
		if _, _, err := service.Workspaces.List(ctx, nil); err == nil {
			served++
		}
	}
	fmt.Println("service:", served)
	// Output:
	// batch: 70
	// service: 30
}

// answerCounter is a Limiter written outside the SDK that is told when
// each request it let go was answered.
type answerCounter struct{ waiting, answered atomic.Int64 }

func (l *answerCounter) Wait(ctx context.Context) error {
	_, err := l.Acquire(ctx)
	return err
}

func (l *answerCounter) Acquire(ctx context.Context) (func(), error) {
	// A real limiter waits here for a slot, refusing a wait longer than
	// the client's max wait with seoapi.CheckWait.
	if err := seoapi.CheckWait(ctx, 0, 0, "answer counter"); err != nil {
		return nil, err
	}
	l.waiting.Add(1)
	return func() { l.waiting.Add(-1); l.answered.Add(1) }, nil
}

func ExampleSlotLimiter() {
	url, key, _, stop := exampleServer()
	defer stop()

	lim := &answerCounter{}
	client, _ := seoapi.NewClient(url, key, seoapi.WithLimiter(lim))
	for range 3 {
		if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println("answered:", lim.answered.Load(), "waiting for an answer:", lim.waiting.Load())
	// Output: answered: 3 waiting for an answer: 0
}
