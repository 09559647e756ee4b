package jrebase_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

func TestReadProgress(t *testing.T) {
	tests := []struct {
		name    string
		stream  string
		log     string // what the log must contain
		wantErr string // what the error must contain; "" for none
	}{
		{"import succeeded", `{"status":"sha256:0123"}` + "\n", "sha256:0123", ""},
		{"empty stream", "", "", ""},
		{"engine error", `{"status":"Importing"}` + "\n" +
			`{"errorDetail":{"message":"no space left on device"},"error":"no space left on device"}` + "\n",
			"Importing", "no space left on device"},
		{"garbage", "<html>502</html>", "", "read engine progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			err := jrebase.ReadProgress(strings.NewReader(tt.stream), &log)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if !strings.Contains(log.String(), tt.log) {
				t.Errorf("log %q lacks %q", log.String(), tt.log)
			}
		})
	}
}
