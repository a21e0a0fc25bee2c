package toolcheck

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text a terminal would hide (issue 44 part 3; Trail of Bits, "Deceiving
// users with ANSI terminal codes in MCP"). A description shown in a
// terminal is not the description the model reads: a line erased after
// it is printed (CSI 1A or CSI 1F, then CSI 2K), text overwritten after a carriage
// return or backspace, and concealed text (SGR 8, or a foreground color set equal to the
// background's) reach the model only.
// terminalHidden replays the string on a small screen model and returns
// what it would not show; poisoning reads it as hidden text.

// terminalHidden returns the runs of s a terminal would erase, overwrite
// or conceal, in order; nil when s has no control that hides.
func terminalHidden(s string) []string {
	if !hidesText(s) {
		return nil
	}
	var (
		screen    [][]rune // rows
		row, col  int
		conceal   bool   // what is put is not shown: concealed, or fg == bg
		concealed bool   // SGR 8
		fg, bg    string // the colors SGR set, "" for the default
		hidden    []string
		cur       []rune // the fragment being hidden
		anyHidden bool
	)
	flush := func() {
		if t := strings.TrimSpace(string(cur)); t != "" {
			hidden = append(hidden, t)
			anyHidden = true
		}
		cur = cur[:0]
	}
	line := func() []rune {
		for len(screen) <= row {
			screen = append(screen, nil)
		}
		return screen[row]
	}
	hide := func(rs []rune) {
		if len(rs) > 0 {
			cur = append(cur, rs...)
			cur = append(cur, ' ')
		}
	}
	put := func(r rune) {
		if conceal {
			cur = append(cur, r)
			return
		}
		l := line()
		if col < len(l) {
			cur = append(cur, l[col]) // overwritten
			l[col] = r
		} else {
			for len(l) < col {
				l = append(l, ' ')
			}
			l = append(l, r)
		}
		screen[row] = l
		col++
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b && i+1 < len(s) && s[i+1] == '[' || r == 0x9b:
			j := i + n // after the C1 CSI
			if r == 0x1b {
				j = i + 2 // after ESC [
			}
			k := j
			for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] == ';' || s[k] == '?') {
				k++
			}
			if k >= len(s) {
				i = len(s)
				continue
			}
			params, final := s[j:k], s[k]
			num := func(def int) int {
				p, _, _ := strings.Cut(params, ";")
				if v, err := strconv.Atoi(strings.TrimPrefix(p, "?")); err == nil {
					return v
				}
				return def
			}
			switch final {
			case 'A':
				row = max(row-num(1), 0)
			case 'B':
				row += num(1)
			case 'E':
				row, col = row+num(1), 0
			case 'F':
				row, col = max(row-num(1), 0), 0
			case 'D':
				col = max(col-num(1), 0)
			case 'G':
				col = max(num(1)-1, 0)
			case 'H', 'f':
				row, col = 0, 0
			case 'K':
				l := line()
				switch num(0) {
				case 0:
					if col < len(l) {
						hide(l[col:])
						screen[row] = l[:col]
					}
				case 1:
					hide(l[:min(col, len(l))])
					for x := 0; x < col && x < len(l); x++ {
						l[x] = ' '
					}
				case 2:
					hide(l)
					screen[row] = nil
				}
			case 'J':
				if num(0) == 2 || num(0) == 3 {
					for _, l := range screen {
						hide(l)
					}
					screen = nil
				}
			case 'm':
				was := conceal || fg != "" && fg == bg
				fields := strings.Split(params, ";")
				for k := 0; k < len(fields); k++ {
					switch p := fields[k]; p {
					case "8":
						concealed = true
					case "", "0":
						concealed, fg, bg = false, "", ""
					case "28":
						concealed = false
					case "39":
						fg = ""
					case "49":
						bg = ""
					case "38", "48":
						// 38;5;n or 38;2;r;g;b: the color is its arguments.
						c := ""
						if k+2 < len(fields) && fields[k+1] == "5" {
							c, k = "x"+fields[k+2], k+2
						} else if k+4 < len(fields) && fields[k+1] == "2" {
							c, k = "t"+strings.Join(fields[k+2:k+5], ","), k+4
						}
						if p == "38" {
							fg = c
						} else {
							bg = c
						}
					default:
						// 30–37, 90–97 and 40–47, 100–107: a basic color,
						// its bright variant read as the same (as U005
						// reads them).
						if v, err := strconv.Atoi(p); err == nil {
							switch {
							case v >= 30 && v <= 37, v >= 90 && v <= 97:
								fg = "b" + strconv.Itoa(v%10)
							case v >= 40 && v <= 47, v >= 100 && v <= 107:
								bg = "b" + strconv.Itoa(v%10)
							}
						}
					}
				}
				// Text in the color of its background is concealed as
				// SGR 8 conceals it.
				conceal = concealed || fg != "" && fg == bg
				if was && !conceal {
					cur = append(cur, ' ')
				}
			}
			i = k + 1
			continue
		case r == 0x1b:
			// Other escapes (OSC hyperlinks, charset selection) show
			// their text; skip the introducer.
			i += n
			continue
		case r == '\r':
			col = 0
		case r == '\b':
			col = max(col-1, 0)
		case r == '\n':
			row++
			col = 0
		default:
			put(r)
		}
		i += n
	}
	flush()
	if !anyHidden {
		return nil
	}
	return hidden
}

// hidesText reports whether s holds a control that can hide text: an
// escape, a CSI, a backspace or a carriage return not ending a line.
func hidesText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0x1b, '\b':
			return true
		case '\r':
			if i+1 < len(s) && s[i+1] != '\n' {
				return true
			}
		case 0xc2:
			if i+1 < len(s) && s[i+1] == 0x9b {
				return true
			}
		}
	}
	return false
}
