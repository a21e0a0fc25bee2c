package packaging_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSystemdUnitsVerify runs systemd-analyze verify on each unit, the
// system unit also with its OPA drop-in, with the binary path pointed at an
// executable that exists; any warning fails. .ci/run installs systemd
// where it is missing, so that CI never skips it.
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("MCPGUARD_REQUIRE_SYSTEMD") != "" {
			t.Fatal("systemd-analyze is not installed (MCPGUARD_REQUIRE_SYSTEMD is set)")
		}
		t.Skip("systemd-analyze is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, bin, dropIn string }{
		{"systemd/mcpguard.service", "/usr/local/bin/mcpguard", ""},
		{"systemd/mcpguard.service", "/usr/local/bin/mcpguard", opaDropIn},
		{"systemd/mcpguard-user.service", "%h/.local/bin/mcpguard", ""},
	} {
		t.Run(tc.file+"+"+filepath.Base(tc.dropIn), func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(data, []byte(tc.bin)) {
				t.Fatalf("%s does not run %s", tc.file, tc.bin)
			}
			dir := t.TempDir()
			unit := filepath.Join(dir, filepath.Base(tc.file))
			if err := os.WriteFile(unit, bytes.ReplaceAll(data, []byte(tc.bin), []byte(exe)), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.dropIn != "" {
				// systemd-analyze reads the drop-ins beside the unit it verifies.
				drop, err := os.ReadFile(tc.dropIn)
				if err != nil {
					t.Fatal(err)
				}
				d := filepath.Join(dir, filepath.Base(tc.file)+".d")
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, filepath.Base(tc.dropIn)), bytes.ReplaceAll(drop, []byte(tc.bin), []byte(exe)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"verify", unit}
			cmd := exec.Command(analyze, args...)
			if strings.Contains(tc.file, "user") {
				rt := filepath.Join(dir, "run")
				if err := os.Mkdir(rt, 0o700); err != nil {
					t.Fatal(err)
				}
				cmd = exec.Command(analyze, append([]string{"--user"}, args...)...)
				cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt)
			}
			out, err := cmd.CombinedOutput()
			if err != nil || len(bytes.TrimSpace(out)) > 0 {
				t.Errorf("systemd-analyze verify %s: %v\n%s", tc.file, err, out)
			}
		})
	}
}

const opaDropIn = "systemd/mcpguard.service.d/opa-bundles.conf"

// unitSettings reads the Key=value lines of a unit file's [Service]
// section, in order.
func unitSettings(t *testing.T, path string) [][2]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, _ := strings.Cut(line, "=")
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// TestOPADropIn: the --opa-config drop-in runs the unit's own command line
// plus --opa-config, opens outbound IPv4 and IPv6, and sets nothing else,
// so that every other protection of the unit stays in force.
func TestOPADropIn(t *testing.T) {
	base := map[string]string{}
	for _, kv := range unitSettings(t, "systemd/mcpguard.service") {
		base[kv[0]] = kv[1]
	}
	drop := unitSettings(t, opaDropIn)
	var execs []string
	families := ""
	for _, kv := range drop {
		switch kv[0] {
		case "ExecStart":
			execs = append(execs, kv[1])
		case "PrivateNetwork":
			if kv[1] != "no" {
				t.Errorf("PrivateNetwork=%s, want no", kv[1])
			}
		case "RestrictAddressFamilies":
			families = kv[1]
		default:
			t.Errorf("the drop-in sets %s=%s: it may change the network and the command line only", kv[0], kv[1])
		}
	}
	// An empty ExecStart= resets the unit's; then the one command line.
	if len(execs) != 2 || execs[0] != "" || execs[1] != base["ExecStart"]+" --opa-config /etc/mcpguard/opa.yaml" {
		t.Errorf("ExecStart lines %q, want a reset and %q", execs, base["ExecStart"]+" --opa-config /etc/mcpguard/opa.yaml")
	}
	// RestrictAddressFamilies= lists are combined: AF_UNIX stays from the unit.
	if families != "AF_INET AF_INET6" || base["RestrictAddressFamilies"] != "AF_UNIX" {
		t.Errorf("address families: unit %q + drop-in %q, want AF_UNIX + AF_INET AF_INET6", base["RestrictAddressFamilies"], families)
	}
	for _, k := range []string{"ProtectSystem", "ProtectHome", "NoNewPrivileges", "CapabilityBoundingSet", "SystemCallFilter", "MemoryDenyWriteExecute"} {
		if base[k] == "" {
			t.Errorf("the unit lost %s", k)
		}
	}
}

