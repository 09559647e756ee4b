package load

import "testing"

func TestParseSteal(t *testing.T) {
	for _, tt := range []struct {
		line         string
		steal, total int64
	}{
		// user nice system idle iowait irq softirq steal guest guest_nice
		{"cpu  4705 150 1120 16250 520 0 35 212 0 0\n", 212, 4705 + 150 + 1120 + 16250 + 520 + 35 + 212},
		{"cpu 1 2 3 4 5 6 7 8", 8, 36},
		// a kernel before steal was counted, a CPU's own line, garbage
		{"cpu 1 2 3 4 5 6 7", 0, 0},
		{"cpu0 1 2 3 4 5 6 7 8", 0, 0},
		{"cpu 1 2 x 4 5 6 7 8", 0, 0},
		{"", 0, 0},
	} {
		if steal, total := parseSteal(tt.line); steal != tt.steal || total != tt.total {
			t.Errorf("parseSteal(%q) = %d, %d; want %d, %d", tt.line, steal, total, tt.steal, tt.total)
		}
	}
}
