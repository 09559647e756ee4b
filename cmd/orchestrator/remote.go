package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/client"
)

// runRemote submits the spec to a daemon and follows the run until it ends:
// the one run, or each part's in turn of an experiment of several parts,
// which the daemon queues together. A daemon whose queue is full is asked
// again, attempts times in all, after the wait its Retry-After gives;
// still full, that is exit status 4. Ctrl-C asks whether to cancel the run
// on the daemon (without a terminal to ask on, it cancels; the daemon
// cancels the parts after it); answering no detaches and leaves the runs
// going.
func runRemote(g *globalState, cfg config, spec bench.RunSpec, output string, quiet bool, attempts int) error {
	c, first, err := submitRemote(g, cfg, spec, attempts)
	if err != nil {
		return err
	}
	parts := runParts(first)
	for _, id := range parts {
		fmt.Fprintf(g.stderr, "run %s queued on %s\n", id, cfg.Server)
	}
	for i := range parts {
		final, err := followRemoteRun(g, cfg, c, parts[i:], quiet)
		if err != nil || final == nil {
			return err // the stream failed, or the user detached
		}
		if err := finishRun(g, final, output, cfg.Server); err != nil {
			return err
		}
	}
	return nil
}

// defaultSubmitAttempts is how many times a run is submitted to a daemon
// whose queue is full (run's --submit-attempts, and check's).
const defaultSubmitAttempts = 3

// submitRemote submits spec to the daemon, asking again while its queue
// is full as many times as attempts allows; still full, that is exit status
// 4, nothing submitted. It returns the client, for following the run.
func submitRemote(g *globalState, cfg config, spec bench.RunSpec, attempts int) (*client.Client, *bench.Run, error) {
	if attempts < 1 {
		return nil, nil, bench.FieldErrorf("submit-attempts", "must be at least 1, got %d", attempts)
	}
	c := cfg.newClient(client.WithSubmitRetry(attempts, func(b client.BusyWait) {
		fmt.Fprintf(g.stderr, "%s: %s; asking again in %s (attempt %d of %d)\n", cfg.Server, b.Reason, b.Wait, b.Attempt, b.Of)
	}))
	first, err := c.Submit(g.ctx, spec)
	if bench.RetryAfter(err) > 0 {
		return nil, nil, &exitError{code: exitBusy, err: bench.Errorf(bench.EUNAVAILABLE,
			"nothing was submitted: %s; try again later, or raise the daemon's guardrails.maxQueue", bench.ErrorMessage(err))}
	}
	return c, first, err
}

// followRemoteRun follows the first of runs (the others are the parts
// queued after it) until it ends, and returns it; nil when the user
// detached on Ctrl-C, leaving them all going.
func followRemoteRun(g *globalState, cfg config, c *client.Client, runs []string, quiet bool) (*bench.Run, error) {
	id := runs[0]
	follow, stopFollowing := context.WithCancel(context.Background())
	defer stopFollowing()
	detached := make(chan struct{})
	go func() {
		select {
		case <-g.ctx.Done():
		case <-follow.Done():
			return
		}
		if !confirmCancel(g, id) {
			close(detached)
			stopFollowing()
			return
		}
		if _, err := c.Cancel(context.Background(), id); err != nil {
			fmt.Fprintf(g.stderr, "cancel run %s: %s\n", id, errorText(err))
		}
	}()

	final, err := followRemote(follow, c, id, g, quiet)
	select {
	case <-detached:
		fmt.Fprintf(g.stderr, "detached; %s on. Follow it with: orchestrator runs show %s --server %s\n", runsGoOn(runs), id, cfg.Server)
		return nil, nil
	default:
	}
	return final, err
}

// runsGoOn says that runs go on: "run r1 goes", "runs r1 and r2 go".
func runsGoOn(ids []string) string {
	if len(ids) == 1 {
		return "run " + ids[0] + " goes"
	}
	return "runs " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1] + " go"
}

// followRemote relays a run's events to the progress view and returns the
// final run document from the stream's end event.
func followRemote(ctx context.Context, c *client.Client, id string, g *globalState, quiet bool) (*bench.Run, error) {
	events := make(chan bench.Event, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		showProgress(g.stderr, events, quiet)
	}()
	var final *bench.Run
	err := c.Events(ctx, id, func(m client.Message) error {
		switch m.Event {
		case "state":
		case "end":
			run, err := m.AsRun()
			if err != nil {
				return fmt.Errorf("decode final run: %w", err)
			}
			final = run
		default:
			if ev, err := m.AsEvent(); err == nil {
				events <- ev
			}
		}
		return nil
	})
	close(events)
	<-done
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if final == nil {
		// The stream broke off (daemon restarted?): read what is stored.
		return c.FindRunByID(context.Background(), id)
	}
	return final, nil
}

// confirmCancel asks on the terminal whether to cancel the run; without a
// terminal there is nobody to ask, and Ctrl-C means cancel.
func confirmCancel(g *globalState, id string) bool {
	f, ok := g.stdin.(*os.File)
	if !ok || !isTerminal(f) {
		return true
	}
	fmt.Fprintf(g.stderr, "\ncancel run %s on the daemon? [y/N] ", id)
	answer, _ := bufio.NewReader(f).ReadString('\n')
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(answer)), "y")
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
