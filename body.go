package seoapi

import (
	"errors"
	"io"
)

// errBodyTooLarge is the error of a 2xx body larger than the response cap.
var errBodyTooLarge = errors.New("response body over the size cap")

// readCapped reads r to its end, failing with errBodyTooLarge once more
// than limit bytes arrive; it then returns at most maxErrorBody bytes of
// what it read. A body of known length is read into one buffer of that
// size. Memory stays under 1.25 times the limit whatever a server sends.
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

// readUnknown reads a body of unknown length: into one buffer that doubles
// while the body is small next to the limit, then in chunks of up to 1 MiB
// joined at the end, so that a buffer never doubles past the limit.
func readUnknown(r io.Reader, limit int64) ([]byte, error) {
	small := int(max(limit/8, 4<<10))
	buf := make([]byte, 0, min(limit+1, 1<<10))
	var chunks [][]byte
	total := int64(0)
	for {
		if len(buf) == cap(buf) {
			if total+int64(len(buf)) > limit {
				break
			}
			if next := min(2*cap(buf), int(limit+1)); chunks == nil && next <= small {
				buf = append(make([]byte, 0, next), buf...)
			} else {
				chunks = append(chunks, buf)
				total += int64(len(buf))
				buf = make([]byte, 0, min(int64(max(cap(buf), 1<<20)), limit+1-total))
			}
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return joinChunks(append(chunks, buf), limit), nil
		}
		if err != nil {
			return joinChunks(append(chunks, buf), limit), err
		}
	}
	return joinChunks(append(chunks, buf), min(limit, maxErrorBody)), errBodyTooLarge
}

// joinChunks returns at most the first n bytes of chunks as one slice.
func joinChunks(chunks [][]byte, n int64) []byte {
	if len(chunks) == 1 {
		return chunks[0][:min(int64(len(chunks[0])), n)]
	}
	total := int64(0)
	for _, c := range chunks {
		total += int64(len(c))
	}
	out := make([]byte, 0, min(total, n))
	for _, c := range chunks {
		out = append(out, c[:min(int64(len(c)), n-int64(len(out)))]...)
	}
	return out
}
