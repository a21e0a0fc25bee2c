package scanner

// extraUserLocations and extraProjectLocations add the clients whose files are
// not JSON (Codex TOML, Continue YAML).
func extraUserLocations() []location    { return nil }
func extraProjectLocations() []location { return nil }

// systemLocations lists machine-wide files for an OS.
func systemLocations(goos string) []location { return nil }
