package metrics

import "github.com/threadbench/threadbench/internal/bench"

// The connection pool's series, as HikariCP's Micrometer binding names them
// (the Go target exposes the same names for its database/sql pool:
// targets/CONTRACT.md), summed over their pool label.
const (
	PoolActive         = "hikaricp_connections_active"
	PoolIdle           = "hikaricp_connections_idle"
	PoolPending        = "hikaricp_connections_pending"
	PoolTotal          = "hikaricp_connections"
	PoolMax            = "hikaricp_connections_max"
	PoolTimeouts       = "hikaricp_connections_timeout_total"
	PoolAcquireCount   = "hikaricp_connections_acquire_seconds_count"
	PoolAcquireSeconds = "hikaricp_connections_acquire_seconds_sum"
	PoolUsageCount     = "hikaricp_connections_usage_seconds_count"
	PoolUsageSeconds   = "hikaricp_connections_usage_seconds_sum"
)

// poolSeries are the pool's curated series.
var poolSeries = []string{PoolActive, PoolIdle, PoolPending, PoolTotal, PoolMax, PoolTimeouts, PoolAcquireCount, PoolAcquireSeconds,
	PoolUsageCount, PoolUsageSeconds}

// poolSources map the pool's gauges onto StageResources.Pool's figures.
var poolSources = []bench.FigureSource{
	{Figure: bench.PoolActive, Series: []bench.SeriesRef{{Name: PoolActive}}},
	{Figure: bench.PoolIdle, Series: []bench.SeriesRef{{Name: PoolIdle}}},
	{Figure: bench.PoolPending, Series: []bench.SeriesRef{{Name: PoolPending}}},
	{Figure: bench.PoolTotal, Series: []bench.SeriesRef{{Name: PoolTotal}}},
	{Figure: bench.PoolMax, Series: []bench.SeriesRef{{Name: PoolMax}}},
}

func init() {
	for _, name := range poolSeries {
		curated[name] = nil
	}
}

// summarizePool fills a stage's pool figures: its gauges, the timeouts in
// it, the mean time a connection took to acquire and the mean time one was
// held.
func summarizePool(r *bench.StageResources, byName map[string][]bench.Point, pool map[string][]bench.Point, w window) {
	r.Pool = gauges(pool, w)
	r.PoolTimeouts = firstDelta(byName, []counter{{PoolTimeouts, 1}}, w)
	r.PoolAcquireMs = meanMs(byName, PoolAcquireCount, PoolAcquireSeconds, w)
	r.PoolUsageMs = meanMs(byName, PoolUsageCount, PoolUsageSeconds, w)
}
