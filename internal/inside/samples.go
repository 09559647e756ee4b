package inside

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/threaddump"
)

// readThreadSamples copies the thread sampler's file out of the halted
// target, keeps it, and returns its threads as events
// (jfr.TypeThreadSample), its cost in in.Cost; none, with a note saying
// why, where the JVM ran without the sampler or its file is not there.
func (s *Session) readThreadSamples(ctx context.Context, c Collection, in *bench.Inside, dir string) []jfr.Event {
	in.ThreadSamplesOff = s.info.ThreadSamplesOff
	if !s.info.ThreadSamples {
		if s.info.NoThreadSamples != "" && !s.info.ThreadSamplesOff {
			in.Notes = append(in.Notes, "no thread samples (virtual threads' waits unseen): "+s.info.NoThreadSamples)
		}
		return nil
	}
	file := filepath.Join(dir, "threads.txt")
	size, err := s.target.CopyThreadSamples(ctx, file)
	if err != nil {
		in.Notes = append(in.Notes, "no thread samples: "+err.Error())
		return nil
	}
	s.keepFile(ctx, c, in, bench.Artifact{Target: c.Result.Key(), Kind: bench.ArtifactThreads, Bytes: size}, file)
	f, err := os.Open(file)
	if err != nil {
		in.Notes = append(in.Notes, "no thread samples: "+err.Error())
		return nil
	}
	defer f.Close()
	samples, err := threaddump.Parse(f)
	if err != nil {
		in.Notes = append(in.Notes, "the thread samples could not be read: "+err.Error())
		return nil
	}
	if samples.Stopped != "" {
		in.Notes = append(in.Notes, "the thread sampler stopped early: "+samples.Stopped)
	}
	in.VirtualThreads = s.virtualByStage(samples.Virtual())
	mean, share := samples.Cost()
	in.Cost.ThreadDumps, in.Cost.DumpPeriodMs = len(samples.Samples), float64(samples.Period.Milliseconds())
	in.Cost.DumpMs, in.Cost.DumpShare = float64(mean.Microseconds())/1000, share
	return samples.Events()
}

// virtualByStage sums the dumps' virtual threads over each measured
// stage's window, in stage order; nil where the dumps listed none.
func (s *Session) virtualByStage(counts []threaddump.VirtualCount) []bench.VirtualThreadStage {
	if len(counts) == 0 {
		return nil
	}
	s.mu.Lock()
	windows := slices.Collect(maps.Values(s.windows))
	s.mu.Unlock()
	slices.SortFunc(windows, func(a, b jfr.Window) int { return a.Stage - b.Stage })
	var out []bench.VirtualThreadStage
	for _, w := range windows {
		v := bench.VirtualThreadStage{Stage: w.Stage}
		var alive, parked int
		for _, c := range counts {
			if c.At.Before(w.From) || !c.At.Before(w.To) {
				continue
			}
			v.Dumps++
			alive, parked = alive+c.Alive, parked+c.Parked
			v.PeakAlive, v.PeakParked = max(v.PeakAlive, c.Alive), max(v.PeakParked, c.Parked)
		}
		if v.Dumps > 0 {
			v.MeanAlive, v.MeanParked = float64(alive)/float64(v.Dumps), float64(parked)/float64(v.Dumps)
			out = append(out, v)
		}
	}
	return out
}
