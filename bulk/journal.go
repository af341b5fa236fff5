package bulk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Journal is where a Job records what it reads and writes, so that a job
// that stops (a crash, a deploy, a context that ends) can be started again
// without repeating or skipping a write. Load returns every record
// appended so far, in order; Append returns only once r is durable (a
// record Append accepted survives a crash of the process and of the
// machine). A Job calls Append from several goroutines at once.
//
// A journal belongs to one job, run again after a stop and, for a job
// such as a nightly sync, night after night, whatever each night wants.
// Records are only ever appended; a Job never rewrites or removes one.
// OpenFile returns a Journal in a file, NewMemoryJournal one in memory; a
// database or Redis can hold one too.
type Journal interface {
	Load(ctx context.Context) ([]Record, error)
	Append(ctx context.Context, r Record) error
}

// State is what a Record says about its write, or that it records a page
// of a list.
type State string

// The states of a record.
const (
	// StateIntended: the write is about to be sent. A record still
	// intended when a job restarts may or may not have taken effect.
	StateIntended State = "intended"
	// StateDone: the write took effect; ID is the resource's.
	StateDone State = "done"
	// StateUnknown: the write may or may not have taken effect (its
	// answer was lost, or was a 5xx).
	StateUnknown State = "unknown"
	// StateFailed: the write was refused; Err is why.
	StateFailed State = "failed"
	// StateRead: a page of the list was read while planning; Next and
	// Seen say where the next page is and what the page held. A read
	// record without Next says the read of the list is over.
	StateRead State = "read"
	// StateApplied: an Apply of a plan of the list ran to its end. The
	// writes recorded before it belong to a run that was not
	// interrupted.
	StateApplied State = "applied"
)

// Record is one line of a Journal. It holds the natural keys, IDs, names
// and domains of resources, and error kinds; never a key, a secret or an
// error message.
type Record struct {
	// Time is when the record was made.
	Time time.Time `json:"time"`
	// Resource is "project", "member" or "workspace".
	Resource string `json:"resource"`
	// Parent is the ID of the workspace whose list the item belongs to;
	// "" for workspaces.
	Parent string `json:"parent,omitempty"`
	// Key is the item's natural key (see Action.Key); "" on a read or
	// applied record.
	Key string `json:"key,omitempty"`
	// Name and Domain are the values the write sets: a create's or an
	// update's wanted values, a delete's existing ones.
	Name   string `json:"name,omitempty"`
	Domain string `json:"domain,omitempty"`
	// Op is the write; OpNone on a read or applied record.
	Op Op `json:"op"`
	// State says where the write is, or that this records a read.
	State State `json:"state"`
	// ID is the resource's ID, once known.
	ID string `json:"id,omitempty"`
	// Err is the kind of the error that failed the write or made its
	// outcome unknown, as seoapi.ErrorType names it ("validation",
	// "server", ...).
	Err string `json:"err,omitempty"`
	// Page numbers the pages of one read of a list from 1; 0 on a write
	// record.
	Page int `json:"page,omitempty"`
	// Next is the page token of the page after this one (a read record
	// of a page that is not the last).
	Next string `json:"next,omitempty"`
	// Seen lists what the page held (a read record).
	Seen []Seen `json:"seen,omitempty"`
}

// Seen is one resource a read of a list found.
type Seen struct {
	Key    string `json:"key"`
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Domain string `json:"domain,omitempty"`
}

// FileJournal is a Journal in a file of JSON lines, one Record a line. It
// is safe for concurrent use by the goroutines of one process; two
// processes must not use one file at the same time.
type FileJournal struct {
	mu sync.Mutex
	f  *os.File
}

var _ Journal = (*FileJournal)(nil)

// OpenFile opens the journal at path, creating it (mode 0600) when it does
// not exist. A last line that a crash cut short (no newline at its end) is
// no record: Append never returned for it. OpenFile cuts it off, so that
// the next record starts on a line of its own.
func OpenFile(path string) (*FileJournal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("bulk: opening the journal: %w", err)
	}
	if err := cutTornLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("bulk: opening the journal %s: %w", path, err)
	}
	return &FileJournal{f: f}, nil
}

// cutTornLine truncates f after its last newline.
func cutTornLine(f *os.File) error {
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	whole := int64(bytes.LastIndexByte(data, '\n') + 1)
	if whole == int64(len(data)) {
		return nil
	}
	if err := f.Truncate(whole); err != nil {
		return err
	}
	return f.Sync()
}

// Load reads every record in the file, in order. A last line without its
// newline is ignored; any other line that is not a Record fails Load.
func (j *FileJournal) Load(ctx context.Context) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil, errClosed
	}
	data, err := os.ReadFile(j.f.Name())
	if err != nil {
		return nil, fmt.Errorf("bulk: reading the journal: %w", err)
	}
	return parseRecords(data)
}

// parseRecords reads the complete lines of data as records.
func parseRecords(data []byte) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(data[:bytes.LastIndexByte(data, '\n')+1]))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("bulk: the journal's line %d is not a record: %w", n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// Append writes r as one line and syncs the file before it returns.
func (j *FileJournal) Append(ctx context.Context, r Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("bulk: encoding a journal record: %w", err)
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errClosed
	}
	if _, err := j.f.Write(line); err != nil {
		return fmt.Errorf("bulk: writing the journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("bulk: syncing the journal: %w", err)
	}
	return nil
}

// Close closes the file. Load and Append fail after it.
func (j *FileJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

var errClosed = errors.New("bulk: the journal is closed")
