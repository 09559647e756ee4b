package chart_test

import (
	"math"
	"testing"

	"github.com/threadbench/threadbench/internal/chart"
)

func TestFormatValue(t *testing.T) {
	tests := []struct {
		value          float64
		label, precise string
	}{
		{0, "0", "0"},
		{34.256, "34.3", "34.26"},
		{1234.6, "1235", "1235"}, // never fewer integer digits than the number has
		{0.5, "0.5", "0.5"},      // no trailing zeros
		{0.01234, "0.0123", "0.01234"},
		{0.0001234, "0.000123", "0.0001234"},
		{11840, "11.8k", "11.84k"},
		{25020, "25k", "25.02k"},
		{-12, "-12", "-12"},
		{-0.00001, "-1e-05", "-1e-05"},
		{3.5e6, "3.5M", "3.5M"},
		{1.2e18, "1.2e+18", "1.2e+18"},
		{-0.0000000001, "-1e-10", "-1e-10"},
	}
	for _, tt := range tests {
		if got := chart.FormatValue(tt.value); got != tt.label {
			t.Errorf("FormatValue(%g) = %q, want %q", tt.value, got, tt.label)
		}
		if got := chart.FormatPrecise(tt.value); got != tt.precise {
			t.Errorf("FormatPrecise(%g) = %q, want %q", tt.value, got, tt.precise)
		}
	}
}

func TestPx(t *testing.T) {
	tests := []struct {
		value float64
		want  string
	}{
		{12.345, "12.3"},
		{12.36, "12.4"},
		{12, "12"},      // no ".0"
		{-0.04, "0"},    // no "-0"
		{-3.25, "-3.3"}, // half away from zero
		{0.1 + 0.2, "0.3"},
		{math.Round(719.99), "720"},
	}
	for _, tt := range tests {
		if got := chart.Px(tt.value); got != tt.want {
			t.Errorf("Px(%v) = %q, want %q", tt.value, got, tt.want)
		}
	}
}
