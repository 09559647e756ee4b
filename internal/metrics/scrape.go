package metrics

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// scraper reads one metrics endpoint.
type scraper struct {
	client *http.Client
	url    string
}

// acceptText asks for the text format every target speaks, rather than
// OpenMetrics or protobuf, which the text parser does not read.
const acceptText = "text/plain;version=0.0.4;q=1,*/*;q=0.1"

// scrape fetches the exposition and returns its text and curated samples.
func (s *scraper) scrape(ctx context.Context) (string, []Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return "", nil, fmt.Errorf("scrape %s: %w", s.url, err)
	}
	req.Header.Set("Accept", acceptText)
	resp, err := s.client.Do(req)
	if err != nil {
		return "", nil, fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("scrape %s: %s", s.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxExposition))
	if err != nil {
		return "", nil, fmt.Errorf("scrape %s: %w", s.url, err)
	}
	samples, err := Extract(bytes.NewReader(body))
	if err != nil {
		return "", nil, fmt.Errorf("scrape %s: %w", s.url, err)
	}
	return string(body), samples, nil
}
