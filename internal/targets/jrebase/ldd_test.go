package jrebase_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

func TestParseLDD(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []string
		missing string // a name the error must mention; "" for no error
	}{
		{
			name: "library resolved by name",
			out:  "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5dcf31a000)\n",
			want: []string{"/lib/x86_64-linux-gnu/libc.so.6"},
		},
		{
			name: "virtual DSO has no file",
			out:  "\tlinux-vdso.so.1 (0x00007ffc0d3e4000)\n",
		},
		{
			name: "dynamic loader by absolute path",
			out:  "\t/lib64/ld-linux-x86-64.so.2 (0x00007f5dcf531000)\n",
			want: []string{"/lib64/ld-linux-x86-64.so.2"},
		},
		{
			name: "old glibc prints the vDSO with an empty target",
			out:  "\tlinux-vdso.so.1 =>  (0x00007ffc0d3e4000)\n",
		},
		{
			name: "statically linked",
			out:  "\tstatically linked\n",
		},
		{
			name: "whole output of bin/java, in order",
			out: "\tlinux-vdso.so.1 (0x00007f5dcf52f000)\n" +
				"\tlibjli.so => /opt/java/openjdk/bin/../lib/libjli.so (0x00007f5dcf505000)\n" +
				"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5dcf31a000)\n" +
				"\t/lib64/ld-linux-x86-64.so.2 (0x00007f5dcf531000)\n",
			want: []string{"/opt/java/openjdk/bin/../lib/libjli.so", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"},
		},
		{
			name:    "not found is an error that names the library",
			out:     "\tlibjvm.so => not found\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f7d5dc1e000)\n",
			want:    []string{"/lib/x86_64-linux-gnu/libc.so.6"},
			missing: "libjvm.so",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jrebase.ParseLDD(tt.out)
			if !slices.Equal(got, tt.want) {
				t.Errorf("paths = %q, want %q", got, tt.want)
			}
			switch {
			case tt.missing == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.missing != "" && err == nil:
				t.Errorf("no error, want one naming %s", tt.missing)
			case tt.missing != "" && !strings.Contains(err.Error(), tt.missing):
				t.Errorf("error %q does not name %s", err, tt.missing)
			}
		})
	}
}
