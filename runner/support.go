package runner

// Layer is one protection the OS offers, as `pygate doctor` reports it.
type Layer struct {
	Name      string
	Available bool
	Detail    string
	Required  bool // the sandbox cannot be set up without it
}

// SandboxLayers lists the protections this computer supports.
func SandboxLayers() []Layer { return supportLayers() }

// Ready reports why the sandbox of level cannot be set up here, or nil.
// It checks only what the launcher cannot do without.
func Ready(level Level) error {
	if level == Off {
		return nil
	}
	return ready()
}
