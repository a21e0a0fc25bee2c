package cfgfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// MaxSize is the largest configuration file mcpguard reads. ~/.claude.json
// grows with history, so the limit is generous; anything beyond it is hostile.
const MaxSize = 64 << 20

// Read returns the contents of path. exists is false, with a nil error, when the
// path does not exist (ENOENT or ENOTDIR on a parent); every other failure is a
// FileError naming the path.
func Read(path string) (data []byte, exists bool, ferr *reports.FileError) {
	return read(path, -1)
}

// ReadOwned is Read for a file of another user's home, read with more rights
// than that user has (root scanning every home): the file opened, whatever
// symbolic links or hard links led to it, must be owned by uid or readable
// by everyone. Anything else is refused as an error naming path (the link),
// and nothing of the target is read: a user must not obtain, through her
// own configuration, a file she cannot read. Where files have no Unix
// owner it is Read.
func ReadOwned(path string, uid int) (data []byte, exists bool, ferr *reports.FileError) {
	return read(path, uid)
}

func read(path string, uid int) (data []byte, exists bool, ferr *reports.FileError) {
	// Open first, then describe what was opened (fstat): a check of the
	// path followed by an open could be raced by a swap, e.g. for a FIFO,
	// which would block the open forever. openFile opens without blocking.
	f, err := openFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, false, nil
		}
		if errors.Is(err, syscall.EISDIR) {
			return nil, true, &reports.FileError{Path: path, Message: "is a directory, expected a file"}
		}
		return nil, true, &reports.FileError{Path: path, Message: describe(err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, true, &reports.FileError{Path: path, Message: describe(err)}
	}
	if fi.IsDir() {
		return nil, true, &reports.FileError{Path: path, Message: "is a directory, expected a file"}
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or device would block or never end.
		return nil, true, &reports.FileError{Path: path, Message: fmt.Sprintf("not a regular file (%s)", fi.Mode().Type())}
	}
	if uid >= 0 {
		if why := foreignFile(fi, uid); why != "" {
			return nil, true, &reports.FileError{Path: path, Message: why}
		}
	}
	if fi.Size() > MaxSize {
		return nil, true, &reports.FileError{Path: path, Message: fmt.Sprintf("file is %d bytes, over the %d MiB limit", fi.Size(), MaxSize>>20)}
	}
	if err := blocking(f); err != nil {
		return nil, true, &reports.FileError{Path: path, Message: describe(err)}
	}
	// The file may grow between Stat and Read: never read past the limit.
	data, err = readAll(io.LimitReader(f, MaxSize+1), int(fi.Size()))
	if err != nil {
		return nil, true, &reports.FileError{Path: path, Message: describe(err)}
	}
	if len(data) > MaxSize {
		return nil, true, &reports.FileError{Path: path, Message: fmt.Sprintf("file is over the %d MiB limit", MaxSize>>20)}
	}
	return data, true, nil
}

// readAll is io.ReadAll into a buffer of the size Stat gave, plus the
// byte the read that finds the end needs: io.ReadAll starts at 512 bytes
// and grows by copying, a dozen copies of a ~/.claude.json of a few
// megabytes (real ones reach tens).
func readAll(r io.Reader, size int) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // it grew since Stat: let append size the room
		}
	}
}

// describe turns an OS error into a short message without repeating the path.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "too many levels of symbolic links (symlink loop)"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// Limits of a configuration document (docs/security.md): far above the
// largest real files (a ~/.claude.json of tens of megabytes holds well
// under a million values and a few thousand projects), and reached by a
// hostile file early enough that it is refused at the cost of a fraction
// of its parse.
const (
	MaxValues   = 4_000_000
	MaxElements = 100_000
)

// ParseJSON parses data as JSON (or JSONC when jsoncMode) and converts syntax
// errors and warnings into report errors. The value is nil when parsing failed.
func ParseJSON(path string, data []byte, jsoncMode bool) (*jsonc.Value, []reports.FileError) {
	v, warns, err := jsonc.Parse(data, jsonc.Options{JSONC: jsoncMode, MaxValues: MaxValues, MaxElements: MaxElements})
	var errs []reports.FileError
	for _, w := range warns {
		errs = append(errs, reports.FileError{Path: path, Line: w.Pos.Line, Column: w.Pos.Col, Message: w.Msg})
	}
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) {
			errs = append(errs, reports.FileError{Path: path, Line: se.Pos.Line, Column: se.Pos.Col, Message: "invalid JSON: " + se.Msg})
		} else {
			errs = append(errs, reports.FileError{Path: path, Message: err.Error()})
		}
		return nil, errs
	}
	return v, errs
}

// Loc returns the report location of a JSON value.
func Loc(path, pointer string, p jsonc.Pos) reports.Location {
	return reports.Location{Path: path, Pointer: pointer, Line: p.Line, Column: p.Col}
}
