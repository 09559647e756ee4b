package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// precheckTimeout bounds each request of a pre-check.
const precheckTimeout = 30 * time.Second

// readiness returns the probe that says the target is ready: GET of its
// health path; for a target of one's own whose health path answers 404
// (an application without Actuator), its workload's first request from
// then on, sent as the attack sends it.
func (in *Instance) readiness() func(context.Context, *http.Client) error {
	health := in.BaseURL() + in.entry.HealthPath
	in.readyBy = "GET " + in.entry.HealthPath
	fallback := in.entry.Listening.HealthFallback && len(in.requests) > 0
	var first *bench.Request
	return func(ctx context.Context, hc *http.Client) error {
		if first != nil {
			code, err := send(ctx, hc, in.BaseURL(), *first)
			if err == nil && !first.Succeeded(code) {
				err = fmt.Errorf("%s %s: %d %s", first.HTTPMethod(), first.Path(), code, http.StatusText(code))
			}
			return err
		}
		err := probe(ctx, hc, health)
		if fallback && isNotFound(err) {
			first = &in.requests[0]
			in.readyBy = first.HTTPMethod() + " " + first.Path()
			return fmt.Errorf("%s answers 404: the first request stands for readiness", in.entry.HealthPath)
		}
		return err
	}
}

// isNotFound reports whether a probe failed on a 404.
func isNotFound(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.code == http.StatusNotFound
}

// metricsProbeTimeout and metricsProbeTries bound how long an optional
// metrics path may take to answer once the service is ready: its first
// exposition loads the registry's classes, seconds on a busy CPU (one
// probe of a second dropped a Spring Boot service's metrics, and with them
// its pool's figures, in a clean-clone run of the suite).
const (
	metricsProbeTimeout = 10 * time.Second
	metricsProbeTries   = 3
)

// findMetrics drops an optional metrics path that does not answer once the
// target is ready: its figures then come from the container alone. An
// answer other than 200 drops it at once; no answer is asked again.
func (in *Instance) findMetrics(ctx context.Context) {
	if !in.entry.Listening.MetricsOptional || in.entry.MetricsPath == "" {
		return
	}
	in.noMetrics = !answers(ctx, &http.Client{Timeout: metricsProbeTimeout}, in.metricsBase()+in.entry.MetricsPath, metricsProbeTries)
}

// answers reports whether url answers 200 within tries probes; a status
// answer ends the tries, a timeout or refused connection does not.
func answers(ctx context.Context, hc *http.Client, url string, tries int) bool {
	for range tries {
		err := probe(ctx, hc, url)
		if err == nil {
			return true
		}
		var se *statusError
		if errors.As(err, &se) || ctx.Err() != nil {
			return false
		}
	}
	return false
}

// ownInfo is what a target of one's own is, in place of a /info: with
// the runtime its JVM says it is, where it exposes that.
func (in *Instance) ownInfo(ctx context.Context) map[string]string {
	info := map[string]string{"readiness": in.readyBy, "metrics": in.MetricsURL()}
	if rt := in.jvmRuntime(ctx); rt != "" {
		info["runtime"] = rt
	}
	if in.entry.ThreadModel != "" {
		info["threadModel"] = in.entry.ThreadModel
	}
	if in.MetricsURL() == "" {
		info["metrics"] = "none (container figures only)"
	}
	return info
}

// precheck sends each request once, in order, and returns an error naming
// the first that fails or answers a status it does not expect.
func precheck(ctx context.Context, baseURL string, reqs []bench.Request) error {
	hc := &http.Client{Timeout: precheckTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, r := range reqs {
		code, err := send(ctx, hc, baseURL, r)
		if err != nil {
			return bench.Errorf(bench.EUNAVAILABLE, "request %q (%s %s) failed in the pre-check: %v", r.Label(), r.HTTPMethod(), r.Path(), err)
		}
		if !r.Succeeded(code) {
			return bench.Errorf(bench.EINVALID, "request %q (%s %s) answered %d %s in the pre-check; expected %s",
				r.Label(), r.HTTPMethod(), r.Path(), code, http.StatusText(code), expected(r))
		}
	}
	return nil
}

// expected says which statuses a request takes as success.
func expected(r bench.Request) string {
	if len(r.Expect) == 0 {
		return "2xx or 3xx"
	}
	return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(r.Expect)), ", "), "[]")
}

// send sends one request as the attack would, reads its response and
// returns its status.
func send(ctx context.Context, hc *http.Client, baseURL string, r bench.Request) (int, error) {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.HTTPMethod(), baseURL+r.Path(), body)
	if err != nil {
		return 0, err
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}
