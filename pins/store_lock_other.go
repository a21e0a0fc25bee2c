//go:build !unix && !windows

package pins

import (
	"errors"
	"os"
)

// lockFile fails where there is no file locking (js, wasip1, plan9): a pin
// store without a lock could lose a concurrent writer's pins.
func lockFile(*os.File, bool) error {
	return errors.New("file locking is not supported on this system")
}

func unlockFile(*os.File) {}

func syncDir(string) {}
