package bulk_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go/bulk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func record(key string, st bulk.State) bulk.Record {
	return bulk.Record{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Resource: "project", Parent: "ws_1", Key: key, Op: bulk.OpCreate, State: st}
}

func TestFileJournalIgnoresATornLastLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "job.journal")
	j, err := bulk.OpenFile(path)
	require.NoError(t, err)
	require.NoError(t, j.Append(ctx, record("a.example", bulk.StateIntended)))
	require.NoError(t, j.Append(ctx, record("a.example", bulk.StateDone)))
	require.NoError(t, j.Close())

	// A crash in the middle of the third append.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"time":"2026-01-02T03:04:05Z","resource":"project","key":"b.exa`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	j, err = bulk.OpenFile(path)
	require.NoError(t, err)
	recs, err := j.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, []bulk.Record{record("a.example", bulk.StateIntended), record("a.example", bulk.StateDone)}, recs)

	require.NoError(t, j.Append(ctx, record("b.example", bulk.StateIntended)))
	recs, err = j.Load(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 3, "the next record starts on a line of its own")
	assert.Equal(t, record("b.example", bulk.StateIntended), recs[2])
	require.NoError(t, j.Close())
	require.NoError(t, j.Close(), "closing twice is harmless")
	_, err = j.Load(ctx)
	assert.Error(t, err, "closed")
	assert.Error(t, j.Append(ctx, record("c.example", bulk.StateIntended)), "closed")

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

func TestFileJournalRefusesACorruptLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "job.journal")
	require.NoError(t, os.WriteFile(path, []byte("{\"state\":\"done\",\"op\":\"create\"}\nnot json\n{\"op\":\"none\"}\n"), 0o600))
	j, err := bulk.OpenFile(path)
	require.NoError(t, err)
	defer j.Close()
	_, err = j.Load(context.Background())
	assert.ErrorContains(t, err, "line 2")

	_, err = bulk.OpenFile(filepath.Join(t.TempDir(), "no", "such", "dir"))
	assert.Error(t, err)
}

func TestFileJournalEmpty(t *testing.T) {
	t.Parallel()
	j, err := bulk.OpenFile(filepath.Join(t.TempDir(), "job.journal"))
	require.NoError(t, err)
	defer j.Close()
	recs, err := j.Load(context.Background())
	require.NoError(t, err)
	assert.Empty(t, recs)
}

func TestOpString(t *testing.T) {
	t.Parallel()
	for op, want := range map[bulk.Op]string{bulk.OpNone: "none", bulk.OpCreate: "create", bulk.OpUpdate: "update", bulk.OpDelete: "delete", bulk.Op(9): "Op(9)"} {
		assert.Equal(t, want, op.String())
		if op > bulk.OpDelete {
			_, err := op.MarshalText()
			assert.Error(t, err)
			continue
		}
		text, err := op.MarshalText()
		require.NoError(t, err)
		var back bulk.Op
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, op, back)
	}
	var op bulk.Op
	assert.Error(t, op.UnmarshalText([]byte("upsert")))
}

func TestMemoryJournal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	j := bulk.NewMemoryJournal()
	recs, err := j.Load(ctx)
	require.NoError(t, err)
	assert.Empty(t, recs)

	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				assert.NoError(t, j.Append(ctx, record(fmt.Sprintf("w%d-%d.example", w, i), bulk.StateIntended)))
				_, err := j.Load(ctx)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	recs, err = j.Load(ctx)
	require.NoError(t, err)
	assert.Len(t, recs, writers*each)
	recs[0].Key = "changed"
	again, err := j.Load(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, "changed", again[0].Key, "Load returns a copy")

	done, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, j.Append(done, record("late.example", bulk.StateIntended)), context.Canceled)
	_, err = j.Load(done)
	assert.ErrorIs(t, err, context.Canceled)
}
