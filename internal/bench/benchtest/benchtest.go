// Package benchtest holds fixtures of the domain types that the tests of
// several packages share.
package benchtest

import "github.com/threadbench/threadbench/internal/bench"

// OrdersMatrix is a service of one's own along three axes: its thread
// models, two JDKs and two Tomcat pools, eight variants.
func OrdersMatrix() bench.TargetInfo {
	axes := []bench.Axis{
		{Name: bench.VariantOwn, Values: []string{"platform", "virtual"}, Default: "platform"},
		{Name: bench.AxisJDK, Values: []string{"21", "25"}, Default: "21"},
		{Name: "pool", Values: []string{"t200", "t400"}, Default: "t200"},
	}
	info := bench.TargetInfo{Name: "orders", Kind: "java", Variant: bench.VariantOwn, Axes: axes, Own: true}
	for _, m := range axes[0].Values {
		for _, j := range axes[1].Values {
			for _, p := range axes[2].Values {
				info.Variants = append(info.Variants, m+",jdk="+j+",pool="+p)
			}
		}
	}
	info.DefaultVariant = info.Variants[0]
	return info
}
