package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html/template"
	"strings"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/flame"
	"github.com/threadbench/threadbench/internal/units"
)

// The why of a report, as internal/analysis found it (bench.WhyReport):
// per subject, what recorded inside it and each stage's causes, the frames
// its CPU samples fell in, what recording cost; a capacity search's why at
// its first failing rate beside its last passing one; recording's overhead
// where the run measured it; and, in HTML, a flame graph per subject at
// the stage that matters, drawn into the page (internal/flame's SVG), with
// its folded stacks to download.

// Flame is one flame graph's samples, as Source carries them: the folded
// stacks of a result's stage (bench.ArtifactFolded).
type Flame struct {
	Ref    bench.FlameRef
	Stacks flame.Stacks
}

// Layout of the flame graphs in HTML, and what bounds their weight: a
// box is some 290 bytes of SVG, and a page of three targets' graphs with
// their stacks stays under 2 MB whatever the profile.
const (
	flameWidth = 720 // px: two side by side on a wide page
	// flameBoxes bounds a graph's boxes: narrower frames merge first.
	flameBoxes = 1000
	// maxEmbeddedFolded bounds the folded stacks a page carries as a
	// download (base64, a third more): past it, the page says where the
	// API serves them.
	maxEmbeddedFolded = 192 << 10
)

// LoadFlames reads from store the folded stacks of the flame graphs the
// report of r draws (analysis.Flames), for the HTML report.
func LoadFlames(ctx context.Context, store bench.ArtifactStore, r *bench.Run) ([]Flame, error) {
	var out []Flame
	for _, ref := range analysis.Flames(r) {
		var buf bytes.Buffer
		if err := store.WriteArtifact(ctx, r.ID, ref.Artifact(), &buf); err != nil {
			if bench.ErrorCode(err) == bench.ENOTFOUND {
				continue
			}
			return nil, fmt.Errorf("flame graph of %s: %w", ref.Key, err)
		}
		stacks, err := flame.Parse(&buf)
		if err != nil {
			return nil, fmt.Errorf("flame graph of %s: %w", ref.Key, err)
		}
		out = append(out, Flame{Ref: ref, Stacks: stacks})
	}
	return out, nil
}

// whySections lay out the report's why; none for a run that measured
// nothing.
func whySections(rep bench.Report) []section {
	w := rep.Why
	if w == nil {
		return nil
	}
	s := section{Title: "Why: what held each target back", ID: "why"}
	for _, t := range w.Targets {
		s.Blocks = append(s.Blocks, whyTargetBlocks(t)...)
	}
	if len(w.Capacity) > 0 {
		b := block{Title: "capacity: the first failing rate beside the last passing one"}
		for _, c := range w.Capacity {
			b.Lines = append(b.Lines, c.Sentence)
		}
		s.Blocks = append(s.Blocks, b)
	}
	if len(w.Overhead) > 0 {
		s.Blocks = append(s.Blocks, overheadBlock(w.Overhead))
	}
	if len(w.Flames) > 0 || len(w.Unsampled) > 0 {
		s.Blocks = append(s.Blocks, flameFilesBlock(rep.Run.ID, w.Flames, w.Unsampled))
	}
	return []section{s}
}

// whyTargetBlocks lay out one subject's why: what recorded inside it, each
// stage's causes, and at the stage that matters the frames its samples
// fell in and the stack of its strongest cause.
func whyTargetBlocks(t bench.WhyTarget) []block {
	head := block{Title: t.Label + ": " + sourceWords(t)}
	head.KV = append(head.KV, [2]string{"why", t.Finding})
	if t.NoProfile != "" {
		head.KV = append(head.KV, [2]string{"no recording", t.NoProfile})
	}
	if t.Cost != nil {
		head.KV = append(head.KV, [2]string{"recording cost", costWords(t.Source, t.Cost)})
	}
	if v := virtualAt(t.VirtualThreads, t.Matters); v != nil {
		head.KV = append(head.KV, [2]string{"virtual threads", virtualWords(*v)})
	}
	for _, st := range t.Stages {
		head.Lines = append(head.Lines, stageWhyLines(t, st)...)
	}
	head.Lines = append(head.Lines, t.Notes...)
	blocks := []block{head}
	if t.JMC != nil {
		blocks = append(blocks, jmcBlock(t.Label, t.JMC))
	}
	d := t.Stage(t.Matters)
	if d == nil {
		return blocks
	}
	if b := stackBlock(t.Label, d); len(b.Lines) > 0 {
		blocks = append(blocks, b)
	}
	if len(d.OwnFrames) > 0 {
		blocks = append(blocks, framesBlock(t.Label+": its own code in the CPU samples (innermost own frame)", d.OwnFrames, d.Samples, false))
	}
	if len(d.TopFrames) > 0 {
		blocks = append(blocks, framesBlock(t.Label+": where the CPU samples ran (self)", d.TopFrames, d.Samples, true))
	}
	return blocks
}

