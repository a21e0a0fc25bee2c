package reports

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// fleetJSONPieces are what the random strings are made of: markup,
// quotes, control characters, U+2028 and U+2029, bytes that are not
// UTF-8, and plain text.
var fleetJSONPieces = []string{"a", "server", "/home/u", "é", "日本", "<", ">", "&", `"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x00",
	"\x1f", "\x7f", "\u2028", "\u2029", "\xff", "\xe2\x80", "\ufffd", "</script>", "\U0001F600", " "}

// fillRandom sets every field reachable from v, by reflection, so that a
// field added to a type the fleet writer handles by hand is filled too:
// strings from fleetJSONPieces (empty a fifth of the time), lists nil,
// empty or of a few elements, numbers zero, negative or large, pointers
// and maps nil or set (maps of any hold strings, numbers, lists).
func fillRandom(rng *rand.Rand, v reflect.Value) {
	str := func() string {
		if rng.IntN(5) == 0 {
			return ""
		}
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(fleetJSONPieces[rng.IntN(len(fleetJSONPieces))])
		}
		return b.String()
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(str())
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt([]int64{0, 0, 1, 7, -3, 1 << 40}[rng.IntN(6)])
	case reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2, 1e21}[rng.IntN(4)])
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(rng, v.Field(i))
			}
		}
	case reflect.Pointer:
		if rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fillRandom(rng, v.Elem())
	case reflect.Slice:
		switch n := rng.IntN(5); n {
		case 0:
			v.SetZero()
		default:
			v.Set(reflect.MakeSlice(v.Type(), n-1, n-1))
			for i := range n - 1 {
				fillRandom(rng, v.Index(i))
			}
		}
	case reflect.Map:
		if rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(3) {
			val := reflect.New(v.Type().Elem()).Elem()
			if val.Kind() == reflect.Interface {
				values := []any{str(), float64(rng.IntN(9)), []any{str(), 1e-7}, nil, true, -42, int64(1) << 53,
					map[string]any{str(): str(), "n": []any{}}, []string{str()}, []string(nil), 123456789.125, map[string]any{}, 1e20, 5e-7, -1e-6}
				if x := values[rng.IntN(len(values))]; x != nil {
					val.Set(reflect.ValueOf(x))
				}
			} else {
				fillRandom(rng, val)
			}
			m.SetMapIndex(reflect.ValueOf(str()), val)
		}
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(str()))
	}
}

// TestFleetElementsMatchEncodingJSON holds the hand-written writers of
// servers and findings to encoding/json (indented at
// their depth, HTML characters unescaped: what writeFleetJSON and
// WriteJSON write), byte for byte, over values whose every field is
// filled at random, details, evidence and introspection included; it
// fails when a writer falls back, so that the comparison cannot pass by
// falling back every time.
func TestFleetElementsMatchEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 18))
	want := func(v any) string {
		var b bytes.Buffer
		if err := indentEncoder(&b, "    ").Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	var servers, findings int
	for i := range 3000 {
		var s Server
		fillRandom(rng, reflect.ValueOf(&s).Elem())
		if i%2 == 0 { // what saved reports hold: no details, no introspection
			s.Details, s.Introspection = nil, nil
		}
		if got, err := appendServer(nil, &s, nil); err != nil || string(got) != want(&s) {
			t.Fatalf("report server %d (%v):\n got %s\nwant %s", i, err, got, want(&s))
		}
		fs := FleetServer{Server: &s, Host: "host-" + s.Name}
		if got, ok := appendFleetServer(nil, &fs); ok {
			servers++
			if w := want(&fs); string(got) != w {
				t.Fatalf("server %d:\n got %s\nwant %s", i, got, w)
			}
		} else {
			t.Fatalf("server %d not written by hand", i)
		}

		var f Finding
		fillRandom(rng, reflect.ValueOf(&f).Elem())
		if i%2 == 0 {
			f.Evidence = nil
		}
		if got, err := appendFinding(nil, &f, nil); err != nil || string(got) != want(&f) {
			t.Fatalf("report finding %d (%v):\n got %s\nwant %s", i, err, got, want(&f))
		}
		ff := FleetFinding{Finding: &f, Host: "host-" + f.ID}
		if got, ok := appendFleetFinding(nil, &ff); ok {
			findings++
			if w := want(&ff); string(got) != w {
				t.Fatalf("finding %d:\n got %s\nwant %s", i, got, w)
			}
		} else {
			t.Fatalf("finding %d not written by hand", i)
		}
	}
	if servers != 3000 || findings != 3000 {
		t.Fatalf("%d servers and %d findings written by hand of 3000 each", servers, findings)
	}
}
