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
// size, one of unknown length by readUnknown.
func readCapped(r io.Reader, length, limit int64) ([]byte, error) {
	switch {
	case length > limit:
		data, _ := readUnknown(io.LimitReader(r, min(limit, maxErrorBody)), limit)
		return data, errBodyTooLarge
	case length >= 0:
		buf := make([]byte, length)
		n, err := io.ReadFull(r, buf)
		if err != nil {
			return buf[:n], err
		}
		var probe [1]byte
		if n, err := r.Read(probe[:]); n > 0 {
			return buf, errors.New("body longer than its Content-Length")
		} else if err != nil && err != io.EOF {
			return buf, err
		}
		return buf, nil
	}
	return readUnknown(r, limit)
}

// readUnknown reads a body of unknown length into a buffer that doubles
// up to a sixteenth of the limit, then grows once to the limit, leaving
// at most an eighth of the limit behind. fit then keeps at most twice the
// body.
func readUnknown(r io.Reader, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(limit+1, 4<<10))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return fit(buf, min(limit, maxErrorBody)), errBodyTooLarge
			}
			next := int64(2 * cap(buf))
			if next > limit/16 {
				next = limit + 1
			}
			buf = append(make([]byte, 0, next), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return fit(buf, limit), nil
		case err != nil:
			return fit(buf, limit), err
		}
	}
}

// fit returns at most the first n bytes of buf, copied to a buffer of
// their size when buf's is more than twice that.
func fit(buf []byte, n int64) []byte {
	buf = buf[:min(n, int64(len(buf)))]
	if cap(buf) > 2*len(buf) && cap(buf) > 4<<10 {
		return bytes.Clone(buf)
	}
	return buf
}