// sourceWords says what recorded inside a subject.
func sourceWords(t bench.WhyTarget) string {
	switch t.Source {
	case bench.ProfileJFR:
		if d := t.Stage(t.Matters); d != nil && d.JDK > 0 {
			return fmt.Sprintf("JFR recording (JDK %d)", d.JDK)
		}
		return "JFR recording"
	case bench.ProfilePprof:
		return "CPU profiles (pprof)"
	case "":
		if t.Off {
			return "recording turned off"
		}
	}
	return "nothing recorded inside"
}

// costWords says what recording took after the attack.
func costWords(source string, c *bench.InsideCost) string {
	if source == bench.ProfilePprof {
		return fmt.Sprintf("%s of profiles, %d samples", sizeWords(c.Bytes), c.Events)
	}
	s := fmt.Sprintf("%s recording, %d events read; stop with the JVM's dump %.2f s, copy %.2f s, reading %.2f s",
		sizeWords(c.Bytes), c.Events, c.StopSeconds, c.CopySeconds, c.ReadSeconds)
	if c.ThreadDumps > 0 {
		s += fmt.Sprintf("; %d thread dumps, %.1f ms each (%.1f %% of a CPU)", c.ThreadDumps, c.DumpMs, 100*c.DumpShare)
	}
	return s
}

