package wrap

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// maxDiffCost bounds the diff's work; beyond it the changed middle of the
// file is shown as one replaced block, which is still a correct diff.
const maxDiffCost = 1000

// UnifiedDiff renders the change from before to after as a unified diff
// (`diff -u` style) with the given file names. Line endings are shown without
// the carriage return of CRLF files. It returns "" when nothing changed.
func UnifiedDiff(oldName, newName string, before, after []byte) string {
	if bytes.Equal(before, after) {
		return ""
	}
	a, b := splitLines(before), splitLines(after)
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	// Hunks: runs of changes with up to 2*context equal lines between them.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*diffContext {
				break
			}
		}
		end = min(len(ops), end+1+diffContext)
		oldStart, newStart := ops[start].a, ops[start].b
		oldLen, newLen := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				oldLen++
			}
			if o.kind != '-' {
				newLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(oldStart, oldLen), hunkRange(newStart, newLen))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(strings.TrimSuffix(o.text, "\n"), "\r"))
			out.WriteByte('\n')
			if !strings.HasSuffix(o.text, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange renders a hunk's start line (1-based) and length.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits data after each '\n'; the last line may lack one.
func splitLines(data []byte) []string {
	var lines []string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, string(data))
			break
		}
		lines = append(lines, string(data[:i+1]))
		data = data[i+1:]
	}
	return lines
}

// diffOp is one line of a diff: ' ' kept, '-' removed, '+' added; a and b are
// the line's (or the next line's) 0-based index in the old and new text.
type diffOp struct {
	kind byte
	text string
	a, b int
}

// diffLines computes a shortest line diff (Myers' algorithm) after trimming
// the common head and tail, which is where almost all of a rewritten
// configuration file is.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', a[i], i, i})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre, pre)...)
	for i := 0; i < suf; i++ {
		ia, ib := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', a[ia], ia, ib})
	}
	return ops
}

// myers diffs the middle parts; offA and offB are their line offsets.
func myers(a, b []string, offA, offB int) []diffOp {
	n, m := len(a), len(b)
	replace := func() []diffOp {
		ops := make([]diffOp, 0, n+m)
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, offA + i, offB})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, offA + n, offB + j})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replace()
	}
	maxD := min(n+m, maxDiffCost)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		// Only diagonals -d-1..d+1 matter at step d.
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, d, offA, offB)
			}
		}
	}
	return replace()
}

// backtrack walks the snapshots of Myers' V array back from (n, m).
func backtrack(trace [][]int, a, b []string, dEnd, offA, offB int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	for d := dEnd; d >= 0; d-- {
		snap := trace[d]
		at := func(k int) int { return snap[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x], offA + x, offB + y})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{'+', b[y], offA + x, offB + y})
		} else {
			x--
			rev = append(rev, diffOp{'-', a[x], offA + x, offB + y})
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
