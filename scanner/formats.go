package scanner

// extraUserLocations adds the clients whose files are not JSON (Codex TOML,
// Continue YAML) and Continue's legacy config.json, at their per-user places
// (the same under a Linux, macOS or Windows home).
func extraUserLocations() []location {
	return []location{
		{".codex/config.toml", ClientCodex, relocated(codexUserConfig, "CODEX_HOME", "config.toml")},
		// Codex reads managed_config.toml from $CODEX_HOME on Windows.
		{".codex/managed_config.toml", ClientCodex, relocated(codexLayer("managed_config"), "CODEX_HOME", "managed_config.toml")},
		{".continue/config.yaml", ClientContinue, continueYAML("config")},
		{".continue/config.json", ClientContinue, continueLegacyJSON},
		// Continue also loads block folders under ~/.continue [unverified].
		{".continue/mcpServers/*.yaml", ClientContinue, continueYAML("mcp-block")},
		{".continue/mcpServers/*.yml", ClientContinue, continueYAML("mcp-block")},
		{".continue/mcpServers/*.json", ClientContinue, jsonServers(specContinueJSON, true, "mcpServers")},
	}
}

// extraProjectLocations adds the project files of Codex and Continue.
func extraProjectLocations() []location {
	return []location{
		{".codex/config.toml", ClientCodex, codexProjectConfig},
		{".continue/mcpServers/*.yaml", ClientContinue, continueYAML("mcp-block")},
		{".continue/mcpServers/*.yml", ClientContinue, continueYAML("mcp-block")},
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
			location{"ProgramData/gemini-cli/settings.json", ClientGemini, geminiSystemFile("settings")},
			location{"ProgramData/gemini-cli/system-defaults.json", ClientGemini, geminiSystemFile("system-defaults")},
			location{"ProgramData/OpenAI/Codex/requirements.toml", ClientCodex,
				relocated(codexRequirementsFile, "ProgramData", "OpenAI", "Codex", "requirements.toml")},
		)
		return locs
	case "darwin":
		locs = append(locs,
			location{"Library/Application Support/GeminiCli/settings.json", ClientGemini, geminiSystemFile("settings")},
			location{"Library/Application Support/GeminiCli/system-defaults.json", ClientGemini, geminiSystemFile("system-defaults")},
			location{"Library/Application Support/opencode/opencode.json", ClientOpenCode, opencodeConfig},
			location{"Library/Application Support/opencode/opencode.jsonc", ClientOpenCode, opencodeConfig},
		)
	default:
		locs = append(locs,
			location{"etc/gemini-cli/settings.json", ClientGemini, geminiSystemFile("settings")},
			location{"etc/gemini-cli/system-defaults.json", ClientGemini, geminiSystemFile("system-defaults")},
		)
	}
	// Codex on every Unix.
	return append(locs,
		location{"etc/codex/config.toml", ClientCodex, codexLayer("system")},
		location{"etc/codex/managed_config.toml", ClientCodex, codexLayer("managed_config")},
		location{"etc/codex/requirements.toml", ClientCodex, codexRequirementsFile},
	)
}
