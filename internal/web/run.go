package web

import (
	"bytes"
	"context"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/threadbench/threadbench/internal/analysis"
	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/chart"
	"github.com/threadbench/threadbench/internal/report"
)

// runHead is what every view of a run shows at its top.
type runHead struct {
	Run     bench.RunSummary
	Spec    bench.RunSpec
	Stages  []string // "c100 10s", one per stage of the profile
	Workers string   // the workload's requests: "heavy?duration=500, light"
	// Search describes a capacity run's search, whose trials take the
	// place of its profile's one stage (no stage is listed then).
	Search string
}

// reportView is the part of a finished run: its head, the downloads, and
// internal/report's cross-target report.
type reportView struct {
	runHead
	Downloads []download
	// Files are what recorded inside the targets, from the API (GET
	// /runs/{id}/files lists them).
	Files  []download
	Report template.HTML
}

// download is a link to the report in one format, from the API.
type download struct {
	Label, URL, File string
}

// liveView is the part of a queued or running run: its head and the rows
// and charts app.js fills from the run's event stream.
type liveView struct {
	runHead
	Events string // the API's event stream of the run
	Cancel string // the API's cancel of the run
	Rows   []liveRow
	// AttackSeconds and StageStarts ("0 10 20") lay out the charts' time
	// axis before the seconds arrive.
	AttackSeconds int
	StageStarts   string
}

// liveRow is one result the live view follows, in its chart colour.
type liveRow struct {
	Key, Target string
	Status      bench.TargetStatus
	Color       string // internal/chart's colour of the result's index
}

// runPart renders a run: its report once it has finished, its live view
// before.
func (p *Pages) runPart(ctx context.Context, id string) ([]byte, int, error) {
	run, err := p.cfg.Store.FindRunByID(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	if !run.Status.Finished() {
		body, err := p.render("live", newLiveView(run))
		return body, http.StatusOK, err
	}
	view := reportView{runHead: newRunHead(run), Downloads: downloads(run.ID), Files: recordedFiles(run)}
	src, err := report.LoadSource(ctx, p.cfg.Store, run, p.cfg.Targets, true)
	if err != nil {
		return nil, 0, err
	}
	rep := analysis.Analyze(run, analysis.ReportOptions{MinEffect: bench.DefaultNoiseThreshold})
	src.Report = &rep
	var buf bytes.Buffer
	if err := report.WriteReportFragment(&buf, src); err != nil {
		return nil, 0, err
	}
	view.Report = template.HTML(buf.String()) // #nosec: internal/report escapes what it writes
	body, err := p.render("run", view)
	return body, http.StatusOK, err
}

// livePart renders the live view of the run that is running, or says that
// none is and lists the queue.
func (p *Pages) livePart(ctx context.Context) ([]byte, int, error) {
	running, _, err := p.cfg.Store.FindRunSummaries(ctx, bench.RunFilter{Status: []bench.RunStatus{bench.RunRunning}, Limit: 1})
	if err != nil {
		return nil, 0, err
	}
	if len(running) == 0 {
		queued, _, err := p.cfg.Store.FindRunSummaries(ctx, bench.RunFilter{Status: []bench.RunStatus{bench.RunQueued}, Limit: maxPageSize})
		if err != nil {
			return nil, 0, err
		}
		body, err := p.render("idle", queued)
		return body, http.StatusOK, err
	}
	return p.runPart(ctx, running[0].ID)
}

func newRunHead(run *bench.Run) runHead {
	h := runHead{Run: run.Summary(), Spec: run.Spec}
	if c := run.Spec.Capacity; c != nil {
		h.Search = analysis.DescribeSearch(*c)
	} else {
		for _, st := range run.Spec.Profile.Stages {
			h.Stages = append(h.Stages, stageText(run.Spec.Profile.LoadModel(), st))
		}
	}
	for i, r := range run.Spec.Workload.Requests {
		if i > 0 {
			h.Workers += ", "
		}
		h.Workers += r.Label()
	}
	return h
}

// stageText describes a stage: "c100 for 10s", "ramp to 300 req/s for 5s".
func stageText(model bench.LoadModel, st bench.Stage) string {
	load := formatNum(model.Level(st)) + " " + model.Unit()
	if st.Ramp {
		load = "ramp to " + load
	}
	if st.Name != "" {
		load = st.Name + ": " + load
	}
	return load + " for " + st.Duration.String()
}

func newLiveView(run *bench.Run) liveView {
	base := "/runs/" + url.PathEscape(run.ID)
	v := liveView{runHead: newRunHead(run), Events: base + "/events", Cancel: base + "/cancel"}
	var start time.Duration
	var starts []string
	for _, st := range run.Spec.Profile.Stages {
		starts = append(starts, strconv.Itoa(int(start.Seconds())))
		start += st.Duration.D()
	}
	v.AttackSeconds, v.StageStarts = int(math.Ceil(start.Seconds())), strings.Join(starts, " ")
	// Colours go by label, as in the report: the rounds of a target share one.
	var labels []string
	for _, t := range v.Run.Targets {
		label, _, _ := strings.Cut(t.Key, "#")
		i := slices.Index(labels, label)
		if i < 0 {
			i, labels = len(labels), append(labels, label)
		}
		v.Rows = append(v.Rows, liveRow{Key: t.Key, Target: t.Target, Status: t.Status, Color: chart.Color(i)})
	}
	return v
}

// downloads are the report in every format report.Downloads offers, from
// the API: the page adds the token to them when the daemon has one.
func downloads(id string) []download {
	base := "/runs/" + url.PathEscape(id) + "/report?format="
	var out []download
	for _, f := range report.Downloads() {
		out = append(out, download{f.Download, base + f.Name, "threadbench-" + id + "." + f.Extension})
	}
	return out
}

// recordedFiles are the files recorded inside the run's targets (a JVM's
// recording, a Go target's CPU profiles, each stage's folded stacks), from
// the API.
func recordedFiles(run *bench.Run) []download {
	var out []download
	for _, t := range run.Targets {
		if t.Inside == nil {
			continue
		}
		for _, f := range t.Inside.Files {
			label := f.FileName()
			out = append(out, download{Label: label, URL: "/runs/" + url.PathEscape(run.ID) + "/" + filePath(f),
				File: "threadbench-" + run.ID + "-" + label})
		}
	}
	return out
}

// filePath is a file's path under its run's, each name escaped.
func filePath(f bench.Artifact) string {
	p := "targets/" + url.PathEscape(f.Target) + "/"
	if f.Stage != nil {
		p += "stages/" + strconv.Itoa(*f.Stage) + "/"
	}
	return p + f.Kind
}
