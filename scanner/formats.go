package scanner

// extraUserLocations adds the clients whose files are not JSON (Codex TOML,
// Continue YAML) and Continue's legacy config.json, at their per-user places
// (the same under a Linux, macOS or Windows home).
func extraUserLocations() []location {
	return []location{
		{rel: ".codex/config.toml", client: ClientCodex, handler: relocated(codexUserConfig, "CODEX_HOME", "config.toml"), env: "CODEX_HOME"},
		// Codex reads managed_config.toml from $CODEX_HOME on Windows.
		{rel: ".codex/managed_config.toml", client: ClientCodex, handler: relocated(codexLayer("managed_config"), "CODEX_HOME", "managed_config.toml"), env: "CODEX_HOME"},
		{rel: ".continue/config.yaml", client: ClientContinue, handler: continueYAML("config")},
		{rel: ".continue/config.json", client: ClientContinue, handler: continueLegacyJSON},
		// Continue also loads block folders under ~/.continue [unverified].
		{rel: ".continue/mcpServers/*.yaml", client: ClientContinue, handler: continueYAML("mcp-block")},
		{rel: ".continue/mcpServers/*.yml", client: ClientContinue, handler: continueYAML("mcp-block")},
		{rel: ".continue/mcpServers/*.json", client: ClientContinue, handler: jsonServers(specContinueJSON, true, "mcpServers")},
	}
}

// extraProjectLocations adds the project files of Codex and Continue.
func extraProjectLocations() []location {
	return []location{
		{rel: ".codex/config.toml", client: ClientCodex, handler: codexProjectConfig},
		{rel: ".continue/mcpServers/*.yaml", client: ClientContinue, handler: continueYAML("mcp-block")},
		{rel: ".continue/mcpServers/*.yml", client: ClientContinue, handler: continueYAML("mcp-block")},
	}
}

// systemLocations lists machine-wide files for an OS, relative to the root
// directory; the handlers follow the environment variables that move them
// (GEMINI_CLI_SYSTEM_SETTINGS_PATH, GEMINI_CLI_SYSTEM_DEFAULTS_PATH,
// %ProgramData%).
func systemLocations(goos string) []location {
	var locs []location
	switch goos {
	case "windows":
		locs = append(locs,
			location{rel: "ProgramData/gemini-cli/settings.json", client: ClientGemini, handler: geminiSystemFile("settings"), env: "GEMINI_CLI_SYSTEM_SETTINGS_PATH"},
			location{rel: "ProgramData/gemini-cli/system-defaults.json", client: ClientGemini, handler: geminiSystemFile("system-defaults"), env: "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"},
			location{rel: "ProgramData/OpenAI/Codex/requirements.toml", client: ClientCodex, handler: relocated(codexRequirementsFile, "ProgramData", "OpenAI", "Codex", "requirements.toml"), env: "ProgramData"},
		)
		return locs
	case "darwin":
		locs = append(locs,
			location{rel: "Library/Application Support/GeminiCli/settings.json", client: ClientGemini, handler: geminiSystemFile("settings"), env: "GEMINI_CLI_SYSTEM_SETTINGS_PATH"},
			location{rel: "Library/Application Support/GeminiCli/system-defaults.json", client: ClientGemini, handler: geminiSystemFile("system-defaults"), env: "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"},
			location{rel: "Library/Application Support/opencode/opencode.json", client: ClientOpenCode, handler: opencodeConfig},
			location{rel: "Library/Application Support/opencode/opencode.jsonc", client: ClientOpenCode, handler: opencodeConfig},
		)
	default:
		locs = append(locs,
			location{rel: "etc/gemini-cli/settings.json", client: ClientGemini, handler: geminiSystemFile("settings"), env: "GEMINI_CLI_SYSTEM_SETTINGS_PATH"},
			location{rel: "etc/gemini-cli/system-defaults.json", client: ClientGemini, handler: geminiSystemFile("system-defaults"), env: "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"},
		)
	}
	// Codex on every Unix.
	return append(locs,
		location{rel: "etc/codex/config.toml", client: ClientCodex, handler: codexLayer("system")},
		location{rel: "etc/codex/managed_config.toml", client: ClientCodex, handler: codexLayer("managed_config")},
		location{rel: "etc/codex/requirements.toml", client: ClientCodex, handler: codexRequirementsFile},
	)
}
