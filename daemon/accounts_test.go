//go:build linux

package daemon_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// What the tests below need of the machine: root, to create real accounts
// (useradd, removed after), to run processes as them (setpriv) and to give
// the daemon a mount namespace of its own (a small tmpfs, a user database
// the machine's is not). Each skips where that is not at hand.

// account is a real second user, created for one test.
type account struct {
	name     string
	uid, gid int
	home     string
}

func needRoot(t *testing.T, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: creates users, mounts, runs processes as another user")
	}
	for _, tool := range append([]string{"setpriv"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
}

// newAccount creates a user whose home is home (created, owned by them),
// removed when the test ends.
func newAccount(t *testing.T, home string) account {
	t.Helper()
	needRoot(t, "useradd", "userdel")
	var b [3]byte
	_, _ = rand.Read(b[:])
	name := "mgt" + hex.EncodeToString(b[:])
	out, err := exec.Command("useradd", "-M", "-d", home, "-s", "/bin/bash", name).CombinedOutput()
	if err != nil {
		t.Skipf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("userdel", "-f", name).Run() })
	a := account{name: name, home: home}
	for _, f := range []struct {
		flag string
		dst  *int
	}{{"-u", &a.uid}, {"-g", &a.gid}} {
		out, err := exec.Command("id", f.flag, name).Output()
		if err != nil {
			t.Fatal(err)
		}
		if *f.dst, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, a.uid, a.gid); err != nil {
		t.Fatal(err)
	}
	return a
}

// write writes a file in the account's home, owned by them, as editors
// save (a temporary file renamed over it).
func (a account) write(t *testing.T, rel, data string) string {
	t.Helper()
	p, err := a.save(rel, data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// save is write without the test: for goroutines.
func (a account) save(rel, data string) (string, error) {
	p := filepath.Join(a.home, filepath.FromSlash(rel))
	for d := filepath.Dir(p); d != a.home && len(d) > len(a.home); d = filepath.Dir(d) {
		defer os.Chown(d, a.uid, a.gid)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(p+".tmp", []byte(data), 0o644); err != nil {
		return "", err
	}
	if err := os.Chown(p+".tmp", a.uid, a.gid); err != nil {
		return "", err
	}
	return p, os.Rename(p+".tmp", p)
}

// as runs argv as the account.
func (a account) as(argv ...string) *exec.Cmd {
	return exec.Command("setpriv", append([]string{"--reuid=" + strconv.Itoa(a.uid), "--regid=" + strconv.Itoa(a.gid), "--clear-groups"}, argv...)...)
}

// needNamespace skips unless mount namespaces work here.
func needNamespace(t *testing.T) {
	t.Helper()
	needRoot(t, "unshare", "mount")
	if out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs tmpfs /mnt").CombinedOutput(); err != nil {
		t.Skipf("no mount namespace here: %v %s", err, out)
	}
}

// passwdWith writes a password file of root (its home an empty directory
// of the test's) and the accounts, for namespace.passwd: a daemon's
// --all-users sees these users and no other of the machine's.
func passwdWith(t *testing.T, dir string, accts ...account) string {
	t.Helper()
	rootHome := filepath.Join(dir, "roothome")
	if err := os.MkdirAll(rootHome, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := []string{"root:x:0:0:root:" + rootHome + ":/bin/bash"}
	for _, a := range accts {
		lines = append(lines, fmt.Sprintf("%s:x:%d:%d::%s:/bin/bash", a.name, a.uid, a.gid, a.home))
	}
	p := filepath.Join(dir, "passwd")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var helperOnce sync.Once
var helperPath string

// helperBinary is this test binary, where other users may run it (the
// helper modes of runHelper).
func helperBinary(t *testing.T) string {
	t.Helper()
	helperOnce.Do(func() {
		self, err := os.Executable()
		if err != nil {
			return
		}
		data, err := os.ReadFile(self)
		if err != nil {
			return
		}
		p := filepath.Join(filepath.Dir(binary), "daemon.test")
		if os.WriteFile(p, data, 0o755) == nil {
			helperPath = p
		}
	})
	if helperPath == "" {
		t.Skip("cannot copy the test binary for another user")
	}
	return helperPath
}

// helperCmd runs a helper mode of this test binary as the account.
func helperCmd(t *testing.T, a account, mode string, env ...string) *exec.Cmd {
	cmd := a.as(helperBinary(t), "-test.run=^$")
	cmd.Env = append([]string{"MCPGUARD_TEST_HELPER=" + mode, "PATH=" + os.Getenv("PATH")}, env...)
	return cmd
}
