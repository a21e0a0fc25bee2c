// Package packaging holds no code: it ships the service definitions of
// mcpguard daemon (systemd system and user units, a launchd plist) and the
// tests that check them (docs/daemon.md).
package packaging
