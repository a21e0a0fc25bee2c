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

// TestSystemdUnitsVerify runs systemd-analyze verify on each unit, with
// the binary path pointed at an executable that exists; any warning fails.
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, bin string }{
		{"systemd/mcpguard.service", "/usr/local/bin/mcpguard"},
		{"systemd/mcpguard-user.service", "%h/.local/bin/mcpguard"},
	} {
		t.Run(tc.file, func(t *testing.T) {
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
	for _, f := range []string{"systemd/mcpguard.service", "systemd/mcpguard-user.service", "launchd/com.mcpguard.daemon.plist"} {
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
