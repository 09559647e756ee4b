package server

import (
	"testing"
	"testing/fstest"
)

func TestMemoryLimit(t *testing.T) {
	v2 := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		want  int64
	}{
		{"cgroup v2 limit", fstest.MapFS{cgroupV2MemoryMax: v2("536870912\n")}, 512 << 20},
		// v2 writes "max" for no limit.
		{"cgroup v2 max", fstest.MapFS{cgroupV2MemoryMax: v2("max\n")}, 0},
		{"cgroup v1 limit", fstest.MapFS{cgroupV1MemoryLimit: v2("1073741824\n")}, 1 << 30},
		// An unlimited v1 group reads 2^63-1 rounded down to a page.
		{"cgroup v1 unlimited", fstest.MapFS{cgroupV1MemoryLimit: v2("9223372036854771712\n")}, 0},
		// 2^62 is the first value taken for no limit.
		{"cgroup v1 at 2^62", fstest.MapFS{cgroupV1MemoryLimit: v2("4611686018427387904")}, 0},
		{"cgroup v1 below 2^62", fstest.MapFS{cgroupV1MemoryLimit: v2("4611686018427387903")}, 1<<62 - 1},
		// v2 is the one in force when both are mounted (hybrid hierarchy).
		{"both", fstest.MapFS{cgroupV2MemoryMax: v2("2048"), cgroupV1MemoryLimit: v2("4096")}, 2048},
		{"no cgroup files", fstest.MapFS{}, 0},
		{"garbage", fstest.MapFS{cgroupV2MemoryMax: v2("lots")}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := memoryLimit(tt.files); got != tt.want {
				t.Errorf("memoryLimit = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestInfoReadsTheCgroup checks that /info reports the limit of the file
// system it was given.
func TestInfoReadsTheCgroup(t *testing.T) {
	root := fstest.MapFS{cgroupV2MemoryMax: &fstest.MapFile{Data: []byte("268435456\n")}}
	if got, want := newInfo("go", root, 0, nil).MemoryLimitBytes, int64(256<<20); got != want {
		t.Errorf("memoryLimitBytes = %d, want %d", got, want)
	}
}

// TestCPUModel reads the host's CPU model from /proc/cpuinfo, or "".
func TestCPUModel(t *testing.T) {
	file := func(s string) fstest.MapFS { return fstest.MapFS{cpuInfo: &fstest.MapFile{Data: []byte(s)}} }
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"x86", file("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n"), "AMD EPYC 7B13"},
		{"arm64 says none", file("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"), ""},
		{"no file", fstest.MapFS{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpuModel(tt.files); got != tt.want {
				t.Errorf("cpuModel = %q, want %q", got, tt.want)
			}
		})
	}
}
