package reports

import (
	"bytes"
	"io"
	"unsafe"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// decodeReport decodes data into r as jsonv2.Unmarshal does, reading the
// servers and findings (nearly all of a report) by hand from the token
// stream, or reports false as soon as the document holds anything it does
// not read exactly as Unmarshal would: a null where saved reports have a
// string, a number that is not a small integer, an escaped member name,
// any error. The caller then decodes it with Unmarshal, which also says
// what is wrong. The servers' and findings' members are found by a switch
// on their names, not by reflection; everything else of a report goes
// through Unmarshal's own code (UnmarshalDecode), and the syntax, the
// UTF-8 and duplicate names are checked by the same tokenizer. The tests fill every field by reflection and compare with
// Unmarshal, so a field added to Server or Finding and not read here
// fails them.
func (d *fastDecoder) decodeReport(data []byte, r *Report) bool {
	if d.dec == nil {
		d.dec = jsontext.NewDecoder(bytes.NewBuffer(data))
	} else {
		d.dec.Reset(bytes.NewBuffer(data))
	}
	// Each report has blocks of its own: they live as long as it does.
	d.bytes, d.strs = nil, nil
	d.textSize, d.textNext, d.listSize, d.listNext = 0, d.textLast, 0, d.listLast
	defer func() { d.textLast, d.listLast = max(d.textSize, 1<<10), max(d.listSize, 64) }()
	ok := d.object(func(name []byte) bool {
		switch string(name) {
		case "schema":
			return d.str(&r.Schema)
		case "generated_at":
			return d.str(&r.GeneratedAt)
		case "servers":
			return d.servers(&r.Servers)
		case "findings":
			return d.findings(&r.Findings)
		case "tool":
			return d.generic(&r.Tool)
		case "host":
			return d.generic(&r.Host)
		case "policy":
			return d.generic(&r.Policy)
		case "errors":
			return d.generic(&r.Errors)
		case "sources":
			return d.generic(&r.Sources)
		case "summary":
			return d.generic(&r.Summary)
		}
		return d.dec.SkipValue() == nil
	})
	if !ok {
		return false
	}
	_, err := d.dec.ReadToken()
	return err == io.EOF // nothing after the report
}

// fastDecoder reads reports, one after the other, reusing its tokenizer.
// The strings and lists of strings it decodes are copied into blocks it
// allocates rather than allocated one by one (a report's servers and
// findings hold thousands of short strings, and a block shares the
// report's lifetime anyway). The first block is as large as all the last
// report needed (reports of a fleet are much alike), the others an eighth
// of that.
//
// The invariant text's unsafe.String relies on: what is written to a
// block is never written again. A block is only appended to, up to its
// capacity; a string that does not fit goes to a new block, and a report
// never shares a block with the next (decodeReport drops them), so a
// string once returned is immutable, as Go strings must be
// (TestFastDecodeStringsStayPut fails when a block is reused). Each list
// is cut to its length, so that appending to one cannot reach the next.
type fastDecoder struct {
	dec     *jsontext.Decoder
	bytes   []byte
	strs    []string
	scratch []string
	// The report's text and list sizes so far, the last report's, and the
	// size of the next block.
	textSize, textLast, textNext int
	listSize, listLast, listNext int
}

// text returns b as a string in the current block.
func (d *fastDecoder) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	d.textSize += len(b)
	if cap(d.bytes)-len(d.bytes) < len(b) {
		d.bytes = make([]byte, 0, max(d.textNext, len(b), 1<<10))
		d.textNext = max(d.textLast/8, 1<<10)
	}
	at := len(d.bytes)
	d.bytes = append(d.bytes, b...)
	return unsafe.String(&d.bytes[at], len(b))
}

// list returns l as a list of exactly its length in the current block.
func (d *fastDecoder) list(l []string) []string {
	if len(l) == 0 {
		return []string{}
	}
	d.listSize += len(l)
	if cap(d.strs)-len(d.strs) < len(l) {
		d.strs = make([]string, 0, max(d.listNext, len(l), 64))
		d.listNext = max(d.listLast/8, 64)
	}
	at := len(d.strs)
	d.strs = append(d.strs, l...)
	return d.strs[at:len(d.strs):len(d.strs)]
}

// generic decodes the next value into v with Unmarshal's own code.
func (d *fastDecoder) generic(v any) bool { return jsonv2.UnmarshalDecode(d.dec, v) == nil }

// object reads an object: member is called with each name (unquoted,
// valid until the next read) and the decoder at the member's value. The
// members' switch converts the name in place, without a string each.
func (d *fastDecoder) object(member func(name []byte) bool) bool {
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for d.dec.PeekKind() == '"' {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return false
		}
		name := raw[1 : len(raw)-1]
		if bytes.IndexByte(name, '\\') >= 0 || !member(name) {
			return false
		}
	}
	tok, err := d.dec.ReadToken()
	return err == nil && tok.Kind() == '}'
}

// null reads a null if one is next.
func (d *fastDecoder) null() bool {
	if d.dec.PeekKind() != 'n' {
		return false
	}
	_, err := d.dec.ReadValue()
	return err == nil
}

