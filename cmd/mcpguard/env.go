package main

import (
	"os"
	"os/user"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy"
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
	// version is what reports name (buildVersion); about is the line
	// `mcpguard version` and `--version` print (versionLine).
	version, about string
	isTTY          func(any) bool
	// euid is the effective user id (0: a system daemon's defaults).
	euid func() int
	// executable returns the running mcpguard binary (wrap writes it into
	// client configs); nil means os.Executable.
	executable func() (string, error)
	// startFleet starts OPA's plugins for --opa-config; nil in a build that
	// does not link them, which runs mcpguard-opa instead (opahelper.go).
	startFleet fleetpolicy.Starter
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
		about:     versionLine(debug.ReadBuildInfo()),
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

// buildVersion returns the module version (a release tag, or the
// pseudo-version Go stamps on a build from a checkout), or
// "dev+<revision>" for a build with VCS information and no version.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	if rev := buildSetting(info, "vcs.revision"); len(rev) >= 12 {
		return "dev+" + rev[:12]
	}
	return "dev"
}

// versionLine is what `mcpguard version` and `mcpguard --version` print:
// the module version, the VCS revision the binary was built from (and
// whether the tree had changes), the Go release and the platform, and
// whether it links C (a release is CGO_ENABLED=0: one static binary).
func versionLine(info *debug.BuildInfo, ok bool) string {
	version, details := "dev", []string{}
	if ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		if rev := buildSetting(info, "vcs.revision"); rev != "" {
			r := "revision " + rev
			if t := buildSetting(info, "vcs.time"); t != "" {
				r += " " + t
			}
			if buildSetting(info, "vcs.modified") == "true" {
				r += ", modified"
			}
			details = append(details, r)
		}
	}
	platform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if ok && buildSetting(info, "CGO_ENABLED") == "1" {
		platform += ", cgo"
	}
	details = append(details, platform)
	return "mcpguard " + version + " (" + strings.Join(details, "; ") + ")"
}

func buildSetting(info *debug.BuildInfo, key string) string {
	for _, s := range info.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
