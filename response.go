package seoapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
)

// Response is the server's response to a call, with what the SDK read from
// its headers. Its body has been read and closed, and its headers are
// cleaned of any form of the API key a server echoed.
//
// A method returns a Response whenever the server answered, with an error
// too (a 404, say); the Response is nil when the SDK rejected an argument
// before sending (ErrInvalidArgument) or no response arrived (a connection
// that failed, a wait the limiter refused, a context that ended), so check
// the error first.
type Response struct {
	*http.Response

	Rate      Rate   // from rate-limit headers; zero when the server sends none
	RequestID string // from X-Request-Id or Request-Id
	Attempts  int    // how many attempts the call made

	// Where the next page is, when the server said so (see ListOptions).
	NextPage   int
	NextCursor string
	NextURL    string

	nextHeldKey bool // a next link or cursor held the key and was dropped
}

// responseView is what a Response shows of itself through fmt, JSON and
// slog: the status and what the SDK read, never the request, whose
// headers hold the key.
type responseView struct {
	StatusCode int    `json:"statusCode"`
	RequestID  string `json:"requestId,omitempty"`
	Attempts   int    `json:"attempts"`
	Rate       Rate   `json:"rate"`
	NextPage   int    `json:"nextPage,omitempty"`
	NextCursor string `json:"nextCursor,omitempty"`
	NextURL    string `json:"nextUrl,omitempty"`
}

func (r Response) view() responseView {
	v := responseView{0, r.RequestID, r.Attempts, r.Rate, r.NextPage, r.NextCursor, r.NextURL}
	if r.Response != nil {
		v.StatusCode = r.StatusCode
	}
	return v
}

// Format prints the response's status and what the SDK read from it, its
// strings quoted, but none of its request, for every fmt verb.
func (r Response) Format(f fmt.State, _ rune) {
	status := ""
	if r.Response != nil {
		status = r.Status
	}
	fmt.Fprintf(f, "seoapi.Response{Status: %q, RequestID: %q, Attempts: %d, Rate: %+v, NextPage: %d, NextCursor: %q, NextURL: %q}",
		status, r.RequestID, r.Attempts, r.Rate, r.NextPage, r.NextCursor, r.NextURL)
}

// MarshalJSON encodes what Format prints, with the status code.
func (r Response) MarshalJSON() ([]byte, error) { return json.Marshal(r.view()) }

// LogValue gives slog the status, the request ID and the attempts.
func (r Response) LogValue() slog.Value {
	v := r.view()
	return slog.GroupValue(slog.Int("statusCode", v.StatusCode), slog.String("requestId", v.RequestID),
		slog.Int("attempts", v.Attempts))
}

// dropNextWithKey clears a next link or cursor that holds the key in any
// form: the SDK never sends it back, and no Response shows it. A list
// fails its page on it (fetchList).
func (c *Client) dropNextWithKey(resp *Response) {
	if resp.NextURL != "" && c.holdsKey(resp.NextURL) || resp.NextCursor != "" && c.holdsKey(resp.NextCursor) {
		resp.NextURL, resp.NextCursor, resp.NextPage = "", "", 0
		resp.nextHeldKey = true
	}
}
