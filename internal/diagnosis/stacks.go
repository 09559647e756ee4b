package diagnosis

import (
	"cmp"
	"slices"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jfr"
)

// blame is where events happened: the stack from the code that caused
// them (the innermost frame not the JDK's) outwards, StackDepth frames at
// most; the innermost frames when every frame is the JDK's.
func blame(e jfr.Event) []string {
	stack := e.Stack
	if i := slices.IndexFunc(stack, func(f jfr.Frame) bool { return !f.JDK() }); i >= 0 {
		stack = stack[i:]
	}
	frames := make([]string, min(len(stack), StackDepth))
	for i := range frames { // only the frames kept: stacks arrive 64 deep
		frames[i] = stack[i].String()
	}
	return frames
}

// topStacks groups the events by where they happened, weighs each place
// by the events' time there (by their number when they have none), and
// returns the TopStacks heaviest.
func topStacks(events []jfr.Event) []bench.StackCount {
	byKey := map[string]*bench.StackCount{}
	var total float64
	var count int64
	for _, e := range events {
		frames := blame(e)
		key := strings.Join(frames, "\n")
		if byKey[key] == nil {
			byKey[key] = &bench.StackCount{Frames: frames}
		}
		byKey[key].Count++
		byKey[key].Seconds += e.Duration.Seconds()
		total += e.Duration.Seconds()
		count++
	}
	stacks := make([]bench.StackCount, 0, len(byKey))
	for _, s := range byKey {
		s.Share = weight(*s, total, count)
		stacks = append(stacks, *s)
	}
	slices.SortFunc(stacks, func(a, b bench.StackCount) int {
		return cmp.Or(cmp.Compare(b.Share, a.Share), cmp.Compare(b.Count, a.Count),
			strings.Compare(strings.Join(a.Frames, "\n"), strings.Join(b.Frames, "\n")))
	})
	return stacks[:min(len(stacks), TopStacks)]
}

// weight is a stack's share of the events: of their time, or of their
// number when they took none.
func weight(s bench.StackCount, total float64, count int64) float64 {
	if total > 0 {
		return s.Seconds / total
	}
	if count == 0 {
		return 0
	}
	return float64(s.Count) / float64(count)
}

// culprit returns the frame the heaviest stacks start at and its share of
// all the events' weight, summed over every stack starting there (the
// same method called from different places): what a sentence names.
func culprit(stacks []bench.StackCount) (string, float64) {
	if len(stacks) == 0 || len(stacks[0].Frames) == 0 {
		return "", 0
	}
	frame := stacks[0].Frames[0]
	var share float64
	for _, s := range stacks {
		if len(s.Frames) > 0 && s.Frames[0] == frame {
			share += s.Share
		}
	}
	return frame, share
}
