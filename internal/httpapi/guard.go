package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The rules that make the daemon a local one that only its user drives:
// other web sites cannot reach it through a browser, by DNS rebinding or by
// a cross-site form, and with a token nobody without it can.
//
//  1. Host: every request must name one of the daemon's own hosts in its
//     Host header (Config.AllowedHosts), or it is refused with 403: a page
//     of another site that rebinds its DNS name to 127.0.0.1 still sends
//     its own name.
//  2. Token: when Config.Token is set, every request (GET /healthz included)
//     must carry "Authorization: Bearer <token>", or it is refused with 401
//     and WWW-Authenticate: Bearer. The one exception is the web page's
//     data-free documents and assets (Pages.Public), so that a browser,
//     which cannot add the header to a navigation, can load the page that
//     then asks for the token and sends it with each of its requests.
//  3. Origin: a request that may change state (any method but GET and HEAD)
//     is refused with 403 when it carries an Origin other than the daemon's
//     own (the scheme and the Host it was sent to), or Sec-Fetch-Site other
//     than same-origin or none.
//  4. Content-Type: such a request is refused with 415 when it names any
//     media type but JSON, or has a body without naming one; a bodiless
//     cancel or delete may leave it out. HTML forms can send nothing else
//     than the three form types, so a cross-site form never gets through.
//
// No response carries CORS headers: browsers keep other origins out.

// bearerRealm is the realm of WWW-Authenticate challenges.
const bearerRealm = `Bearer realm="threadbench"`

// guard applies the rules above, in that order, before any routing.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hosts.allows(r.Host) {
			s.writeProblem(w, r, http.StatusForbidden,
				"the Host header "+quoteClipped(r.Host)+" is not one of this daemon's names; add it to allowedHosts to serve it", "Host")
			return
		}
		if !s.publicPage(r) && !s.authorized(w, r) {
			return
		}
		if mutates(r.Method) && !s.sameOrigin(w, r) {
			return
		}
		if mutates(r.Method) && !s.jsonOrNothing(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// publicPage reports whether a request is a GET or HEAD of the web page's
// data-free documents and assets.
func (s *Server) publicPage(r *http.Request) bool {
	return s.cfg.Pages != nil && !mutates(r.Method) && s.cfg.Pages.Public(r)
}

// mutates reports whether a method may change state: anything but GET and HEAD.
func mutates(method string) bool {
	return method != http.MethodGet && method != http.MethodHead
}

// authorized checks the bearer token when the server has one, and answers
// 401 when the request lacks it or carries another.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == nil {
		return true
	}
	given, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", bearerRealm)
		s.writeProblem(w, r, http.StatusUnauthorized, "this daemon requires a token: send Authorization: Bearer <token>", "Authorization")
		return false
	}
	// Hashing first makes the comparison take the same time whatever the
	// lengths; subtle then compares the digests in constant time.
	sum := sha256.Sum256([]byte(given))
	if subtle.ConstantTimeCompare(sum[:], s.token) != 1 {
		w.Header().Set("WWW-Authenticate", bearerRealm+`, error="invalid_token"`)
		s.writeProblem(w, r, http.StatusUnauthorized, "the bearer token is not this daemon's", "Authorization")
		return false
	}
	return true
}

// bearerToken returns the token of an "Authorization: Bearer <token>" header.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// sameOrigin refuses requests a browser sends on behalf of another site.
func (s *Server) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		s.writeProblem(w, r, http.StatusForbidden, "a "+quoteClipped(site)+" request may not change this daemon's state", "Sec-Fetch-Site")
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" || ownOrigin(origin, r.Host) {
		return true
	}
	s.writeProblem(w, r, http.StatusForbidden, "requests from origin "+quoteClipped(origin)+" may not change this daemon's state", "Origin")
	return false
}

// ownOrigin reports whether an Origin header is the daemon's own: http or
// https and the host the request was sent to. "null" (sandboxed frames,
// files) is not.
func ownOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	return strings.EqualFold(u.Host, host)
}

// jsonOrNothing refuses bodies that are not JSON, and any other media type
// named, with 415.
func (s *Server) jsonOrNothing(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	hasBody := r.ContentLength != 0
	switch {
	case ct == "" && !hasBody, ct != "" && isJSON(ct):
		return true
	case ct == "":
		s.writeProblem(w, r, http.StatusUnsupportedMediaType, "a request body must be sent as Content-Type: application/json", "Content-Type")
	default:
		s.writeProblem(w, r, http.StatusUnsupportedMediaType, "Content-Type must be application/json, got "+quoteClipped(ct), "Content-Type")
	}
	return false
}

// hostSet is the Host header values a server answers to. An entry with a
// port matches that host and port; an entry without one matches the host
// on any port (and without a port). Hosts compare without regard to case.
type hostSet []hostPort

type hostPort struct{ host, port string }

// loopbackHosts are the names a server answers to when it is given none: the
// loopback names, on any port.
var loopbackHosts = []string{"127.0.0.1", "localhost", "[::1]"}

func newHostSet(names []string) hostSet {
	if len(names) == 0 {
		names = loopbackHosts
	}
	set := make(hostSet, 0, len(names))
	for _, n := range names {
		set = append(set, splitHost(n))
	}
	return set
}

// splitHost splits "host:port", "[v6]:port", "host" or "[v6]" into a
// lower-case host without brackets and a port, "" when there is none.
func splitHost(s string) hostPort {
	if host, port, err := net.SplitHostPort(s); err == nil {
		return hostPort{strings.ToLower(host), port}
	}
	return hostPort{strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")), ""}
}

func (set hostSet) allows(header string) bool {
	if header == "" {
		return false
	}
	got := splitHost(header)
	for _, want := range set {
		if want.host == got.host && (want.port == "" || want.port == got.port) {
			return true
		}
	}
	return false
}

// ValidHost reports whether s can be an entry of Config.AllowedHosts:
// "host", "host:port", "[v6]" or "[v6]:port", nothing else.
func ValidHost(s string) bool {
	if s == "" || strings.ContainsAny(s, "/?#@ \t\r\n,") {
		return false
	}
	hp := splitHost(s)
	return hp.host != "" && !strings.ContainsAny(hp.host, "[]")
}
