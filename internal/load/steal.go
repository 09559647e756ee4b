package load

import (
	"strconv"
	"strings"
)

// parseSteal reads the aggregate "cpu" line of /proc/stat: user, nice,
// system, idle, iowait, irq, softirq, steal (the eighth field, the time a
// hypervisor ran something else while this machine's CPUs were ready);
// guest time is already inside user. It returns steal and the sum of the
// eight, in clock ticks; 0, 0 for a line without steal.
func parseSteal(line string) (steal, total int64) {
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, 0
	}
	for i, f := range fields[1:9] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0
		}
		total += n
		if i == 7 {
			steal = n
		}
	}
	return steal, total
}
