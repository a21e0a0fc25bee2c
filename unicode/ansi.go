package unicode

import (
	"fmt"
	"strconv"
	"strings"
)

// ansiSeq is one parsed ECMA-48 escape or control sequence.
type ansiSeq struct {
	end    int    // index after the last code point of the sequence
	intent string // what a terminal does with it, e.g. "SGR 8 conceal"
}

// ansiParser parses ECMA-48 (ISO 6429) sequences over code points. It
// remembers where a search for a string terminator failed, so a document
// full of unterminated OSC introducers stays linear.
type ansiParser struct {
	noBELorST int // no BEL, ST or ESC at or after this index (0 = unknown)
	noST      int // no ST or ESC at or after this index (0 = unknown)
}

const (
	esc = 0x1B
	bel = 0x07
)

// parse parses the sequence introduced at cps[i] (ESC or a C1 control). It
// returns false for a lone C1 control that introduces nothing and for an
// ESC followed by nothing usable; the caller reports those as controls.
func (p *ansiParser) parse(cps []cp, i int) (ansiSeq, bool) {
	r := cps[i].r
	at := func(j int) rune {
		if j < len(cps) {
			return cps[j].r
		}
		return -1
	}
	if r == esc {
		r1 := at(i + 1)
		switch {
		case r1 == '[':
			return p.csi(cps, i+2, "ESC ["), true
		case r1 == ']':
			return p.osc(cps, i, i+2), true
		case r1 == 'P', r1 == 'X', r1 == '^', r1 == '_':
			return p.str(cps, i, i+2, r1), true
		case r1 >= 0x20 && r1 <= 0x2F: // nF: intermediates, then a final byte
			j := i + 1
			for at(j) >= 0x20 && at(j) <= 0x2F {
				j++
			}
			if f := at(j); f >= 0x30 && f <= 0x7E {
				return ansiSeq{j + 1, "nF escape " + string(cpsRunes(cps, i+1, j+1)) + " (character set or mode)"}, true
			}
			return ansiSeq{j, "incomplete nF escape"}, true
		case r1 >= 0x30 && r1 <= 0x7E: // Fp, Fe, Fs
			return ansiSeq{i + 2, escIntent(r1)}, true
		}
		return ansiSeq{}, false
	}
	switch r {
	case 0x9B:
		return p.csi(cps, i+1, "CSI"), true
	case 0x9D:
		return p.osc(cps, i, i+1), true
	case 0x90:
		return p.str(cps, i, i+1, 'P'), true
	case 0x98:
		return p.str(cps, i, i+1, 'X'), true
	case 0x9E:
		return p.str(cps, i, i+1, '^'), true
	case 0x9F:
		return p.str(cps, i, i+1, '_'), true
	}
	return ansiSeq{}, false
}

func cpsRunes(cps []cp, start, end int) []rune {
	rs := make([]rune, 0, end-start)
	for j := start; j < end && j < len(cps); j++ {
		rs = append(rs, cps[j].r)
	}
	return rs
}

// csi parses a control sequence after its introducer: parameter bytes
// 0x30-0x3F (digits, ';', ':' and the private markers <=>?), intermediate
// bytes 0x20-0x2F, one final byte 0x40-0x7E. Anything else aborts it.
func (p *ansiParser) csi(cps []cp, j int, intro string) ansiSeq {
	ps := j
	for j < len(cps) && cps[j].r >= 0x30 && cps[j].r <= 0x3F {
		j++
	}
	params := string(cpsRunes(cps, ps, j))
	is := j
	for j < len(cps) && cps[j].r >= 0x20 && cps[j].r <= 0x2F {
		j++
	}
	inter := string(cpsRunes(cps, is, j))
	if j >= len(cps) || cps[j].r < 0x40 || cps[j].r > 0x7E {
		return ansiSeq{j, "incomplete control sequence " + intro + params}
	}
	return ansiSeq{j + 1, csiIntent(params, inter, byte(cps[j].r))}
}

