package web_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/builtin"
	"github.com/threadbench/threadbench/internal/store"
	"github.com/threadbench/threadbench/internal/web"
)

// A service on two axes is offered in each of its variants, named with
// its axes; its requests are paths of its own, which the form takes.
func TestNewRunFormOffersVariantsOnAxes(t *testing.T) {
	own := bench.TargetInfo{Name: "orders", Kind: "java", Variant: bench.VariantOwn, Own: true,
		Variants: []string{"platform,pool=t8", "platform,pool=t200", "virtual,pool=t8", "virtual,pool=t200"}, DefaultVariant: "platform,pool=t8"}
	pages, err := web.New(web.Config{Store: store.NewDB(filepath.Join(t.TempDir(), "h.db")),
		Compare: func(base, head *bench.Run, _ float64) bench.Comparison { return bench.Comparison{} },
		Targets: []bench.TargetInfo{own}, Profiles: builtin.Profiles(), Experiments: builtin.Experiments(), Endpoints: bench.Endpoints(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	pages.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/parts/new", nil))
	body := rec.Body.String()
	for _, v := range own.Variants {
		if want := `value="orders@` + v + `" checked>`; !strings.Contains(body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if !strings.Contains(body, `data-field="workload.requests[0].uri" data-row-key`) {
		t.Errorf("the form takes no path of one's own")
	}
}