// sizeWords says a size in kB or MB.
func sizeWords(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// stageWhyLines are one stage's causes, one line each (its kind with what
// it waited for) and what to try under it, or one line saying none showed.
func stageWhyLines(t bench.WhyTarget, d bench.Diagnosis) []string {
	name := fmt.Sprintf("stage %d", d.Stage+1)
	if d.Stage == t.Matters && len(t.Stages) > 1 {
		name += " (the busiest)"
	}
	if len(d.Causes) == 0 {
		what := "no bound reached"
		if d.Source == "" && d.NoProfile != "" && d.NoProfile != t.NoProfile {
			what += "; nothing recorded in it: " + d.NoProfile
		}
		return []string{name + ": " + what}
	}
	var lines []string
	for _, c := range d.Causes {
		kind := c.Kind
		if c.Waits != "" {
			kind += " (" + c.Waits + ")"
		}
		lines = append(lines, fmt.Sprintf("%s, %s: %s", name, kind, strings.TrimPrefix(c.Sentence, d.Target+": ")))
		if c.Try != "" {
			lines = append(lines, fmt.Sprintf("%s, what to try (%s): %s", name, c.Kind, c.Try))
		}
	}
	return lines
}

// stackBlock lists the stacks the strongest cause with stacks happened
// in, innermost frame first.
func stackBlock(label string, d *bench.Diagnosis) block {
	for _, c := range d.Causes {
		if len(c.Stacks) == 0 {
			continue
		}
		b := block{Title: fmt.Sprintf("%s: where it was %s (innermost frame first)", label, c.Kind)}
		for _, st := range c.Stacks {
			b.Lines = append(b.Lines, fmt.Sprintf("%d events, %.2f s, %s: %s", st.Count, st.Seconds,
				units.Percent(st.Share), strings.Join(st.Frames, " ← ")))
		}
		return b
	}
	return block{}
}

// framesBlock tabulates frames of CPU samples.
func framesBlock(title string, frames []bench.FrameCount, samples int64, cumulative bool) block {
	b := block{Title: title, Header: []string{"FRAME", "SAMPLES", "SHARE"}, Right: map[int]bool{1: true, 2: true}}
	if cumulative {
		b.Header = append(b.Header, "UNDER IT")
		b.Right[3] = true
	}
	for _, f := range frames {
		row := []string{f.Frame, fmt.Sprint(f.Self), units.Percent(float64(f.Self) / float64(max(samples, 1)))}
		if cumulative {
			row = append(row, units.Percent(float64(f.Cumulative)/float64(max(samples, 1))))
		}
		b.Rows = append(b.Rows, row)
		b.Color = append(b.Color, -1)
	}
	return b
}

// overheadBlock sets each target measured with and without recording side
// by side.
func overheadBlock(overheads []bench.Overhead) block {
	b := block{Title: "what recording cost (the same target with and without, in this run)",
		Header: []string{"TARGET", "RECORDED", "NOT RECORDED", "WITH req/s", "WITHOUT req/s", "CHANGE"},
		Right:  map[int]bool{3: true, 4: true, 5: true}}
	for _, o := range overheads {
		b.Rows = append(b.Rows, []string{o.Target, o.Recorded + " (" + o.Source + ")", o.Unrecorded,
			fmt.Sprintf("%.1f", o.With), fmt.Sprintf("%.1f", o.Without), fmt.Sprintf("%+.1f%%", o.Change)})
		b.Color = append(b.Color, -1)
	}
	return b
}

// jmcBlock lists what JDK Mission Control's rules found in a subject's
// recording, warnings first, and where they part from the why.
func jmcBlock(label string, j *bench.JMCAnalysis) block {
	b := block{Title: fmt.Sprintf("%s: JDK Mission Control's rules (JMC %s)", label, j.Version)}
	if j.Error != "" {
		b.Lines = append(b.Lines, "not run: "+j.Error)
		return b
	}
	b.Header, b.Right = []string{"SEVERITY", "SCORE", "RULE", "WHAT IT FOUND"}, map[int]bool{1: true}
	for _, r := range j.Rules {
		score := "-"
		if r.Score != nil {
			score = fmt.Sprintf("%.0f", *r.Score)
		}
		b.Rows = append(b.Rows, []string{r.Severity, score, r.ID, r.Summary})
		b.Color = append(b.Color, -1)
	}
	b.Lines = append(b.Lines, fmt.Sprintf("%d rules found something, %d nothing, in %.1f s", len(j.Rules), j.OK, j.Seconds))
	for _, d := range j.Disagree {
		b.Lines = append(b.Lines, "disagrees: "+d)
	}
	return b
}

// flameFilesBlock says where each flame graph's folded stacks are served.
func flameFilesBlock(runID string, refs []bench.FlameRef, unsampled []string) block {
	b := block{Title: "flame graphs: folded stacks (flamegraph.pl, speedscope), from the API"}
	for _, f := range refs {
		b.Lines = append(b.Lines, fmt.Sprintf("%s: GET /runs/%s/%s", f.Title, runID, f.Artifact().Path()))
	}
	b.Lines = append(b.Lines, unsampled...)
	return b
}

// figure is a picture in an HTML block: a flame graph, with a caption and
// its folded stacks to download.
type figure struct {
	SVG      template.HTML
	Caption  string
	Download template.URL // a data: URL of the folded stacks; empty when too large to carry
	File     string
}

// withFlames adds the flame graphs to the why section of an HTML page, in
// the order analysis gave them (virtual beside platform).
func withFlames(sections []section, rep bench.Report, flames []Flame) []section {
	if rep.Why == nil || len(flames) == 0 {
		return sections
	}
	b := block{Title: "flame graphs (CPU samples at the stage that matters)"}
	for i, ref := range rep.Why.Flames {
		stacks, ok := flameStacks(flames, ref)
		if !ok {
			continue
		}
		b.Figures = append(b.Figures, flameFigure(i, ref, stacks))
	}
	for i := range sections {
		if sections[i].ID == "why" && len(b.Figures) > 0 {
			sections[i].Blocks = append([]block{b}, sections[i].Blocks...)
		}
	}
	return sections
}

// flameStacks finds the stacks of a flame graph.
func flameStacks(flames []Flame, ref bench.FlameRef) (flame.Stacks, bool) {
	for _, f := range flames {
		if f.Ref.Key == ref.Key && f.Ref.Stage == ref.Stage {
			return f.Stacks, true
		}
	}
	return nil, false
}

// flameFigure draws one flame graph.
func flameFigure(i int, ref bench.FlameRef, stacks flame.Stacks) figure {
	unit := "JFR execution samples"
	if ref.Source == bench.ProfilePprof {
		unit = "pprof CPU samples"
	}
	g := flame.Graph{ID: fmt.Sprintf("flame-%d", i), Title: ref.Title, Subtitle: unit, Stacks: stacks, Width: flameWidth, MaxBoxes: flameBoxes}
	var svg, folded bytes.Buffer
	_ = g.Render(&svg)
	_, _ = stacks.WriteTo(&folded)
	f := figure{SVG: template.HTML(svg.String()), File: ref.Artifact().FileName(), // #nosec: internal/flame escapes every text it draws
		Caption: fmt.Sprintf("%s: %d samples", ref.Title, stacks.Total())}
	if folded.Len() <= maxEmbeddedFolded {
		f.Download = template.URL("data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString(folded.Bytes())) // #nosec: base64 of our own text
	} else {
		f.Caption += fmt.Sprintf("; its folded stacks (%d kB) are served by the API: %s", folded.Len()>>10, ref.Artifact().Path())
	}
	return f
}

// virtualAt is the dumps' count of a stage's virtual threads, or nil.
func virtualAt(stages []bench.VirtualThreadStage, stage int) *bench.VirtualThreadStage {
	for i := range stages {
		if stages[i].Stage == stage {
			return &stages[i]
		}
	}
	return nil
}

// virtualWords says a stage's virtual threads as the dumps counted them:
// "398 alive on average (412 at the most), 391 of them parked (98 %),
// in 10 thread dumps".
func virtualWords(v bench.VirtualThreadStage) string {
	s := fmt.Sprintf("%.0f alive on average (%d at the most), %.0f of them parked", v.MeanAlive, v.PeakAlive, v.MeanParked)
	if v.MeanAlive > 0 {
		s += fmt.Sprintf(" (%.0f %%)", 100*v.MeanParked/v.MeanAlive)
	}
	return s + fmt.Sprintf(", in %d thread dumps of the stage", v.Dumps)
}
