package targets

// Exported for the external tests.
var (
	SSHArgs        = sshArgs
	DialCommand    = dialCommand
	ContextArchive = contextArchive
)

// RefusedRecording exposes refusedRecording to the tests.
var RefusedRecording = refusedRecording

// Settings exposes settings to the tests.
var Settings = settings

// SetChoose makes r pick its targets' ports with choose: a test gives it a
// port it holds, as another process would take one under a target.
func SetChoose(r *Runtime, choose func(port int) (int, error)) { r.choose = choose }

// ChoosePort is r's own pick of a port.
func ChoosePort(r *Runtime, port int) (int, error) { return r.choosePort(port) }
