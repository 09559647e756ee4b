package database

// SetPorts makes rt pick its servers' ports with pick: a test gives it a
// port it holds, as another process would take one under a server.
func SetPorts(rt *Runtime, pick func() (int, error)) { rt.ports = pick }

// FreeLocalPort is freeLocalPort on the servers' address.
func FreeLocalPort() (int, error) { return freeLocalPort(localAddress) }
