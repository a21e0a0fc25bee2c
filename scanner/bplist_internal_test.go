package scanner

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBplistBools reads a binary property list written by Python's
// plistlib (the reference writer of the format): booleans kept, other
// values skipped, a UTF-16 key decoded.
func TestBplistBools(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "extensions", "com.anthropic.claudefordesktop.plist"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := bplistBools(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"isDesktopExtensionEnabled": true, "isDesktopExtensionSignatureRequired": true, "isLocalDevMcpEnabled": false, "ünïcode key": true}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (%v), want %v", k, g, ok, v)
		}
	}
	for _, bad := range [][]byte{data[:40], append([]byte{}, data[:len(data)-1]...), []byte("bplist00"), append([]byte("bplist00"), make([]byte, 32)...)} {
		if _, err := bplistBools(bad); err == nil {
			t.Errorf("a truncated list (%d bytes) was read", len(bad))
		}
	}
}

// FuzzBplist: no panic (binary and XML forms) and no out-of-range read on any input.
func FuzzBplist(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "extensions", "com.anthropic.claudefordesktop.plist")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("bplist00\xd1\x01\x02\x51a\x09\x08\x0b\x0d\x0f\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"))
	f.Add([]byte(`<plist><dict><key>isDxtEnabled</key><false/></dict></plist>`))
	f.Add([]byte(`<plist><dict><key>a&#69;</key><![CDATA[x]]><!-- c --><dict><key>b</key><true/></dict></dict></plist>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = plistTop(data)
	})
}