// osc parses an operating system command: text up to BEL or ST (ESC \ or
// 0x9C). Another ESC aborts it. When there is no terminator only the
// introducer is removed: a terminal would swallow the rest, so showing it
// is the safe choice.
func (p *ansiParser) osc(cps []cp, i, j int) ansiSeq {
	start := j
	if p.noBELorST == 0 || start < p.noBELorST {
		for ; j < len(cps); j++ {
			r := cps[j].r
			switch {
			case r == bel || r == 0x9C:
				return ansiSeq{j + 1, oscIntent(string(cpsRunes(cps, start, j)))}
			case r == esc:
				if j+1 < len(cps) && cps[j+1].r == '\\' {
					return ansiSeq{j + 2, oscIntent(string(cpsRunes(cps, start, j)))}
				}
				return ansiSeq{j, oscIntent(string(cpsRunes(cps, start, j))) + " (aborted)"}
			}
		}
		p.noBELorST = start
	}
	return ansiSeq{start, "unterminated OSC: a terminal would hide the rest of the text"}
}

// str parses a DCS, SOS, PM or APC string, terminated by ST.
func (p *ansiParser) str(cps []cp, i, j int, kind rune) ansiSeq {
	name := map[rune]string{'P': "DCS device control string", 'X': "SOS string", '^': "PM privacy message", '_': "APC application program command"}[kind]
	start := j
	if p.noST == 0 || start < p.noST {
		for ; j < len(cps); j++ {
			r := cps[j].r
			if r == 0x9C {
				return ansiSeq{j + 1, name + " (hidden from display)"}
			}
			if r == esc {
				if j+1 < len(cps) && cps[j+1].r == '\\' {
					return ansiSeq{j + 2, name + " (hidden from display)"}
				}
				return ansiSeq{j, name + " (aborted)"}
			}
		}
		p.noST = start
	}
	return ansiSeq{start, "unterminated " + name + ": a terminal would hide the rest of the text"}
}

// escIntent names the two-character escape sequences ESC Fp/Fe/Fs.
func escIntent(f rune) string {
	name := map[rune]string{
		'7': "save cursor", '8': "restore cursor", '=': "keypad application mode",
		'>': "keypad numeric mode", 'c': "RIS full terminal reset", 'D': "IND index",
		'E': "NEL next line", 'H': "HTS set tab stop", 'M': "RI reverse index (cursor up)",
		'N': "SS2", 'O': "SS3", 'V': "SPA", 'W': "EPA", 'Z': "DECID identify terminal",
		'\\': "ST string terminator", 'n': "LS2", 'o': "LS3",
	}[f]
	if name == "" {
		name = "escape"
	}
	return fmt.Sprintf("ESC %c %s", f, name)
}

// csiIntent describes a control sequence: "SGR 8 conceal", "CSI 2J clear
// screen", "CSI 6n cursor position report (the terminal answers as input)".
func csiIntent(params, inter string, final byte) string {
	seq := params + inter + string(final)
	private := strings.HasPrefix(params, "?")
	switch final {
	case 'm':
		if inter == "" && !strings.ContainsAny(params, "<=>?") {
			return sgrIntent(params)
		}
	case 'J':
		switch params {
		case "2":
			return "CSI 2J clear screen"
		case "3":
			return "CSI 3J clear scrollback"
		}
		return "CSI " + seq + " erase display"
	case 'K':
		return "CSI " + seq + " erase line"
	case 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'f', 'd', 'a', 'e', '`':
		return "CSI " + seq + " move cursor"
	case 's':
		return "CSI " + seq + " save cursor"
	case 'u':
		return "CSI " + seq + " restore cursor"
	case 'h', 'l':
		on := final == 'h'
		mode := map[string]string{
			"?25": "cursor visibility", "?1049": "alternate screen", "?47": "alternate screen",
			"?1047": "alternate screen", "?2004": "bracketed paste", "?1000": "mouse reporting",
			"?7": "line wrap",
		}[params]
		if mode == "" {
			mode = "mode"
		}
		if private || mode != "mode" {
			if on {
				return "CSI " + seq + " set " + mode
			}
			return "CSI " + seq + " reset " + mode
		}
		return "CSI " + seq + " set/reset mode"
	case 'S', 'T':
		return "CSI " + seq + " scroll"
	case 'L', 'M', 'P', '@', 'X':
		return "CSI " + seq + " insert/delete text"
	case 'n', 'c':
		return "CSI " + seq + " device report (the terminal answers as input)"
	case 't':
		return "CSI " + seq + " window operation"
	case 'r':
		return "CSI " + seq + " set scrolling region"
	case 'q':
		return "CSI " + seq + " cursor style or LED"
	}
	return "CSI " + seq
}

