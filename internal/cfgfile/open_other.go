//go:build !unix

package cfgfile

import (
	"io/fs"
	"os"
)

// openFile opens path for reading.
func openFile(path string) (*os.File, error) { return os.Open(path) }

// blocking does nothing where files are opened blocking.
func blocking(*os.File) error { return nil }

// foreignFile does nothing where files have no Unix owner.
func foreignFile(fs.FileInfo, int) string { return "" }

// ownerOf reports no owner where files have none.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
