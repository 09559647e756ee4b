package web

import (
	"bytes"
	"errors"
	"github.com/threadbench/threadbench/api"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
)

// Store is the run history the pages read (and never write).
type Store interface {
	bench.RunStore
	bench.SeriesStore
	bench.ArtifactStore
}

// Config is what the pages need. Store and Compare are required; the
// catalogs fill the new run form.
type Config struct {
	Store       Store
	Compare     func(base, head *bench.Run, threshold float64) bench.Comparison
	Targets     []bench.TargetInfo
	Profiles    []bench.Profile
	Experiments []bench.Experiment
	Endpoints   []bench.Endpoint
	// Logger receives the causes of 500s; slog.Default() when nil.
	Logger *slog.Logger
}

// Pages is the web page: an http.Handler for / and /ui/*. It holds no
// goroutines; a live view's stream is the API's.
type Pages struct {
	cfg    Config
	log    *slog.Logger
	assets map[string]asset
	shell  []byte
	tmpl   *template.Template
}

// New parses the templates and prepares the assets.
func New(cfg Config) (*Pages, error) {
	if cfg.Store == nil || cfg.Compare == nil {
		return nil, errors.New("web: Config needs Store and Compare")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	p := &Pages{cfg: cfg, log: cfg.Logger, tmpl: tmpl}
	if p.assets, err = loadAssets(); err != nil {
		return nil, err
	}
	if p.shell, err = p.renderShell(); err != nil {
		return nil, err
	}
	return p, nil
}

// PartPrefix is where the parts live: the HTML of each page's content.
const PartPrefix = "/ui/parts/"

// shellPaths are the pages by path; "/ui/runs/" takes a run ID after it.
var shellPaths = []string{"/", "/ui/live", "/ui/compare", "/ui/new", "/ui/trend"}

const runShellPrefix = "/ui/runs/"

// Public reports whether a request is for a shell or an asset: a GET or
// HEAD of a page's exact path, which answers the same data-free document
// to everyone, or of an embedded asset. The API's guard serves these
// without the token, so that the page can load and ask for it. Anything
// with an escaped path is not public: the path the router sees is then
// not the one checked here.
func (p *Pages) Public(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.URL.RawPath != "" {
		return false
	}
	return isShell(r.URL.Path) || p.assetName(r.URL.Path) != ""
}

// isShell reports whether path is a page's: one of shellPaths or a run's.
func isShell(path string) bool {
	for _, s := range shellPaths {
		if path == s {
			return true
		}
	}
	id, ok := strings.CutPrefix(path, runShellPrefix)
	return ok && validID(id)
}

// validID accepts what could be a run ID: short, and no path or query
// characters, so that a shell's path never reaches another route.
func validID(id string) bool {
	if id == "" || len(id) > maxIDLength || id == "." || id == ".." {
		return false
	}
	return !strings.ContainsAny(id, "/\\?#%")
}

// maxIDLength is longer than any run ID the daemon issues.
const maxIDLength = 64

// ServeHTTP answers shells, assets and parts; anything else under / and
// /ui/ is a 404 page. Only GET and HEAD are mounted.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, PartPrefix):
		p.servePart(w, r, strings.TrimPrefix(path, PartPrefix))
	case isShell(path):
		p.serveShell(w, http.StatusOK)
	case p.assetName(path) != "":
		p.serveAsset(w, r, p.assetName(path))
	default:
		// The shell again, as a 404: its script asks for the part of the
		// same name, which says there is no such page.
		p.serveShell(w, http.StatusNotFound)
	}
}

// csp allows the page what it needs from the daemon itself and nothing
// else: its script, its stylesheet, its icon, its fetches. No inline
// script or style, no plugin, no framing, no other host.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// setSecurityHeaders sets what every answer of the pages carries.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// servePart routes a part by its name ("history", "runs/ID", ...).
func (p *Pages) servePart(w http.ResponseWriter, r *http.Request, name string) {
	body, status, err := p.part(r, name)
	if err != nil {
		p.writeErrorPart(w, r, err)
		return
	}
	writeHTML(w, status, body)
}

// part renders a part and returns it with its status: 200, or 400 for a
// form shown with the fault of its input next to the field.
func (p *Pages) part(r *http.Request, name string) ([]byte, int, error) {
	ctx, q := r.Context(), r.URL.Query()
	id, isRun := strings.CutPrefix(name, "runs/")
	switch {
	case name == "history":
		return p.historyPart(ctx, q)
	case name == "live":
		return p.livePart(ctx)
	case name == "compare":
		return p.comparePart(ctx, q)
	case name == "new":
		return p.newRunPart(ctx, q)
	case name == "trend":
		return p.trendPart(ctx, q)
	case isRun && validID(id):
		return p.runPart(ctx, id)
	}
	return nil, 0, bench.Errorf(bench.ENOTFOUND, "there is no page %s", clipQuote(name))
}

// writeHTML answers an HTML body that must not be cached: it is data.
func writeHTML(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// errorView is what the error part shows.
type errorView struct {
	Status int
	Title  string
	Detail string
	Field  string
}

// writeErrorPart answers an error as a part with the status of its code
// (httpapi's table). Errors without a code are logged and shown as
// "internal error", never their text.
func (p *Pages) writeErrorPart(w http.ResponseWriter, r *http.Request, err error) {
	status := api.StatusForCode(bench.ErrorCode(err))
	view := errorView{Status: status, Title: http.StatusText(status), Detail: bench.ErrorMessage(err)}
	var be *bench.Error
	if errors.As(err, &be) {
		view.Detail, view.Field = be.Message, be.Field
	}
	if status == http.StatusInternalServerError {
		p.log.ErrorContext(r.Context(), "page failed", "path", r.URL.Path, "error", err)
		view.Detail, view.Field = "internal error", ""
	}
	body, rerr := p.render("error", view)
	if rerr != nil {
		p.log.ErrorContext(r.Context(), "rendering the error part", "error", rerr)
		body = []byte("<p>internal error</p>")
	}
	writeHTML(w, status, body)
}

// render executes a named template into memory, so that a failure never
// sends half a page.
func (p *Pages) render(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// clipQuote quotes a value taken from a request for a message, clipped to
// 64 characters.
func clipQuote(s string) string {
	if r := []rune(s); len(r) > maxIDLength {
		s = string(r[:maxIDLength]) + "…"
	}
	return strconv.Quote(s)
}
