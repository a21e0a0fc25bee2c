//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package oracle

import (
	"context"
	"errors"
)

// lockParent: the oracle runs Claude Code in a Linux mount namespace, so
// recording is not possible here; the recorded corpus still replays.
func lockParent(context.Context, bool) (func(), error) {
	return nil, errors.New("the Claude Code oracle records only on Linux")
}
