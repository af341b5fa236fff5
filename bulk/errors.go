package bulk

import (
	"context"
	"errors"
	"fmt"

	"github.com/seoapi/seoapi-go"
)

// kindNamed returns the error seoapi.ErrorType names by word, or nil.
func kindNamed(word string) error {
	for _, kind := range []error{seoapi.ErrInvalidArgument, seoapi.ErrUnauthorized, seoapi.ErrForbidden,
		seoapi.ErrNotFound, seoapi.ErrConflict, seoapi.ErrValidation, seoapi.ErrRateLimited, seoapi.ErrServer,
		seoapi.ErrConnection, seoapi.ErrUnexpectedResponse, context.Canceled, context.DeadlineExceeded} {
		if seoapi.ErrorType(kind) == word {
			return kind
		}
	}
	return nil
}

// retryable reports whether a write that failed with an error of kind
// (seoapi.ErrorType's word) may succeed when sent again: the failure was
// about the moment (the budget, the server, the network, the key or the
// plan of the account), not about the item.
func retryable(kind string) bool {
	switch kind {
	case "rate_limited", "server", "connection", "canceled", "deadline_exceeded", "unauthorized", "forbidden":
		return true
	}
	return false
}

// earlierFailure is the error of a write that failed in an earlier run;
// it matches the kind the journal recorded.
func earlierFailure(r Record) error {
	kind := kindNamed(r.Err)
	if kind == nil {
		return fmt.Errorf("bulk: the %s of %q failed in an earlier run (%s); not sent again", r.Op, r.Key, r.Err)
	}
	return fmt.Errorf("bulk: the %s of %q failed in an earlier run; not sent again: %w", r.Op, r.Key, kind)
}

// outcome reads the result of a write: done, unknown (it may have taken
// effect: the SDK says so, or the server answered a 5xx or a 2xx the SDK
// could not read, or the context ended while it was out, or a create
// conflicts with an item that may be its own earlier attempt), or failed.
func outcome(op Op, err error) State {
	switch {
	case err == nil:
		return StateDone
	case op == OpDelete && errors.Is(err, seoapi.ErrNotFound):
		// Gone already: what a delete asks for.
		return StateDone
	case errors.Is(err, seoapi.ErrOutcomeUnknown),
		errors.Is(err, seoapi.ErrServer),
		errors.Is(err, seoapi.ErrUnexpectedResponse),
		errors.Is(err, context.Canceled),
		errors.Is(err, context.DeadlineExceeded),
		op == OpCreate && errors.Is(err, seoapi.ErrConflict):
		return StateUnknown
	}
	return StateFailed
}

// errUnresolved is the error of a write whose outcome stayed unknown
// after every look Apply gave it.
var errUnresolved = errors.New("bulk: the write's outcome is still unknown after looking for it again")

// errGone is the error of an update whose project a fresh read no longer
// lists.
var errGone = fmt.Errorf("bulk: the resource is no longer listed: %w", seoapi.ErrNotFound)

// errorKind names err's kind for the journal.
func errorKind(err error) string { return seoapi.ErrorType(err) }
