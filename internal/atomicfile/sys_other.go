//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, fs.FileInfo) {}

// syncDir does nothing: Windows cannot open a directory for flushing, and
// NTFS journals the rename itself.
func syncDir(string) {}
