package bench_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/bench/benchtest"
)

func TestParseVariant(t *testing.T) {
	info := benchtest.OrdersMatrix()
	for _, tt := range []struct {
		variant string
		want    map[string]string
		err     string // "" when valid
	}{
		{"", map[string]string{}, ""},
		{"virtual", map[string]string{"variant": "virtual"}, ""},
		// the first axis bare or by name, any order
		{"virtual,jdk=21", map[string]string{"variant": "virtual", "jdk": "21"}, ""},
		{"jdk=21,variant=virtual", map[string]string{"variant": "virtual", "jdk": "21"}, ""},
		{"pool=t400,virtual", map[string]string{"variant": "virtual", "pool": "t400"}, ""},
		{"virtual,jdk=17", nil, `targets[0]: target orders has no jdk "17" (jdk: 21, 25)`},
		{"turbo", nil, `targets[0]: target orders has no variant "turbo" (variant: platform, virtual)`},
		{"virtual,gc=z", nil, `targets[0]: target orders has no axis "gc" (axes: variant, jdk, pool)`},
		{"virtual,21", nil, `targets[0]: target orders: "virtual" and "21" are both its variant; name the other axes (jdk=21)`},
		{"jdk=21,jdk=25", nil, `targets[0]: target orders: its jdk is given twice`},
	} {
		got, err := info.ParseVariant(tt.variant, "targets[0]")
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("%q: error %v, want %s", tt.variant, err, tt.err)
		case tt.err == "" && (err != nil || !maps.Equal(got, tt.want)):
			t.Errorf("%q = %v, %v; want %v", tt.variant, got, err, tt.want)
		}
	}
}

func TestVariantNameAndMatching(t *testing.T) {
	info := benchtest.OrdersMatrix()
	values := map[string]string{"jdk": "25", "variant": "virtual", "pool": "t200"}
	if got, want := info.VariantName(values), "virtual,jdk=25,pool=t200"; got != want {
		t.Errorf("VariantName = %q, want %q", got, want)
	}
	if got, want := info.Matching(map[string]string{"jdk": "21", "pool": "t400"}), []string{"platform,jdk=21,pool=t400", "virtual,jdk=21,pool=t400"}; !slices.Equal(got, want) {
		t.Errorf("Matching = %v, want %v", got, want)
	}
	if got := info.Matching(nil); len(got) != 8 {
		t.Errorf("Matching(nothing) = %v, want all 8", got)
	}
	infos := []bench.TargetInfo{info}
	if got, want := bench.CanonicalRef(infos, "orders@jdk=25", 0), "orders@platform,jdk=25,pool=t200"; got != want {
		t.Errorf("CanonicalRef = %q, want %q (defaults filled)", got, want)
	}
	if got, want := bench.CanonicalRef(infos, "orders@virtual", 25), "orders@virtual,jdk=25,pool=t200"; got != want {
		t.Errorf("CanonicalRef with the run's JDK = %q, want %q", got, want)
	}
}
