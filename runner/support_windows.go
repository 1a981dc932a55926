package runner

func supportLayers() []Layer {
	return []Layer{
		{Name: "Job Object", Available: true, Required: true, Detail: "kill on close, memory and process limits"},
		{Name: "Low-integrity token", Available: true, Detail: "Python writes only in its workspace and run folder"},
		{Name: "Network isolation", Available: false, Detail: "Windows needs administrator rights to block a program's network; each run's report says so"},
	}
}

func ready() error { return nil }
