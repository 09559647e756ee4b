package units_test

import (
	"testing"

	"github.com/threadbench/threadbench/internal/units"
)

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{units.Num(3.14159), "3.14"}, {units.Num(-3.14159), "-3.14"}, {units.Num(1234.56), "1234.6"},
		{units.Rate(980.4), "980"}, {units.Rate(42.25), "42.2"},
		{units.Ms(268.44), "268.4ms"}, {units.Ms(0.8504), "850µs"},
		{units.CPUs(1), "1 CPU"}, {units.CPUs(1.5), "1.5 CPUs"},
		{units.OrDash(""), "-"}, {units.OrDash("x"), "x"},
		{units.Percent(0.41), "41 %"}, {units.Percent(0.005), "0.5 %"}, {units.Percent(0), "0 %"}, {units.Percent(1), "100 %"},
		{units.Plain(10), "10"}, {units.Plain(2.5), "2.5"},
		{units.OneDecimal(190), "190"}, {units.OneDecimal(38.66), "38.7"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
