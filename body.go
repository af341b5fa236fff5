package seoapi

import (
	"bytes"
	"errors"
	"io"
)

// errBodyTooLarge is the error of a 2xx body larger than the response cap.
var errBodyTooLarge = errors.New("response body over the size cap")

// readCapped reads r to its end, failing with errBodyTooLarge once more
// than limit bytes arrive; it then returns at most maxErrorBody bytes of
// what it read. A body of known length is read into one buffer of that
// size; one of unknown length into a buffer that doubles as the body
// grows, never past the limit.
func readCapped(r io.Reader, length, limit int64) ([]byte, error) {
	switch {
	case length > limit:
		data, _ := io.ReadAll(io.LimitReader(r, min(limit, maxErrorBody)))
		return data, errBodyTooLarge
	case length < 0:
		return readGrowing(r, limit)
	}
	data := make([]byte, length)
	n, err := io.ReadFull(r, data)
	if err != nil {
		return data[:n], err
	}
	var probe [1]byte
	if n, err := r.Read(probe[:]); n > 0 {
		return data, errors.New("body longer than its Content-Length")
	} else if err != nil && err != io.EOF {
		return data, err
	}
	return data, nil
}

// readGrowing is io.ReadAll(io.LimitReader(r, limit+1)) with a buffer that
// doubles, so that a body of unknown length costs at most four times its
// size in all (a 3 MiB one 2.7 times), and one over the limit twice the
// limit. io.ReadAll itself costs less, but twice as much under the race
// detector, which the tests of the memory bounds run under.
func readGrowing(r io.Reader, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(limit+1, 512))
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			// A copy: the error's body does not pin a buffer of the limit's size.
			return bytes.Clone(buf[:min(limit, maxErrorBody)]), errBodyTooLarge
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf):
			next := 2 * int64(cap(buf))
			if 4*next > 3*limit {
				// Not a buffer of nearly the limit and then one of the limit.
				next = limit + 1
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
	}
}
