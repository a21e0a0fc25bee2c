//go:build !unix || solaris || illumos

package scanner_test

import "errors"

func mkfifo(string) error { return errors.New("not supported") }
