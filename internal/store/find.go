package store

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Page sizes of FindRunSummaries.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// runQuery is a FindRunSummaries filter turned into SQL.
type runQuery struct {
	where []string
	args  []any
	limit int
}

func newRunQuery(f bench.RunFilter) (*runQuery, error) {
	q := &runQuery{limit: f.Limit}
	if q.limit == 0 {
		q.limit = DefaultLimit
	} else if q.limit < 0 || q.limit > MaxLimit {
		return nil, bench.FieldErrorf("limit", "limit must be between 1 and %d, got %d", MaxLimit, f.Limit)
	}
	if err := q.status(f.Status); err != nil {
		return nil, err
	}
	if f.Target != "" {
		q.add(`(EXISTS (SELECT 1 FROM run_targets t WHERE t.run_id = runs.id AND t.target = ?)
			OR EXISTS (SELECT 1 FROM json_each(runs.spec, '$.targets') WHERE value = ?))`, f.Target, f.Target)
	}
	if f.Name != "" {
		q.add(`instr(lower(name), lower(?)) > 0`, f.Name)
	}
	for _, key := range slices.Sorted(maps.Keys(f.Labels)) {
		q.add(`EXISTS (SELECT 1 FROM json_each(runs.spec, '$.labels') WHERE key = ? AND value = ?)`, key, f.Labels[key])
	}
	if f.Since != nil {
		q.add(`created_at >= ?`, f.Since.UnixNano())
	}
	if f.Until != nil {
		q.add(`created_at < ?`, f.Until.UnixNano())
	}
	return q, q.cursor(f.Cursor)
}

func (q *runQuery) status(statuses []bench.RunStatus) error {
	if len(statuses) == 0 {
		return nil
	}
	args := make([]any, len(statuses))
	for i, s := range statuses {
		if !knownStatus(s) {
			return bench.FieldErrorf("status", "unknown run status %q", s)
		}
		args[i] = string(s)
	}
	q.add(`status IN (`+placeholders(len(args))+`)`, args...)
	return nil
}

// cursor restricts the query to rows after the last row of the previous
// page in (created_at, id) descending order.
func (q *runQuery) cursor(cursor string) error {
	if cursor == "" {
		return nil
	}
	created, id, err := decodeCursor(cursor)
	if err != nil {
		return err
	}
	q.add(`(created_at < ? OR (created_at = ? AND id < ?))`, created, created, id)
	return nil
}

// add appends a condition and the args of its placeholders, in order.
func (q *runQuery) add(cond string, args ...any) {
	q.where = append(q.where, cond)
	q.args = append(q.args, args...)
}

// sql returns the query for the stored summaries, asking for one row more
// than the page so that the caller knows whether there is a next one.
func (q *runQuery) sql() string {
	where := ""
	if len(q.where) > 0 {
		where = "WHERE " + strings.Join(q.where, " AND ")
	}
	return fmt.Sprintf(`SELECT summary FROM runs %s ORDER BY created_at DESC, id DESC LIMIT %d`,
		where, q.limit+1)
}

// A cursor is a position in the history, written out: the creation time
// (Unix nanoseconds) and the ID of the last run of the previous page,
// joined by a dot. api/openapi.yaml gives its shape as a pattern, so that a
// value of that shape is a position (perhaps past the end, giving an empty
// page) and any other value a 400: the document says what is valid.
var cursorShape = regexp.MustCompile(`^([0-9]{1,19})\.([0-9A-Za-z]{1,64})$`)

// encodeCursor returns the cursor of the position after a run.
func encodeCursor(created int64, id string) string {
	return strconv.FormatInt(created, 10) + "." + id
}

func decodeCursor(cursor string) (created int64, id string, err error) {
	m := cursorShape.FindStringSubmatch(cursor)
	if m == nil {
		return 0, "", bench.FieldErrorf("cursor", "malformed cursor; use the nextCursor a previous page returned")
	}
	// 19 digits fit in a uint64; a time past int64's is past every run.
	nanos, _ := strconv.ParseUint(m[1], 10, 64)
	return int64(min(nanos, math.MaxInt64)), m[2], nil
}
