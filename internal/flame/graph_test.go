package flame_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/flame"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/flame -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./internal/flame -update rewrites it)\ngot:\n%s", name, got)
	}
}

// render renders g, failing the test on an error.
func render(t *testing.T, g flame.Graph) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := g.Render(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// frames returns the data-frame of every box, and checks that the document
// is well-formed XML.
func frames(t *testing.T, svg []byte) []string {
	t.Helper()
	var names []string
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "g" {
			for _, a := range se.Attr {
				if a.Name.Local == "data-frame" {
					names = append(names, a.Value)
				}
			}
		}
	}
}

func TestGraphGolden(t *testing.T) {
	g := flame.Graph{ID: "flame-go", Title: "CPU samples", Subtitle: "go, stage 2", Stacks: sample(), Width: 600}
	got := render(t, g)
	golden(t, "graph_small.svg", got)
	if again := render(t, g); !bytes.Equal(got, again) {
		t.Error("two renders of the same graph differ")
	}
}

func TestGraphIsSelfContained(t *testing.T) {
	svg := string(render(t, flame.Graph{ID: "x", Title: `<b>"quoted" & more</b>`, Stacks: sample()}))
	for _, banned := range []string{"<script", "href", "<style", "url(", "@import", " id="} {
		if strings.Contains(svg, banned) {
			t.Errorf("the SVG holds %q; it must open offline and share a page with others", banned)
		}
	}
	if !strings.Contains(svg, `aria-label="&lt;b&gt;&#34;quoted&#34; &amp; more&lt;/b&gt;"`) {
		t.Errorf("the title is not escaped in the aria-label:\n%s", svg[:300])
	}
	frames(t, []byte(svg))
}

func TestGraphMergesNarrowFrames(t *testing.T) {
	var b flame.Builder
	b.Add([]string{"main", "big"}, 1000)
	for i := range 50 {
		b.Add([]string{"main", fmt.Sprintf("tiny%02d", i)}, 1) // 1/1050 of 600 px each: too narrow
	}
	got := frames(t, render(t, flame.Graph{ID: "m", Stacks: b.Stacks(), Width: 600, MinWidth: 2}))
	want := []string{"main", "big", "(other frames)"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("boxes = %v, want %v: the 50 narrow frames merged into one", got, want)
	}
}

func TestGraphBoundsLargeProfiles(t *testing.T) {
	var b flame.Builder
	for i := range 20000 {
		b.Add([]string{"main", fmt.Sprintf("handler%d", i%200), fmt.Sprintf("leaf%d", i)}, int64(1+i%7))
	}
	svg := render(t, flame.Graph{ID: "big", Stacks: b.Stacks(), MaxBoxes: 300})
	if n := len(frames(t, svg)); n > 300 {
		t.Errorf("%d boxes, want at most MaxBoxes (300)", n)
	}
	if len(svg) > 300*400 {
		t.Errorf("the SVG is %d bytes for 300 boxes", len(svg))
	}
}

func TestGraphEmpty(t *testing.T) {
	svg := string(render(t, flame.Graph{ID: "none", Title: "CPU samples"}))
	if !strings.Contains(svg, "no samples") || len(frames(t, []byte(svg))) != 0 {
		t.Errorf("an empty graph should say no samples and draw no box:\n%s", svg)
	}
}

func TestGraphLabelsShortenNames(t *testing.T) {
	var b flame.Builder
	b.Add([]string{"org.apache.catalina.core.StandardWrapperValve.invoke", "github.com/threadbench/threadbench/targets/go/server.cpuWork"}, 10)
	svg := string(render(t, flame.Graph{ID: "n", Stacks: b.Stacks(), Width: 200}))
	for _, want := range []string{">StandardWrapperValve.invoke</text>", ">server.cpuWork</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("no label %q in a 200 px graph:\n%s", want, svg)
		}
	}
}
