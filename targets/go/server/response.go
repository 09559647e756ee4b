package server

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// jsonContentType is shared by every response; assigning it to the header
// map directly saves Header().Set's allocation. net/http never modifies it.
var jsonContentType = []string{"application/json"}

// scratch is the per-request working memory of a work response, pooled so
// that the hot path does not allocate.
type scratch struct {
	stack [64]byte // the first line of runtime.Stack: "goroutine N [running]:"
	out   []byte   // the response body
}

var scratchPool = sync.Pool{New: func() any { return &scratch{out: make([]byte, 0, 256)} }}

// fields are what an endpoint adds to the work response.
type fields interface {
	// appendFields appends the fields to b, each after a comma.
	appendFields(b []byte) []byte
}

// cpuResult is what /api/cpu adds to the work response.
type cpuResult struct {
	work   int
	result [32]byte
}

// appendFields appends the rounds done and the checksum.
func (c *cpuResult) appendFields(b []byte) []byte {
	b = append(b, `,"work":`...)
	b = strconv.AppendInt(b, int64(c.work), 10)
	b = append(b, `,"result":"`...)
	b = hex.AppendEncode(b, c.result[:])
	return append(b, '"')
}

// writeWork writes the contract's work response, encoding the JSON by hand:
// the fields are fixed and the only free-form string, the target name, is
// encoded once in targetJSON. extra, when not nil, adds the endpoint's own.
func writeWork(w http.ResponseWriter, r *http.Request, targetJSON []byte, endpoint string, durationMs int, extra fields) {
	sc := scratchPool.Get().(*scratch)
	b := append(sc.out[:0], `{"target":`...)
	b = append(b, targetJSON...)
	b = append(b, `,"endpoint":"`...)
	b = append(b, endpoint...)
	b = append(b, `","durationMs":`...)
	b = strconv.AppendInt(b, int64(durationMs), 10)
	b = append(b, `,"thread":"`...)
	b = appendThread(b, r.Context(), sc.stack[:])
	b = append(b, '"')
	if extra != nil {
		b = extra.appendFields(b)
	}
	b = append(b, '}')
	writeJSON(w, http.StatusOK, b)
	sc.out = b
	scratchPool.Put(sc)
}

// errorBody is the contract's error response.
type errorBody struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// writeError writes the contract's error response and returns its status.
func writeError(w http.ResponseWriter, status int, message string) int {
	body, err := json.Marshal(errorBody{Status: status, Error: message})
	if err != nil {
		// Marshalling a struct of an int and a string cannot fail.
		panic(err)
	}
	writeJSON(w, status, body)
	return status
}

// writeJSON writes a JSON response. The body is written in one call, so
// net/http sets Content-Length itself.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client gone away is no error of ours
}
