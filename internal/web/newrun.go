package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/threadbench/threadbench/internal/bench"
)

// newRunView is what the new run form offers: the daemon's catalogs, and
// the defaults the API applies to what is left empty, as placeholders.
type newRunView struct {
	Targets     []bench.TargetInfo
	Profiles    []bench.Profile
	Experiments []bench.Experiment
	Endpoints   []bench.Endpoint
	Models      []bench.Model
	GCs         []string
	Databases   []string
	Defaults    formDefaults
}

// formDefaults are the spec's defaults, shown where a field is empty.
type formDefaults struct {
	WarmupDuration, WarmupRate, Timeout string
	WarmupMax, WarmupWindow             string
	CapacityBudget, CapacityPrecision   string
	CapacityConfirmations               string
	CapacityStartRate                   string
	CPUs, MemoryMiB, TomcatMaxThreads   string
	HeapPercent                         string
	DatabasePool                        string
}

// newRunPart renders the form. It is sent by app.js as JSON to POST /runs;
// the API is its only validator, and its field errors are shown next to
// the control whose data-field names the same JSON path. The models are
// offered in order of name, which puts closed, the form's default (its stage
// table starts with a clients column), first.
func (p *Pages) newRunPart(context.Context, url.Values) ([]byte, int, error) {
	view := newRunView{Targets: p.cfg.Targets, Profiles: p.cfg.Profiles, Experiments: p.cfg.Experiments,
		Endpoints: p.cfg.Endpoints, Models: slices.Sorted(slices.Values(bench.ModelNames())), GCs: bench.GarbageCollectors,
		Databases: bench.DatabaseKinds,
		Defaults: formDefaults{
			WarmupDuration: bench.DefaultWarmupDuration.String(), WarmupRate: formatNum(bench.DefaultWarmupRate),
			WarmupMax: bench.DefaultWarmupMaxDuration.String(), WarmupWindow: bench.DefaultWarmupWindow.String(),
			CapacityBudget: bench.DefaultCapacityBudget.String(), CapacityPrecision: formatNum(bench.DefaultCapacityPrecision),
			CapacityConfirmations: formatNum(bench.DefaultCapacityConfirmations), CapacityStartRate: formatNum(bench.DefaultCapacityStartRate),
			Timeout: bench.DefaultTimeout.String(), CPUs: formatNum(bench.DefaultCPUs),
			MemoryMiB: formatNum(bench.DefaultMemoryMiB), TomcatMaxThreads: formatNum(bench.DefaultTomcatMaxThreads),
			HeapPercent: formatNum(bench.DefaultHeapPercent), DatabasePool: formatNum(bench.DefaultDatabasePool),
		}}
	body, err := p.render("new", view)
	return body, http.StatusOK, err
}
