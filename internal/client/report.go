package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/threadbench/threadbench/internal/bench"
)

// Report returns the daemon's report of a run in a format of
// GET /runs/{id}/report (html, markdown, csv, json, table), as its bytes;
// threshold, when above 0, is the minimum effect in percent, maxErrors
// the percentage of a stage's requests that may fail for a verdict.
func (c *Client) Report(ctx context.Context, id, format string, threshold, maxErrors float64) ([]byte, error) {
	q := url.Values{"format": {format}}
	if threshold > 0 {
		q.Set("threshold", strconv.FormatFloat(threshold, 'f', -1, 64))
	}
	if maxErrors > 0 {
		q.Set("maxErrors", strconv.FormatFloat(maxErrors, 'f', -1, 64))
	}
	req, err := c.newRequest(ctx, http.MethodGet, "/runs/"+url.PathEscape(id)+"/report?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "daemon at %s does not answer: %v", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, problemError(resp)
	}
	return io.ReadAll(resp.Body)
}