// sgrIntent describes Select Graphic Rendition parameters. Concealment and
// foreground equal to background hide text from a human reader.
func sgrIntent(params string) string {
	if params == "" {
		params = "0"
	}
	var words []string
	fg, bg := -1, -1
	fields := strings.Split(params, ";")
	for k := 0; k < len(fields); k++ {
		f := fields[k]
		main, _, _ := strings.Cut(f, ":")
		v, err := strconv.Atoi(main)
		if err != nil {
			continue
		}
		switch {
		case v == 0:
			words = append(words, "reset")
		case v == 1:
			words = append(words, "bold")
		case v == 2:
			words = append(words, "faint")
		case v == 3:
			words = append(words, "italic")
		case v == 4:
			words = append(words, "underline")
		case v == 5 || v == 6:
			words = append(words, "blink")
		case v == 7:
			words = append(words, "reverse video")
		case v == 8:
			words = append(words, "conceal")
		case v == 9:
			words = append(words, "strikethrough")
		case v == 28:
			words = append(words, "reveal")
		case v >= 30 && v <= 37, v >= 90 && v <= 97:
			fg = v % 10
			words = append(words, "foreground color")
		case v >= 40 && v <= 47, v >= 100 && v <= 107:
			bg = v % 10
			words = append(words, "background color")
		case v == 38 || v == 48:
			words = append(words, "extended color")
			if !strings.Contains(f, ":") && k+1 < len(fields) {
				// 38;5;n or 38;2;r;g;b: skip the color arguments.
				if fields[k+1] == "5" {
					k += 2
				} else if fields[k+1] == "2" {
					k += 4
				}
			}
		}
	}
	s := "SGR " + params
	if len(words) > 0 {
		s += " " + strings.Join(dedupe(words), ", ")
	}
	if fg >= 0 && fg == bg {
		s += " (text color equals background: hidden)"
	}
	return s
}

func dedupe(ws []string) []string {
	out := ws[:0]
	for _, w := range ws {
		dup := false
		for _, o := range out {
			if o == w {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, w)
		}
	}
	return out
}

// oscIntent describes an operating system command by its number.
func oscIntent(body string) string {
	num, rest, _ := strings.Cut(body, ";")
	switch num {
	case "0", "1", "2":
		return "OSC " + num + " set window title to " + quoteShort(rest, 60)
	case "8":
		// OSC 8 ; params ; URI: a hyperlink whose target the reader does not see.
		_, uri, _ := strings.Cut(rest, ";")
		if uri == "" {
			return "OSC 8 hyperlink end"
		}
		return "OSC 8 hyperlink -> " + quoteShort(uri, 200)
	case "52":
		return "OSC 52 clipboard access"
	case "4", "10", "11", "12", "104", "110", "111", "112":
		return "OSC " + num + " change colors"
	case "7":
		return "OSC 7 set working directory"
	case "9":
		return "OSC 9 desktop notification"
	case "1337":
		return "OSC 1337 terminal-specific command"
	}
	return "OSC " + quoteShort(num, 10)
}
