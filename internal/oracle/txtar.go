package oracle

import (
	"bytes"
	"strings"
)

// A File is one named section of a case archive.
type File struct {
	Name string
	Data []byte
}

// parseArchive splits data into the leading comment and the named sections.
// It keeps every byte: formatArchive(parseArchive(b)) == b for any b whose
// last section, if any, is empty or ends in a newline.
func parseArchive(data []byte) (comment []byte, files []File) {
	comment, name, rest := nextMarker(data)
	for name != "" {
		var body []byte
		var next string
		body, next, rest = nextMarker(rest)
		files = append(files, File{Name: name, Data: body})
		name = next
	}
	return comment, files
}

// nextMarker returns the text before the first marker line in data, the
// marker's name and the text after the marker line. With no marker, name is
// empty and before is all of data.
func nextMarker(data []byte) (before []byte, name string, after []byte) {
	i := 0
	for {
		if n, a, ok := markerAt(data[i:]); ok {
			return data[:i], n, a
		}
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return data, "", nil
		}
		i += j + 1
	}
}

// markerAt reports whether data starts with a marker line "-- NAME --".
func markerAt(data []byte) (name string, after []byte, ok bool) {
	if !bytes.HasPrefix(data, []byte("-- ")) {
		return "", nil, false
	}
	line := data
	after = nil
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		line, after = data[:j], data[j+1:]
	}
	if !bytes.HasSuffix(line, []byte(" --")) || len(line) < len("-- x --") {
		return "", nil, false
	}
	name = strings.TrimSpace(string(line[3 : len(line)-3]))
	if name == "" {
		return "", nil, false
	}
	return name, after, true
}

// formatArchive is the inverse of parseArchive. A non-empty section that
// does not end in a newline gets one, so that the next marker starts a line.
func formatArchive(comment []byte, files []File) []byte {
	var b bytes.Buffer
	b.Write(comment)
	if len(comment) > 0 && comment[len(comment)-1] != '\n' && len(files) > 0 {
		b.WriteByte('\n')
	}
	for _, f := range files {
		b.WriteString("-- " + f.Name + " --\n")
		b.Write(f.Data)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
