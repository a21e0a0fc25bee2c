package scanner

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// bplistBools reads the boolean values of the top-level dictionary of a
// binary property list (bplist00, the form macOS keeps managed
// preferences in). Other value types are skipped; a malformed list is an
// error. Every offset is checked against the data: hostile input cannot
// read out of bounds or loop.
func bplistBools(data []byte) (map[string]bool, error) {
	const trailer = 32
	if len(data) < 8+trailer || string(data[:6]) != "bplist" {
		return nil, errors.New("not a binary property list")
	}
	t := data[len(data)-trailer:]
	offSize, refSize := int(t[6]), int(t[7])
	numObjects := binary.BigEndian.Uint64(t[8:16])
	top := binary.BigEndian.Uint64(t[16:24])
	tableAt := binary.BigEndian.Uint64(t[24:32])
	body := uint64(len(data) - trailer)
	if offSize < 1 || offSize > 8 || refSize < 1 || refSize > 8 || numObjects == 0 || top >= numObjects ||
		tableAt >= body || numObjects > (body-tableAt)/uint64(offSize) {
		return nil, errors.New("malformed binary property list trailer")
	}
	uint := func(b []byte) uint64 {
		var v uint64
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
		return v
	}
	offset := func(ref uint64) (int, error) {
		if ref >= numObjects {
			return 0, fmt.Errorf("object reference %d out of range", ref)
		}
		at := tableAt + ref*uint64(offSize)
		o := uint(data[at : at+uint64(offSize)])
		if o < 8 || o >= tableAt {
			return 0, fmt.Errorf("object offset %d out of range", o)
		}
		return int(o), nil
	}
	// length reads the count of an object whose marker's low nibble is
	// 0xF (a following int object) or the count itself.
	length := func(at int) (n, start int, err error) {
		low := int(data[at] & 0x0f)
		if low != 0x0f {
			return low, at + 1, nil
		}
		if at+1 >= int(tableAt) || data[at+1]&0xf0 != 0x10 {
			return 0, 0, errors.New("malformed object length")
		}
		size := 1 << (data[at+1] & 0x0f)
		if size > 8 || at+2+size > int(tableAt) {
			return 0, 0, errors.New("malformed object length")
		}
		v := uint(data[at+2 : at+2+size])
		if v > uint64(tableAt) {
			return 0, 0, errors.New("object length out of range")
		}
		return int(v), at + 2 + size, nil
	}
	str := func(ref uint64) (string, bool, error) {
		at, err := offset(ref)
		if err != nil {
			return "", false, err
		}
		switch data[at] >> 4 {
		case 0x5: // ASCII
			n, start, err := length(at)
			if err != nil || start+n > int(tableAt) {
				return "", false, errors.New("malformed string")
			}
			return string(data[start : start+n]), true, nil
		case 0x6: // UTF-16BE
			n, start, err := length(at)
			if err != nil || n > (int(tableAt)-start)/2 {
				return "", false, errors.New("malformed string")
			}
			u := make([]uint16, n)
			for i := range u {
				u[i] = binary.BigEndian.Uint16(data[start+2*i:])
			}
			return string(utf16.Decode(u)), true, nil
		}
		return "", false, nil
	}
	at, err := offset(top)
	if err != nil {
		return nil, err
	}
	if data[at]>>4 != 0xd {
		return nil, errors.New("the top object is not a dictionary")
	}
	n, start, err := length(at)
	if err != nil || n > (int(tableAt)-start)/(2*refSize) {
		return nil, errors.New("malformed dictionary")
	}
	out := map[string]bool{}
	for i := range n {
		kref := uint(data[start+i*refSize : start+(i+1)*refSize])
		vref := uint(data[start+(n+i)*refSize : start+(n+i+1)*refSize])
		key, ok, err := str(kref)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		vat, err := offset(vref)
		if err != nil {
			return nil, err
		}
		switch data[vat] {
		case 0x08:
			out[key] = false
		case 0x09:
			out[key] = true
		}
	}
	return out, nil
}
