package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/threadbench/threadbench/internal/bench"
)

// SSE event names besides the bench.EventType of each progress event.
const (
	sseState = "state" // the state: the full run document, first on every stream
	sseEnd   = "end"   // the final run document, last on every stream
)

// followRun streams a run's progress as Server-Sent Events: the stored state
// first, then every event of the run, then the final state. It subscribes
// before reading the state, so that nothing happens unseen in between; a
// client's disconnect cancels the subscription through the request context.
// HEAD gets the stream's headers once the run is found, and no stream.
func (s *Server) followRun(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	id, err := runID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if r.Method == http.MethodHead {
		s.headRunStream(w, r, id)
		return
	}
	events, subErr := s.cfg.Runs.Subscribe(ctx, id)
	if subErr != nil && bench.ErrorCode(subErr) != bench.ENOTFOUND {
		s.writeError(w, r, subErr)
		return
	}
	run, err := s.cfg.Store.FindRunByID(ctx, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	stream := newEventStream(w)
	if err := stream.send(sseState, run); err != nil {
		return
	}
	// The queue forgets finished runs, so "not found" there with a stored
	// run means the run is over.
	if subErr != nil || run.Status.Finished() {
		_ = stream.send(sseEnd, run)
		return
	}
	s.relay(ctx, stream, events, id)
}

// headRunStream answers HEAD on a run's event stream: the headers a GET
// would get, or its problem.
func (s *Server) headRunStream(w http.ResponseWriter, r *http.Request, id string) {
	if _, err := s.cfg.Store.FindRunByID(r.Context(), id); err != nil {
		s.writeError(w, r, err)
		return
	}
	newEventStream(w)
}

// relay forwards events until the run ends or the client leaves, with a
// keep-alive comment at every tick so that proxies keep the stream open.
func (s *Server) relay(ctx context.Context, stream *eventStream, events <-chan bench.Event, id string) {
	tick := time.NewTicker(s.cfg.KeepAlive)
	defer tick.Stop()
	resyncs := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := stream.comment("keep-alive"); err != nil {
				return
			}
		case ev, ok := <-events:
			if !ok {
				resyncs++
				if events = s.resync(ctx, stream, id, resyncs <= maxResyncs); events == nil {
					return
				}
				continue
			}
			if err := stream.send(string(ev.Type), ev); err != nil {
				return
			}
		}
	}
}

// maxResyncs bounds how often one stream subscribes again, so that a
// subscription that keeps ending at once cannot spin.
const maxResyncs = 3

// resync handles the end of a subscription. Normally the run is over and
// the stream sends its final document. But the queue also cuts off a
// subscriber that lags so far behind that it would miss a change of state:
// then, if again, the stream subscribes anew and sends the run's state. It
// returns the new subscription, nil when the stream is over. The response
// is under way, so a failure to read the run can only be logged.
func (s *Server) resync(ctx context.Context, stream *eventStream, id string, again bool) <-chan bench.Event {
	var events <-chan bench.Event
	subErr := errors.New("no more subscriptions for this stream")
	if again {
		events, subErr = s.cfg.Runs.Subscribe(ctx, id)
	}
	run, err := s.cfg.Store.FindRunByID(ctx, id)
	if err != nil {
		s.log.ErrorContext(ctx, "reading the run for its event stream", "requestId", requestIDFrom(ctx), "run", id, "error", err)
		return nil
	}
	if subErr != nil || run.Status.Finished() {
		_ = stream.send(sseEnd, run)
		return nil
	}
	if err := stream.send(sseState, run); err != nil {
		return nil
	}
	return events
}

// eventStream writes Server-Sent Events, numbering them from 1 and flushing
// each one.
type eventStream struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	seq int
}

// newEventStream starts the response. It lifts the server's write deadline,
// which is meant for ordinary responses, not for a stream that lasts a run.
func newEventStream(w http.ResponseWriter) *eventStream {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // unsupported by some writers (tests); nothing to do then
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &eventStream{w: w, rc: rc}
}

// send writes one event whose data is v as JSON (one line: encoding/json
// never writes newlines).
func (s *eventStream) send(event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s event: %w", event, err)
	}
	s.seq++
	if _, err := fmt.Fprintf(s.w, "id: %d\nevent: %s\ndata: %s\n\n", s.seq, event, data); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *eventStream) comment(text string) error {
	if _, err := fmt.Fprintf(s.w, ": %s\n\n", text); err != nil {
		return err
	}
	return s.rc.Flush()
}