// TestUserUnitStepsOnAFreshAccount runs the install commands of the
// user-unit steps in packaging/README.md, as written, for a home that has
// neither ~/.local/bin nor ~/.config/systemd/user.
func TestUserUnitStepsOnAFreshAccount(t *testing.T) {
	if _, err := exec.LookPath("install"); err != nil {
		t.Skip("no install(1)")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	start := strings.Index(section, "## Linux, for one user")
	if start < 0 {
		t.Fatal("README.md has no user-unit section")
	}
	section = section[start:]
	block := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(section)
	if block == nil {
		t.Fatal("the user-unit section has no sh block")
	}
	home, work := t.TempDir(), t.TempDir()
	// What the steps take: a built mcpguard, and the repository's packaging/.
	if err := os.WriteFile(filepath.Join(work, "mcpguard"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mustAbs(t, "."), filepath.Join(work, "packaging")); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, line := range strings.Split(block[1], "\n") {
		if !strings.HasPrefix(line, "install ") {
			continue // systemctl needs a user manager, which a test has not
		}
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = work, append(os.Environ(), "HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		ran++
	}
	for _, want := range []string{".local/bin/mcpguard", ".config/systemd/user/mcpguard-user.service"} {
		if fi, err := os.Stat(filepath.Join(home, want)); err != nil || fi.IsDir() {
			t.Errorf("after the steps, ~/%s: %v", want, err)
		}
	}
	if ran != 2 {
		t.Errorf("ran %d install commands, want 2", ran)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSystemUnitHardening keeps the sandbox the daemon was designed for.
func TestSystemUnitHardening(t *testing.T) {
	data, err := os.ReadFile("systemd/mcpguard.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=read-only", "PrivateTmp=yes",
		"StateDirectory=mcpguard", "RuntimeDirectory=mcpguard", "CapabilityBoundingSet=CAP_DAC_READ_SEARCH",
		"RestrictAddressFamilies=AF_UNIX", "SystemCallFilter=@system-service", "ExecReload=/bin/kill -HUP $MAINPID",
	} {
		if !bytes.Contains(data, []byte("\n"+want+"\n")) {
			t.Errorf("mcpguard.service lacks %s", want)
		}
	}
}

// TestServiceFlagsExist: every flag the service definitions pass is one the
// daemon accepts.
func TestServiceFlagsExist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpguard")
	}
	help, err := exec.Command("go", "run", "../cmd/mcpguard", "daemon", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("mcpguard daemon --help: %v\n%s", err, help)
	}
	// The command lines: ExecStart= lines and the plist's strings.
	cmdline := regexp.MustCompile(`(?m)^ExecStart=.*$|<string>--[a-z-]+</string>`)
	flag := regexp.MustCompile(`--[a-z-]+`)
	var defs []byte
	for _, f := range []string{"systemd/mcpguard.service", "systemd/mcpguard-user.service", opaDropIn, "launchd/com.mcpguard.daemon.plist"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range cmdline.FindAll(data, -1) {
			defs = append(append(defs, line...), '\n')
		}
	}
	if len(flag.FindAll(defs, -1)) < 4 {
		t.Fatalf("found no daemon flags in the service definitions:\n%s", defs)
	}
	for _, f := range flag.FindAll(defs, -1) {
		if !bytes.Contains(help, append(f, ' ')) {
			t.Errorf("the service definitions pass %s, which mcpguard daemon does not accept", f)
		}
	}
}

// TestLaunchdPlist parses the plist and checks what launchd needs.
func TestLaunchdPlist(t *testing.T) {
	data, err := os.ReadFile("launchd/com.mcpguard.daemon.plist")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("plist: %v", err)
	}
	keys := map[string]int{}
	items := doc.Dict.Items
	for i, it := range items {
		if it.XMLName.Local == "key" {
			keys[it.Text] = i
		}
	}
	for _, k := range []string{"Label", "ProgramArguments", "RunAtLoad", "KeepAlive"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("plist lacks %s", k)
		}
	}
	if i, ok := keys["ProgramArguments"]; ok {
		args := items[i+1].Strings
		if len(args) < 2 || filepath.Base(args[0]) != "mcpguard" || args[1] != "daemon" {
			t.Errorf("ProgramArguments %v do not run mcpguard daemon", args)
		}
	}
	if plutil, err := exec.LookPath("plutil"); err == nil {
		if out, err := exec.Command(plutil, "-lint", "launchd/com.mcpguard.daemon.plist").CombinedOutput(); err != nil {
			t.Errorf("plutil -lint: %v\n%s", err, out)
		}
	}
}
