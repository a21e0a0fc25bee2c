//go:build !unix

package scanner_test

import "errors"

func mkfifo(string) error { return errors.New("not supported") }
