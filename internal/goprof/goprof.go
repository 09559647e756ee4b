// Package goprof takes CPU profiles of Go targets through net/http/pprof
// (GET /debug/pprof/profile?seconds=N) and reads them with
// github.com/google/pprof/profile: the frames the samples fell in most and
// the stacks folded for a flame graph, in the same shapes as a JVM's
// execution samples (internal/jfr).
package goprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
)

// Path is where net/http/pprof serves CPU profiles.
const Path = "/debug/pprof/profile"

// MaxSize bounds a profile read from a target: a gzipped CPU profile of a
// minute is tens to hundreds of kilobytes.
const MaxSize = 64 << 20

// Profile is a CPU profile: when it started, how long it ran, and its
// samples.
type Profile struct {
	Start    time.Time
	Duration time.Duration
	// Period is the time one sample stands for (10 ms at Go's default
	// 100 Hz).
	Period time.Duration
	raw    *profile.Profile
	value  int // index of the sample value counted: the samples
}

// Fetch asks the target at baseURL for a CPU profile of the next d
// (rounded up to a whole second, at least one, as the endpoint takes
// seconds) and returns it parsed along with its bytes as served (gzipped
// protobuf, what `go tool pprof` reads). The request lasts d, so ctx and
// client must allow for it.
func Fetch(ctx context.Context, hc *http.Client, baseURL string, d time.Duration) (*Profile, []byte, error) {
	u, err := url.JoinPath(baseURL, Path)
	if err != nil {
		return nil, nil, fmt.Errorf("profile URL: %w", err)
	}
	return FetchURL(ctx, hc, u, d)
}

// FetchURL is Fetch from the CPU profile's own URL, for a service that
// serves net/http/pprof elsewhere than under Path.
func FetchURL(ctx context.Context, hc *http.Client, profileURL string, d time.Duration) (*Profile, []byte, error) {
	seconds := max(int64((d+time.Second-1)/time.Second), 1)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, profileURL+"?seconds="+strconv.FormatInt(seconds, 10), nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch the CPU profile: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxSize+1))
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("fetch the CPU profile: %w", err)
	case resp.StatusCode != http.StatusOK:
		return nil, nil, fmt.Errorf("fetch the CPU profile: %s: %s", resp.Status, strings.TrimSpace(string(data[:min(len(data), 200)])))
	case len(data) > MaxSize:
		return nil, nil, fmt.Errorf("fetch the CPU profile: more than %d MiB", MaxSize>>20)
	}
	p, err := Parse(data)
	return p, data, err
}

// Parse reads a CPU profile in pprof's format (gzipped or not).
func Parse(data []byte) (*Profile, error) {
	raw, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("parse the CPU profile: %w", err)
	}
	value := -1
	for i, st := range raw.SampleType {
		if st.Type == "samples" {
			value = i
		}
	}
	if value < 0 {
		return nil, errors.New("parse the CPU profile: it counts no samples (not a CPU profile?)")
	}
	p := &Profile{Start: time.Unix(0, raw.TimeNanos), Duration: time.Duration(raw.DurationNanos), raw: raw, value: value}
	if raw.PeriodType != nil && raw.PeriodType.Unit == "nanoseconds" {
		p.Period = time.Duration(raw.Period)
	}
	return p, nil
}

// Samples returns the profile's samples.
func (p *Profile) Samples() int64 {
	var n int64
	for _, s := range p.raw.Sample {
		n += s.Value[p.value]
	}
	return n
}

// CPUSeconds returns the CPU time the samples stand for.
func (p *Profile) CPUSeconds() float64 {
	return float64(p.Samples()) * p.Period.Seconds()
}

// Stacks returns the samples folded by their stacks of functions, root
// first; inlined functions are frames of their own, as pprof shows them.
func (p *Profile) Stacks() flame.Stacks {
	var b flame.Builder
	for _, s := range p.raw.Sample {
		b.Add(frames(s), s.Value[p.value])
	}
	return b.Stacks()
}

// Top returns the n functions the samples were running in most, with
// their cumulative samples.
func (p *Profile) Top(n int) []bench.FrameCount { return p.Stacks().Top(n) }

// frames returns a sample's functions, root first. A location holds its
// inlined calls innermost first; a location with no function (a binary
// without symbols) is named by its address.
func frames(s *profile.Sample) []string {
	var out []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		loc := s.Location[i]
		if len(loc.Line) == 0 {
			out = append(out, fmt.Sprintf("0x%x", loc.Address))
			continue
		}
		for j := len(loc.Line) - 1; j >= 0; j-- {
			out = append(out, funcName(loc.Line[j].Function))
		}
	}
	return out
}

// funcName returns a function's name, or "?" without one.
func funcName(f *profile.Function) string {
	if f == nil || f.Name == "" {
		return "?"
	}
	return f.Name
}
