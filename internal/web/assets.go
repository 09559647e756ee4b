package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed assets templates
var files embed.FS

// AssetPrefix is where the embedded script, stylesheet and icon are served.
const AssetPrefix = "/ui/assets/"

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// loadAssets reads the embedded assets.
func loadAssets() (map[string]asset, error) {
	out := map[string]asset{}
	err := fs.WalkDir(files, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		base := path.Base(name)
		sum := sha256.Sum256(body)
		out[base] = asset{body: body, contentType: contentTypeOf(base), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: reading assets: %w", err)
	}
	return out, nil
}

func contentTypeOf(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// assetName returns the name of the asset a path asks for, or "".
func (p *Pages) assetName(urlPath string) string {
	name, ok := strings.CutPrefix(urlPath, AssetPrefix)
	if _, known := p.assets[name]; !ok || !known {
		return ""
	}
	return name
}

// serveAsset answers an asset; a browser revalidates it by its ETag on
// every load (no-cache), so a new binary's assets are never stale.
func (p *Pages) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a := p.assets[name]
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}

// shellView is what the shell template needs: the assets' versions, so
// that their URLs change with their content.
type shellView struct {
	Script, Style, Icon string
}

// renderShell renders the one document every page's URL answers.
func (p *Pages) renderShell() ([]byte, error) {
	v := shellView{Script: p.assetURL("app.js"), Style: p.assetURL("app.css"), Icon: p.assetURL("favicon.svg")}
	return p.render("shell", v)
}

// assetURL is an asset's path with its version.
func (p *Pages) assetURL(name string) string {
	return AssetPrefix + name + "?v=" + strings.Trim(p.assets[name].etag, `"`)
}

// serveShell answers the shell: the same document for every page and
// every visitor, holding no data.
func (p *Pages) serveShell(w http.ResponseWriter, status int) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(p.shell)))
	w.WriteHeader(status)
	_, _ = w.Write(p.shell)
}

// parseTemplates parses the pages' templates with their helpers.
func parseTemplates() (*template.Template, error) {
	t, err := template.New("pages").Funcs(funcs).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: parsing templates: %w", err)
	}
	return t, nil
}
