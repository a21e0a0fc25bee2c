package scanner

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/reports"
)

// Limits on a .mcpb (or .dxt) bundle named on the command line
// (docs/security.md). The bundle is never unpacked: only its central
// directory and manifest.json are read, from memory.
const (
	// MaxBundleBytes bounds the bundle file (cfgfile.MaxSize, the largest
	// file mcpguard reads).
	MaxBundleBytes = cfgfile.MaxSize
	// MaxBundleEntries bounds the bundle's entries.
	MaxBundleEntries = 20_000
	// MaxManifestBytes bounds manifest.json once decompressed.
	MaxManifestBytes = 4 << 20
)

// Signed bundles carry a PKCS#7 block after the zip, between these markers
// (mcpb sign). mcpguard notes the block; it does not verify it.
var (
	sigHeader = []byte("MCPB_SIG_V1")
	sigFooter = []byte("MCPB_SIG_END")
)

// isBundle reports whether a path names an extension bundle.
func isBundle(p string) bool {
	l := strings.ToLower(p)
	return strings.HasSuffix(l, ".mcpb") || strings.HasSuffix(l, ".dxt")
}

// scanBundle reports the server a bundle's manifest declares, as Claude
// Desktop would run it once installed with its defaults (${__dirname}
// stays as written: the bundle is not unpacked). A hostile or broken
// archive is an error and reports nothing.
func (sc *scan) scanBundle(p string) {
	data, exists, ferr := sc.fs.ReadFile(p)
	src := reports.Source{Path: p, Client: ClientClaudeDesktop, Kind: "extension-bundle", Scope: ScopeExtension}
	if !exists {
		sc.fileError(reports.FileError{Path: p, Message: "no such file"})
		return
	}
	if ferr != nil {
		sc.fileError(*ferr)
		src.Error = ferr.Message
		sc.source(src)
		return
	}
	manifest, signed, err := bundleManifest(data)
	if err != nil {
		msg := "extension bundle refused: " + err.Error()
		sc.fileError(reports.FileError{Path: p, Message: msg})
		src.Error = msg
		sc.source(src)
		return
	}
	sc.source(src)
	mpath := p + "!/manifest.json"
	root := sc.parseManifest(mpath, manifest)
	if root == nil {
		return
	}
	id := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	if n := root.Get("name"); n.IsString() && n.Str != "" {
		id = n.Str
	}
	platform := map[string]string{"darwin": "darwin", "windows": "win32"}[sc.opts.GOOS]
	if platform == "" {
		platform = "linux"
	}
	s := sc.extensionServer(&manifestDoc{path: mpath, data: manifest, root: root}, id, "", platform, nil)
	// The PKCS#7 block is not verified (against the archive or any
	// trusted certificate): its presence says nothing about who made the
	// bundle, so it is reported as present only, and a policy requiring
	// signed extensions blocks the bundle as it would an unsigned one.
	s.detail("bundle", map[string]any{"path": p, "signature_block": signed, "signature_verified": false, "installed": false})
	if s.Status == "" {
		s.Status = reports.StatusActive
		s.Decision = sc.judge(s)
	}
	// The organisation's extension policy as it would apply once installed
	// (no install record: not signed as far as mcpguard knows).
	sc.extensionPolicy(s, nil)
	sc.keep(s)
}

