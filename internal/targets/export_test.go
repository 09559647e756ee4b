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
