package bench

import (
	"fmt"
)

// ContractRequest returns the path of a workload's first request given by
// endpoint rather than by uri, "workload.requests" for a workload with no
// request, and "" when every request is given by uri.
func ContractRequest(w Workload) string {
	for i, r := range w.Requests {
		if r.URI == "" {
			return fmt.Sprintf("workload.requests[%d].endpoint", i)
		}
	}
	for i, st := range w.Iteration {
		if st.Request != nil && st.Request.URI == "" {
			return fmt.Sprintf("workload.iteration[%d].request.endpoint", i)
		}
	}
	if len(w.AllRequests()) == 0 {
		return "workload.requests"
	}
	return ""
}
