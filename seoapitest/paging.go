package seoapitest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Paging is how the fake pages its lists.
type Paging int

// The paging styles.
const (
	// PagingLink answers a bare JSON array and a Link header with
	// rel="next" (and rel="last"), driven by page and per_page.
	PagingLink Paging = iota
	// PagingPage answers {"data": [...], "meta": {"page", "per_page",
	// "total", "total_pages"}}, driven by page and per_page.
	PagingPage
	// PagingCursor answers {"data": [...], "next_cursor": "...",
	// "has_more": true}, driven by cursor and per_page.
	PagingCursor
	// PagingNone answers {"data": [...]} with the whole list.
	PagingNone
)

// MaxPageSize is the largest per_page the fake honours.
const MaxPageSize = 100

// SetPaging switches how lists are paged, and sets the page size used when
// a request gives no per_page (pageSize 0 keeps the current one).
func (s *Server) SetPaging(p Paging, pageSize int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.paging = p
	if pageSize > 0 {
		s.pageSize = pageSize
	}
}

type pageEnvelope struct {
	Data []any    `json:"data"`
	Meta pageMeta `json:"meta"`
}

type pageMeta struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Total      int `json:"total"`
	TotalPages int `json:"total_pages"`
}

type cursorEnvelope struct {
	Data       []any  `json:"data"`
	NextCursor string `json:"next_cursor,omitempty"`
	HasMore    bool   `json:"has_more"`
}

type wholeEnvelope struct {
	Data []any `json:"data"`
}

// writeList answers a list request in the current paging style.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, items []any) {
	items = s.listed(items)
	q := r.URL.Query()
	perPage, ok := positiveParam(w, q, "per_page", s.pageSize)
	if !ok {
		return
	}
	perPage = min(perPage, MaxPageSize)
	switch s.paging {
	case PagingNone:
		writeJSON(w, http.StatusOK, wholeEnvelope{Data: items})
	case PagingCursor:
		offset := 0
		if c := q.Get("cursor"); c != "" {
			if offset, ok = decodeCursor(c); !ok || offset > len(items) {
				writeError(w, http.StatusBadRequest, "invalid_cursor", "cursor is not valid")
				return
			}
		}
		page := items[offset:min(offset+perPage, len(items))]
		env := cursorEnvelope{Data: page, HasMore: offset+len(page) < len(items)}
		if env.HasMore {
			env.NextCursor = encodeCursor(offset + len(page))
		}
		writeJSON(w, http.StatusOK, env)
	default:
		page, ok := positiveParam(w, q, "page", 1)
		if !ok {
			return
		}
		totalPages := max((len(items)+perPage-1)/perPage, 1)
		// A page past the end is empty; comparing pages first keeps a huge
		// page number from overflowing the offset.
		start := len(items)
		if page <= totalPages {
			start = (page - 1) * perPage
		}
		chunk := items[start:min(start+perPage, len(items))]
		if s.paging == PagingPage {
			writeJSON(w, http.StatusOK, pageEnvelope{Data: chunk, Meta: pageMeta{Page: page, PerPage: perPage, Total: len(items), TotalPages: totalPages}})
			return
		}
		var links []string
		if page < totalPages {
			links = append(links, fmt.Sprintf(`<%s>; rel="next"`, pageURL(r, page+1, perPage)))
		}
		links = append(links, fmt.Sprintf(`<%s>; rel="last"`, pageURL(r, totalPages, perPage)))
		w.Header().Set("Link", strings.Join(links, ", "))
		writeJSON(w, http.StatusOK, chunk)
	}
}

func positiveParam(w http.ResponseWriter, q url.Values, name string, def int) (int, bool) {
	v := q.Get(name)
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		writeError(w, http.StatusBadRequest, "invalid_parameter", name+" must be a positive integer")
		return 0, false
	}
	return n, true
}

// pageURL is the absolute URL of another page of the same list.
func pageURL(r *http.Request, page, perPage int) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	q := r.URL.Query()
	q.Set("page", strconv.Itoa(page))
	q.Set("per_page", strconv.Itoa(perPage))
	return scheme + "://" + r.Host + r.URL.EscapedPath() + "?" + q.Encode()
}

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("offset:" + strconv.Itoa(offset)))
}

func decodeCursor(c string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(raw), "offset:"))
	return n, err == nil && n >= 0 && strings.HasPrefix(string(raw), "offset:")
}
