// Package client talks to a threadbench daemon's REST API (api/openapi.yaml)
// in the domain's words, so that the CLI works the same against a daemon as
// against the local history.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/threadbench/threadbench/api"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/trend"
)

// Client is a daemon's API client.
type Client struct {
	base  string
	token string
	hc    *http.Client

	// submitAttempts is how many times Submit asks a busy daemon (one
	// that answers 503 with Retry-After) before giving up; onBusy hears
	// of each wait.
	submitAttempts int
	onBusy         func(BusyWait)
}

// BusyWait tells what Submit does when the daemon's run queue is full: it
// waits Wait (the daemon's Retry-After) before attempt Attempt of Of.
type BusyWait struct {
	Wait        time.Duration
	Attempt, Of int
	Reason      string
}

// Option configures a Client.
type Option func(*Client)

// WithToken makes the client send the daemon's bearer token with every
// request; an empty token sends none.
func WithToken(token string) Option {
	return func(c *Client) { c.token = token }
}

// WithSubmitRetry makes Submit ask again, at most attempts times in all,
// when the daemon answers that it is busy with a Retry-After, waiting what
// the daemon asks; notify (if not nil) is told before each wait. Without
// it Submit asks once.
func WithSubmitRetry(attempts int, notify func(BusyWait)) Option {
	return func(c *Client) { c.submitAttempts, c.onBusy = attempts, notify }
}

// New returns a client for the daemon at baseURL (e.g. http://127.0.0.1:8080).
func New(baseURL string, options ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: &http.Client{}}
	for _, o := range options {
		o(c)
	}
	return c
}

// newRequest makes a request to the daemon, with the token when there is one.
func (c *Client) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, bench.Errorf(bench.EINVALID, "bad daemon URL %q: %v", c.base, err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// Close releases nothing; it lets a Client stand where a store does.
func (c *Client) Close() error { return nil }

// Submit posts a run spec and returns the queued run. A daemon whose
// queue is full answers 503 with Retry-After; Submit waits and asks again
// as WithSubmitRetry allows, and then returns an EUNAVAILABLE error that
// says how often it asked and how long it waited.
func (c *Client) Submit(ctx context.Context, spec bench.RunSpec) (*bench.Run, error) {
	attempts := max(c.submitAttempts, 1)
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		var run bench.Run
		err := c.do(ctx, http.MethodPost, "/runs", spec, &run)
		wait := bench.RetryAfter(err)
		if err == nil || wait == 0 {
			return &run, err
		}
		if attempt == attempts {
			if attempts == 1 {
				return nil, err
			}
			return nil, &bench.Error{Code: bench.EUNAVAILABLE, RetryAfter: wait, Message: fmt.Sprintf(
				"%s (asked %d times over %s, as the daemon's Retry-After said)", bench.ErrorMessage(err), attempts, waited)}
		}
		if c.onBusy != nil {
			c.onBusy(BusyWait{Wait: wait, Attempt: attempt + 1, Of: attempts, Reason: bench.ErrorMessage(err)})
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
		waited += wait
	}
}

// FindRunByID returns a run document.
func (c *Client) FindRunByID(ctx context.Context, id string) (*bench.Run, error) {
	var run bench.Run
	return &run, c.do(ctx, http.MethodGet, "/runs/"+url.PathEscape(id), nil, &run)
}

// FindRunSummaries lists runs newest first with the filter's paging, as
// summaries.
func (c *Client) FindRunSummaries(ctx context.Context, f bench.RunFilter) ([]bench.RunSummary, string, error) {
	q := url.Values{}
	for _, s := range f.Status {
		q.Add("status", string(s))
	}
	setIf(q, "target", f.Target)
	setIf(q, "name", f.Name)
	for _, key := range slices.Sorted(maps.Keys(f.Labels)) {
		q.Add("label", key+"="+f.Labels[key])
	}
	setIf(q, "cursor", f.Cursor)
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if f.Since != nil {
		q.Set("since", f.Since.Format(time.RFC3339))
	}
	if f.Until != nil {
		q.Set("until", f.Until.Format(time.RFC3339))
	}
	var page api.RunList
	err := c.do(ctx, http.MethodGet, "/runs?"+q.Encode(), nil, &page)
	return page.Runs, page.NextCursor, err
}

// DeleteRun deletes a finished run.
func (c *Client) DeleteRun(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/runs/"+url.PathEscape(id), nil, nil)
}

// Cancel cancels a queued or running run.
func (c *Client) Cancel(ctx context.Context, id string) (*bench.Run, error) {
	var run bench.Run
	return &run, c.do(ctx, http.MethodPost, "/runs/"+url.PathEscape(id)+"/cancel", nil, &run)
}

// Compare returns the daemon's comparison of two runs.
func (c *Client) Compare(ctx context.Context, base, head string, threshold float64) (bench.Comparison, error) {
	q := url.Values{"base": {base}, "head": {head}}
	if threshold > 0 {
		q.Set("threshold", strconv.FormatFloat(threshold, 'f', -1, 64))
	}
	var cmp bench.Comparison
	return cmp, c.do(ctx, http.MethodGet, "/compare?"+q.Encode(), nil, &cmp)
}

// Trend asks the daemon for one figure of one target over the runs of a
// spec, with its change points (GET /runs/trend).
func (c *Client) Trend(ctx context.Context, q trend.Query) (trend.Trend, error) {
	v := url.Values{trend.FieldName: {q.Name}, trend.FieldTarget: {q.Target}}
	setIf(v, trend.FieldFigure, q.Figure)
	setIf(v, trend.FieldLabel, q.Label)
	var t trend.Trend
	return t, c.do(ctx, http.MethodGet, "/runs/trend?"+v.Encode(), nil, &t)
}

func setIf(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := c.newRequest(ctx, method, path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return bench.Errorf(bench.EUNAVAILABLE, "daemon at %s does not answer: %v", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return problemError(resp)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s %s response: %w", method, path, err)
	}
	return nil
}

// problemError turns a daemon's problem+json answer back into a domain error
// with the code its status stands for (the server's own table).
func problemError(resp *http.Response) error {
	var p api.Problem
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(b, &p) != nil || p.Detail == "" {
		p.Detail = fmt.Sprintf("daemon answered %s", resp.Status)
	}
	p.Status = resp.StatusCode
	if resp.StatusCode == http.StatusServiceUnavailable {
		err := p.Err()
		err.RetryAfter = api.ParseRetryAfter(resp.Header.Get("Retry-After"))
		return err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		p.Detail += "; give the CLI the daemon's token (THREADBENCH_TOKEN, or token in the config file)"
		if p.Field == "" {
			p.Field = "token"
		}
	}
	return p.Err()
}
