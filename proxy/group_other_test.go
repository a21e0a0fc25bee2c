//go:build !unix

package proxy

import "errors"

func forkSleeper(bool) (int, error) { return 0, errors.New("no process groups") }
