package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Message is one Server-Sent Event from /runs/{id}/events: its event name
// ("run", "target", "stage", "second", "end") and its JSON data.
type Message struct {
	Event string
	Data  json.RawMessage
}

// Events follows a run's progress until the daemon ends the stream (the run
// ended) or ctx is done. handle is called for each message in order.
func (c *Client) Events(ctx context.Context, id string, handle func(Message) error) error {
	req, err := c.newRequest(ctx, http.MethodGet, "/runs/"+url.PathEscape(id)+"/events", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		return bench.Errorf(bench.EUNAVAILABLE, "daemon at %s does not answer: %v", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return problemError(resp)
	}
	return readEvents(bufio.NewScanner(resp.Body), handle)
}

func readEvents(sc *bufio.Scanner, handle func(Message) error) error {
	sc.Buffer(make([]byte, 64*1024), 64<<20) // a run document can be large
	var msg Message
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if msg.Event != "" || data.Len() > 0 {
				msg.Data = json.RawMessage(data.String())
				if err := handle(msg); err != nil {
					return err
				}
			}
			msg, data = Message{}, strings.Builder{}
		case strings.HasPrefix(line, ":"): // keep-alive comment
		case strings.HasPrefix(line, "event:"):
			msg.Event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	return nil
}

// AsEvent decodes a progress message's data as a bench.Event.
func (m Message) AsEvent() (bench.Event, error) {
	var ev bench.Event
	err := json.Unmarshal(m.Data, &ev)
	return ev, err
}

// AsRun decodes a "run" or "end" message's data as a run document.
func (m Message) AsRun() (*bench.Run, error) {
	var run bench.Run
	err := json.Unmarshal(m.Data, &run)
	return &run, err
}
