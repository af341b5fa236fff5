package bulk

import (
	"context"
	"slices"
	"sync"
)

// MemoryJournal is a Journal in memory, safe for concurrent use. Its
// records last as long as the process: it suits a job that is planned and
// applied within one call, such as a handler that creates one project
// (see docs/bulk.md), not one that must carry on after a crash.
type MemoryJournal struct {
	mu      sync.Mutex
	records []Record
}

var _ Journal = (*MemoryJournal)(nil)

// NewMemoryJournal returns an empty MemoryJournal.
func NewMemoryJournal() *MemoryJournal { return &MemoryJournal{} }

// Load returns a copy of the records appended so far.
func (m *MemoryJournal) Load(ctx context.Context) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.records), nil
}

// Append keeps r.
func (m *MemoryJournal) Append(ctx context.Context, r Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.records = append(m.records, r)
	return nil
}
