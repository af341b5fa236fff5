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

// Format prints the response's status and what the SDK read from it, but
// none of its request (whose headers hold the key), for every fmt verb.
func (r Response) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "seoapi.Response{Status: %q, RequestID: %q, Attempts: %d, Rate: %+v, NextPage: %d, NextCursor: %q, NextURL: %q}",
		r.status(), r.RequestID, r.Attempts, r.Rate, r.NextPage, r.NextCursor, r.NextURL)
}

func (r Response) status() string {
	if r.Response == nil {
		return ""
	}
	return r.Status
}

// MarshalJSON encodes what Format prints; never the request.
func (r Response) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		StatusCode int    `json:"statusCode"`
		RequestID  string `json:"requestId,omitempty"`
		Attempts   int    `json:"attempts"`
		Rate       Rate   `json:"rate"`
		NextPage   int    `json:"nextPage,omitempty"`
		NextCursor string `json:"nextCursor,omitempty"`
		NextURL    string `json:"nextUrl,omitempty"`
	}{r.statusCode(), r.RequestID, r.Attempts, r.Rate, r.NextPage, r.NextCursor, r.NextURL})
}

func (r Response) statusCode() int {
	if r.Response == nil {
		return 0
	}
	return r.StatusCode
}

// LogValue gives slog what MarshalJSON gives encoding/json.
func (r Response) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("statusCode", r.statusCode()), slog.String("requestId", r.RequestID),
		slog.Int("attempts", r.Attempts))
}

// newResponse is the Response of the result's answer.
func (c *Client) newResponse(r *result, attempts int) *Response {
	resp := &Response{
		Response:  r.resp,
		Rate:      r.rate.rate,
		RequestID: r.rate.requestID,
		Attempts:  attempts,
	}
	if len(r.link) > 0 {
		resp.readLink(r.link)
		c.dropNextWithKey(resp)
	}
	return resp
}

// dropNextWithKey clears a next link or cursor that holds the key in any
// form: the SDK never sends it back, and no Response shows it. A list
// fails its page on it (fetchList).
func (c *Client) dropNextWithKey(resp *Response) {
	if resp.NextURL == "" && resp.NextCursor == "" {
		return
	}
	if c.holdsKey(resp.NextURL) || c.holdsKey(resp.NextCursor) {
		resp.NextURL, resp.NextCursor, resp.NextPage = "", "", 0
		resp.nextHeldKey = true
	}
}