// bundleManifest returns the bytes of a bundle's manifest.json, checking
// the whole central directory first: a bundle with an entry that would
// land outside the extension's folder when unpacked (an absolute path,
// "..", a drive letter, a backslash), a name Windows reads as another
// (a colon: an NTFS stream; a reserved device name; a trailing dot or
// space), a symlink or a device or other special file (by Go's reading of
// the mode or by the Unix type bits, whatever the creator), a name that is not UTF-8 or holds a NUL, two entries of
// one name, more than MaxBundleEntries entries, or a manifest.json over
// MaxManifestBytes is refused. Reading stops at the limit whatever the
// header claims (a zip bomb yields an error, not memory).
func bundleManifest(data []byte) (manifest []byte, signed bool, err error) {
	if len(data) > MaxBundleBytes {
		return nil, false, fmt.Errorf("%d bytes, over the %d MiB limit", len(data), MaxBundleBytes>>20)
	}
	if i := bytes.LastIndex(data, sigFooter); i >= 0 && i+len(sigFooter) == len(bytes.TrimRight(data, "\x00")) {
		if h := bytes.LastIndex(data[:i], sigHeader); h >= 0 {
			data, signed = data[:h], true
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, signed, fmt.Errorf("not a zip archive: %v", err)
	}
	if len(zr.File) > MaxBundleEntries {
		return nil, signed, fmt.Errorf("%d entries, over the limit of %d", len(zr.File), MaxBundleEntries)
	}
	seen := make(map[string]bool, len(zr.File))
	var man *zip.File
	for _, f := range zr.File {
		if why := unsafeEntry(f); why != "" {
			return nil, signed, fmt.Errorf("entry %q: %s", printable(f.Name), why)
		}
		key := strings.ToLower(strings.TrimSuffix(path.Clean(f.Name), "/"))
		if seen[key] {
			return nil, signed, fmt.Errorf("entry %q appears twice (names compared without case, as on macOS and Windows)", printable(f.Name))
		}
		seen[key] = true
		if f.Name == "manifest.json" {
			man = f
		}
	}
	if man == nil {
		return nil, signed, errors.New("no manifest.json at the archive's root")
	}
	if man.UncompressedSize64 > MaxManifestBytes {
		return nil, signed, fmt.Errorf("manifest.json is %d bytes, over the %d MiB limit", man.UncompressedSize64, MaxManifestBytes>>20)
	}
	rc, err := man.Open()
	if err != nil {
		return nil, signed, fmt.Errorf("manifest.json: %v", err)
	}
	defer rc.Close()
	manifest, err = io.ReadAll(io.LimitReader(rc, MaxManifestBytes+1))
	if err != nil {
		return nil, signed, fmt.Errorf("manifest.json: %v", err)
	}
	if len(manifest) > MaxManifestBytes {
		return nil, signed, fmt.Errorf("manifest.json decompresses past the %d MiB limit", MaxManifestBytes>>20)
	}
	return manifest, signed, nil
}

// unsafeEntry says why a bundle entry could not be unpacked safely, or "".
func unsafeEntry(f *zip.File) string {
	name := f.Name
	switch {
	case name == "":
		return "empty name"
	case !utf8.ValidString(name) || strings.ContainsRune(name, 0):
		return "the name is not valid UTF-8 text"
	case strings.Contains(name, `\`):
		return "a backslash in the name (a path separator on Windows)"
	case strings.HasPrefix(name, "/"):
		return "an absolute path"
	case len(name) >= 2 && name[1] == ':':
		return "a drive letter"
	case strings.Contains(name, ":"):
		// On NTFS "manifest.json::$DATA" is manifest.json itself and
		// "a:b" a stream of a: names that alias others when unpacked.
		return "a colon in the name (a drive or an NTFS stream on Windows)"
	}
	parts := strings.Split(name, "/")
	for i, part := range parts {
		if part == ".." {
			return "a path that leaves the extension's folder (..)"
		}
		if part == "" && i == len(parts)-1 {
			continue // a directory's trailing slash
		}
		if why := windowsSpecial(part); why != "" {
			return why
		}
	}
	// The Unix file type sits in the high 16 bits of the external
	// attributes. Go's reader reads it only for a Unix creator, extractors
	// such as yauzl/extract-zip whatever the creator: judge it whenever it
	// is set.
	if unix := (f.ExternalAttrs >> 16) & 0o170000; unix != 0 && unix != 0o100000 && unix != 0o040000 {
		if unix == 0o120000 {
			return "a symbolic link (Unix mode bits in the external attributes)"
		}
		return fmt.Sprintf("not a regular file or directory (Unix file type %#o in the external attributes)", unix)
	}
	mode := f.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode.Type()&^fs.ModeDir != 0:
		return "not a regular file or directory (" + mode.Type().String() + ")"
	}
	return ""
}

// windowsSpecial says why a name component would not be unpacked as
// written on Windows, or "": a reserved device name (CON, PRN, AUX, NUL,
// COM0-9, LPT0-9, with or without an extension, also with the superscript
// digits Windows accepts), or a trailing dot or space, which Windows drops
// (so "a." and "a" are one file).
func windowsSpecial(part string) string {
	if strings.HasSuffix(part, ".") && part != "." || strings.HasSuffix(part, " ") {
		return "a name ending in a dot or a space (Windows drops it, so it names another file)"
	}
	base := strings.ToUpper(part)
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return "a reserved device name on Windows (" + base + ")"
	}
	if len(base) >= 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		if d := base[3:]; len(d) == 1 && d[0] >= '0' && d[0] <= '9' || d == "¹" || d == "²" || d == "³" {
			return "a reserved device name on Windows (" + base + ")"
		}
	}
	return ""
}

// printable quotes an entry name for a message: control characters
// escaped, cut at 120 bytes.
func printable(s string) string {
	q := fmt.Sprintf("%q", s)
	q = q[1 : len(q)-1]
	if len(q) > 120 {
		q = q[:120] + "…"
	}
	return q
}
