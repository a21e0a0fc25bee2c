package wrap

import (
	"bytes"
	"errors"
	"io"
	"io/fs"

	"github.com/mcpguard/mcpguard/internal/atomicfile"
	"github.com/mcpguard/mcpguard/internal/cfgfile"
)

// ErrChanged reports a file that changed on disk between the moment mcpguard
// read it and the moment it would have replaced it (a running client rewrote
// it). Nothing is written then.
var ErrChanged = errors.New("the file changed while mcpguard was rewriting it (a running client may have saved it); nothing written, run the command again")

// readFile reads a configuration file for rewriting.
func readFile(path string) ([]byte, error) {
	data, exists, ferr := cfgfile.Read(path)
	switch {
	case ferr != nil:
		return nil, errors.New(ferr.Message)
	case !exists:
		return nil, fs.ErrNotExist
	}
	return data, nil
}

// replaceFile writes data over path atomically with path's permissions
// (and owner, where the OS allows). Just before the rename the file is read
// again; if it no longer holds orig, nothing is written and the error is
// ErrChanged.
func replaceFile(path string, orig, data []byte, fi fs.FileInfo) error {
	return atomicfile.Write(path, atomicfile.Options{
		Perm:  fi.Mode().Perm(),
		Owner: fi,
		BeforeRename: func() error {
			if cur, err := readFile(path); err != nil || !bytes.Equal(cur, orig) {
				return ErrChanged
			}
			return nil
		},
	}, func(w io.Writer) error { _, err := w.Write(data); return err })
}
