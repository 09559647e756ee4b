package targets

// Exported for the external tests.
var (
	SSHArgs        = sshArgs
	DialCommand    = dialCommand
	ContextArchive = contextArchive
)
