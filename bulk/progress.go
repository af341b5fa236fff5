package bulk

import (
	"context"
	"time"
)

// startProgress reports the run's Progress now and every progressEvery
// until the returned stop is called, which reports it once more.
func (r *run) startProgress(ctx context.Context) (stop func()) {
	f := r.job.progress
	if f == nil {
		return func() {}
	}
	ctx = context.WithoutCancel(ctx)
	quit, exited := make(chan struct{}), make(chan struct{})
	f(r.progress(ctx))
	go func() {
		defer close(exited)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				f(r.progress(ctx))
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-exited
		f(r.progress(ctx))
	}
}

// progress is where the run is, with the ETA of the requests the plan
// still has to send.
func (r *run) progress(ctx context.Context) Progress {
	r.mu.Lock()
	p := Progress{Done: r.done, Total: r.total, Failed: r.failed, Requests: r.requests}
	r.mu.Unlock()
	p.ETA = r.job.eta(ctx, max(r.plan.Requests-p.Requests, 0))
	if p.Done == p.Total {
		p.ETA = 0
	}
	return p
}
