package main

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

func TestPasswdName(t *testing.T) {
	const passwd = `root:x:0:0:root:/root:/bin/bash
+nis:x:1000:1000:::
-banned:x:1000:1000:::
short:x:1000:1000
:x:1000:1000:no name:/home/x:/bin/sh
dev:x:1000:1000:Dev,,,:/home/dev:/usr/bin/zsh
dev2:x:1000:1000:second entry:/home/dev2:/bin/sh
svc:x:10000:10000::/var/svc:/usr/sbin/nologin
crlf:x:1001:1001::/home/crlf:/bin/sh` + "\r\n"
	path := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(path, []byte(passwd), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		uid  int
		want string
	}{
		{0, "root"},
		{1000, "dev"}, // NIS entries, short lines and empty names skipped; the first match wins
		{10000, "svc"},
		{100, ""}, // a prefix of 1000 and 10000 is not a match
		{1001, "crlf"},
		{42, ""},
		{-1, ""},
	} {
		if got := passwdName(path, tc.uid); got != tc.want {
			t.Errorf("passwdName(%d) = %q, want %q", tc.uid, got, tc.want)
		}
	}
	if got := passwdName(filepath.Join(t.TempDir(), "missing"), 0); got != "" {
		t.Errorf("missing file: %q", got)
	}
}

func TestUsernameFallsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(path, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	called := false
	directory := func() (*user.User, error) { called = true; return &user.User{Username: "ldap-user"}, nil }
	if got := username(path, 0, directory); got != "root" || called {
		t.Errorf("in the file: %q (lookup called: %v)", got, called)
	}
	if got := username(path, 5000, directory); got != "ldap-user" {
		t.Errorf("not in the file: %q, want the C library's answer", got)
	}
	t.Setenv("USER", "from-env")
	failing := func() (*user.User, error) { return nil, errors.New("no such user") }
	if got := username(path, 5000, failing); got != "from-env" {
		t.Errorf("lookup failed: %q, want $USER", got)
	}
}
