package main

import (
	"bytes"
	"os"
	"os/user"
	"strconv"
)

// username is the name of the user with id uid, for a report's host: the
// first entry of the password file at passwd with that id, else the C
// library's lookup (current: user.Current, which also knows directory
// users, LDAP or SSSD), else $USER.
//
// The file comes first because the C library's lookup (NSS: nscd's socket
// tried, nsswitch.conf parsed, then the same file) costs many times what
// reading the file does, and a pre-commit scan is bound by its CPU.
// os/user reads the file itself only
// in binaries built with the osusergo tag, which would lose the directory
// users.
func username(passwd string, uid int, current func() (*user.User, error)) string {
	if name := passwdName(passwd, uid); name != "" {
		return name
	}
	if u, err := current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// passwdName returns the name of the first entry in the password file at
// path whose user id is uid, as os/user's pure-Go lookup reads it: seven
// colon-separated fields, NIS compatibility entries (+name, -name)
// skipped; "" when there is none or the file cannot be read.
func passwdName(path string, uid int) string {
	if uid < 0 { // Windows
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	id := []byte(strconv.Itoa(uid))
	for line := range bytes.Lines(b) {
		f := bytes.SplitN(bytes.TrimRight(line, "\r\n"), []byte(":"), 7)
		if len(f) < 7 || len(f[0]) == 0 || f[0][0] == '+' || f[0][0] == '-' || !bytes.Equal(f[2], id) {
			continue
		}
		return string(f[0])
	}
	return ""
}
