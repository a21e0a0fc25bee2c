package main

import (
	"os"
	"os/user"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/policy"
)

// environment is what commands learn from the process, injected for tests so
// that goldens do not depend on the machine.
type environment struct {
	lookupEnv func(string) (string, bool)
	getwd     func() (string, error)
	home      func() (string, error)
	hostname  func() (string, error)
	username  func() string
	now       func() time.Time
	goos      string
	version   string
	isTTY     func(any) bool
	// euid is the effective user id (0: a system daemon's defaults).
	euid func() int
	// executable returns the running mcpguard binary (wrap writes it into
	// client configs); nil means os.Executable.
	executable func() (string, error)
	// startFleet starts OPA's plugins for --opa-config; nil in a build that
	// does not link them, which runs mcpguard-opa instead (opahelper.go).
	startFleet fleetpolicy.Starter
	// preload holds the shipped policies, loading since the process
	// started, for a command that will evaluate them (runContext); nil
	// otherwise.
	preload *policy.Preload
	// interrupts turn SIGINT and SIGTERM into the cancellation of the
	// command's context once armed (interrupts.go); nil in tests, where
	// arming does nothing.
	interrupts *interrupts
}

func defaultEnv() environment {
	return environment{
		lookupEnv: os.LookupEnv,
		getwd:     os.Getwd,
		home:      os.UserHomeDir,
		hostname:  os.Hostname,
		username:  func() string { return username("/etc/passwd", os.Getuid(), user.Current) },
		now:       time.Now,
		goos:      runtime.GOOS,
		version:   buildVersion(),
		isTTY: func(w any) bool {
			f, ok := w.(*os.File)
			if !ok {
				return false
			}
			fi, err := f.Stat()
			return err == nil && fi.Mode()&os.ModeCharDevice != 0
		},
		executable: os.Executable,
		euid:       os.Geteuid,
		startFleet: fleetStarter(),
	}
}

// buildVersion returns the module version, or "dev+<revision>" for a build
// from a checkout.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "dev+" + s.Value[:12]
		}
	}
	return "dev"
}
