// Package web is the daemon's web page: the history, a run's report or
// live view, a comparison and a form for a new run, in the browser, served
// by the daemon itself beside its API (internal/httpapi mounts it).
//
// # How it is built
//
// Go html/template renders every page's content on the server from the
// domain types, reusing internal/report's HTML (the cross-target report
// and its internal/chart SVG, and the comparison); one hand-written
// script, assets/app.js, fetches that content, follows the live stream
// and sends the run form to the JSON API. Everything is embedded in the
// binary: no CDN, no build step, no Node, no request to another host.
// A library such as htmx would save the script's forty lines of
// navigation but not its live view, its token or its form, which are most
// of it: it would not pay for its weight.
//
// # Shells and parts
//
// A page's URL (/, /ui/live, /ui/runs/{id}, /ui/compare, /ui/new) answers
// the same small document, its shell, which holds no data; the script then
// fetches the page's part (/ui/parts/...), the HTML of its content, and
// sets it into the shell. The split is what lets the page work when the
// daemon has a token: a browser cannot add an Authorization header to a
// navigation, but the script adds it to its fetches. So shells and assets
// are served without the token (Public), while parts, like the API, need
// it; the script asks for the token once and keeps it in sessionStorage.
//
// Pages live at / and under /ui/, where the API has no route, so the two
// routers cannot collide and the API keeps every path it has.
//
// # Safety
//
// Every response carries a Content-Security-Policy that allows scripts,
// styles, images and connections from the daemon itself only, no inline
// script or style, no framing. The page changes state only through the
// JSON API with fetch (POST /runs, POST /runs/{id}/cancel), so the API's
// guard (Host, Origin, JSON content type, token) covers it; the page has
// no form that posts anywhere, and no route that takes anything but GET.
package web