func (d *fastDecoder) str(dst *string) bool {
	raw, err := d.dec.ReadValue()
	if err != nil || raw.Kind() != '"' {
		return false
	}
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 {
		*dst = d.text(s)
		return true
	}
	s, err := jsontext.AppendUnquote(nil, raw)
	*dst = d.text(s)
	return err == nil
}

// integer reads a number that is an integer of at most 18 digits.
func (d *fastDecoder) integer(dst *int) bool {
	raw, err := d.dec.ReadValue()
	if err != nil || raw.Kind() != '0' {
		return false
	}
	digits, neg := raw, raw[0] == '-'
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return false
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false // a fraction or an exponent
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	*dst = n
	return true
}

func (d *fastDecoder) boolean(dst *bool) bool {
	raw, err := d.dec.ReadValue()
	if err != nil || raw.Kind() != 't' && raw.Kind() != 'f' {
		return false
	}
	*dst = raw.Kind() == 't'
	return true
}

// strings reads a list of strings: null is nil, [] an empty list.
func (d *fastDecoder) strings(dst *[]string) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	l := d.scratch[:0]
	for d.dec.PeekKind() == '"' {
		l = append(l, "")
		if !d.str(&l[len(l)-1]) {
			return false
		}
	}
	d.scratch = l
	tok, err := d.dec.ReadToken()
	*dst = d.list(l)
	return err == nil && tok.Kind() == ']'
}

// list reads a list of objects into the space *dst has (the reader sizes
// it), each with elem: null is nil, [] an empty list with no space, as
// Unmarshal leaves them.
func list[T any](d *fastDecoder, dst *[]T, elem func(*T) bool) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if tok, err := d.dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	l := (*dst)[:0]
	for d.dec.PeekKind() == '{' {
		var zero T
		l = append(l, zero)
		if !elem(&l[len(l)-1]) {
			return false
		}
	}
	if len(l) == 0 {
		l = []T{}
	}
	tok, err := d.dec.ReadToken()
	*dst = l
	return err == nil && tok.Kind() == ']'
}

func (d *fastDecoder) servers(dst *[]Server) bool { return list(d, dst, d.server) }

func (d *fastDecoder) findings(dst *[]Finding) bool { return list(d, dst, d.finding) }

func (d *fastDecoder) server(s *Server) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return d.str(&s.ID)
		case "name":
			return d.str(&s.Name)
		case "client":
			return d.str(&s.Client)
		case "scope":
			return d.str(&s.Scope)
		case "project":
			return d.str(&s.Project)
		case "transport":
			return d.str(&s.Transport)
		case "command":
			return d.str(&s.Command)
		case "args":
			return d.strings(&s.Args)
		case "url":
			return d.str(&s.URL)
		case "env_keys":
			return d.strings(&s.EnvKeys)
		case "header_keys":
			return d.strings(&s.HeaderKeys)
		case "source":
			return d.location(&s.Source)
		case "status":
			return d.str((*string)(&s.Status))
		case "decision":
			return d.object(func(name []byte) bool {
				switch string(name) {
				case "allowed":
					return d.boolean(&s.Decision.Allowed)
				case "reasons":
					return d.strings(&s.Decision.Reasons)
				}
				return d.dec.SkipValue() == nil
			})
		case "finding_ids":
			return d.strings(&s.FindingIDs)
		case "details":
			return d.generic(&s.Details)
		case "user":
			return d.str(&s.User)
		case "introspection":
			return d.generic(&s.Introspection)
		}
		return d.dec.SkipValue() == nil
	})
}

func (d *fastDecoder) finding(f *Finding) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "id":
			return d.str(&f.ID)
		case "rule":
			return d.str(&f.Rule)
		case "severity":
			return d.str((*string)(&f.Severity))
		case "category":
			return d.str(&f.Category)
		case "message":
			return d.str(&f.Message)
		case "server_id":
			return d.str(&f.ServerID)
		case "location":
			return d.location(&f.Location)
		case "evidence":
			return d.generic(&f.Evidence)
		case "suppressed":
			if d.null() {
				f.Suppressed = nil
				return true
			}
			f.Suppressed = new(Suppression)
			s := f.Suppressed
			return d.object(func(name []byte) bool {
				switch string(name) {
				case "kind":
					return d.str(&s.Kind)
				case "justification":
					return d.str(&s.Justification)
				case "path":
					return d.str(&s.Path)
				case "line":
					return d.integer(&s.Line)
				case "column":
					return d.integer(&s.Column)
				}
				return d.dec.SkipValue() == nil
			})
		}
		return d.dec.SkipValue() == nil
	})
}

func (d *fastDecoder) location(l *Location) bool {
	return d.object(func(name []byte) bool {
		switch string(name) {
		case "path":
			return d.str(&l.Path)
		case "pointer":
			return d.str(&l.Pointer)
		case "line":
			return d.integer(&l.Line)
		case "column":
			return d.integer(&l.Column)
		}
		return d.dec.SkipValue() == nil
	})
}
