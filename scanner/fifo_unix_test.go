//go:build unix && !solaris && !illumos

package scanner_test

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
