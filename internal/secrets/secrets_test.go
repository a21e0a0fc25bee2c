package secrets

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	d := NewDetector()
	tests := []struct {
		key, value string
		want       string // "" means not a secret
	}{
		{"GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_" + strings.Repeat("a1B2", 9), "github-token"},
		{"", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github-fine-grained-token"},
		{"GITLAB", "glpat-abcdefghij0123456789", "gitlab-token"},
		{"AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLF", "aws-access-key-id"},
		{"SLACK_BOT_TOKEN", "xoxb-123456789012-1234567890123-abcdefghijkl", "slack-token"},
		{"OPENAI_API_KEY", "sk-proj-" + strings.Repeat("Ab3_", 12), "openai-api-key"},
		{"ANTHROPIC_API_KEY", "sk-ant-api03-" + strings.Repeat("xY9-", 12), "anthropic-api-key"},
		{"GOOGLE", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "google-api-key"},
		{"STRIPE", "sk_live_51H8abcdefghijklmnopqrstu", "stripe-key"},
		{"Authorization", "Bearer abcdef0123456789ABCDEF", "bearer-token"},
		{"Authorization", "Basic dXNlcjpwYXNzd29yZDEyMw==", "basic-auth"},
		{"", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop", "jwt"},
		{"DB", "postgres://admin:hunter2hunter2@db.internal/prod", "url-credentials"},
		{"API_KEY", "q8Zr4Lx0Tn2Vb7Kd5Wm1Ys9P", "credential-name"},
		{"X-Api-Key", "Zq8r4Lx0Tn2Vb7Kd5Wm1", "credential-name"},
		// Not secrets.
		{"API_KEY", "${API_KEY}", ""},
		{"API_KEY", "${env:API_KEY}", ""},
		{"Authorization", "Bearer ${API_KEY}", ""},
		{"Authorization", "Bearer <token>", ""},
		{"Authorization", "Bearer token", ""},
		{"API_KEY", "your_api_key", ""},
		{"GITHUB_PERSONAL_ACCESS_TOKEN", "<redacted>", ""},
		{"TOKEN", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},
		{"PATH", "/usr/local/bin:/usr/bin:/bin:/opt/xyz", ""},
		{"DEBUG", "mcp:*", ""},
		{"COMPANY_API_URL", "https://internal.example.com", ""},
		{"PERPLEXITY_API_KEY", "${input:perplexity-key}", ""},
		{"", "a perfectly ordinary sentence", ""},
		{"X", "${{ secrets.OPENAI }}", ""},
	}
	for _, tc := range tests {
		got, _ := d.Classify(tc.key, tc.value)
		if got != tc.want {
			t.Errorf("Classify(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}

func TestIsCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "X-Api-Key": true, "--password": true, "Authorization": true,
		"GITHUB_PAT": true, "client-secret": true, "key": true, "PATH": false, "PATTERN": false,
		"DEBUG": false, "HOME": false, "keyboard": false,
	} {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v", name, got)
		}
	}
}

func TestRedactURL(t *testing.T) {
	d := NewDetector()
	tests := map[string]string{
		"https://alice:pw@mcp.example.com/x":             "https://REDACTED@mcp.example.com/x",
		"https://mcp.example.com/mcp?api_key=abc123&v=2": "https://mcp.example.com/mcp?api_key=REDACTED&v=2",
		"https://mcp.example.com/mcp?key=${KEY}":         "https://mcp.example.com/mcp?key=${KEY}",
		"https://mcp.example.com/mcp":                    "https://mcp.example.com/mcp",
		"${API_BASE_URL:-https://api.example.com}/mcp":   "${API_BASE_URL:-https://api.example.com}/mcp",
	}
	for in, want := range tests {
		if got := d.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	d := NewDetector()
	in := []string{"-y", "server", "--api-key", "s3cr3tvalue", "--token=abc", "-H", "Authorization: Bearer abcdefghijklmnop",
		"ghp_" + strings.Repeat("x1", 18), "--api-key", "${KEY}", "--path", "/tmp/x", "DB_PASSWORD=hunter2"}
	want := []string{"-y", "server", "--api-key", "REDACTED", "--token=REDACTED", "-H", "Authorization: Bearer REDACTED",
		"REDACTED", "--api-key", "${KEY}", "--path", "/tmp/x", "DB_PASSWORD=REDACTED"}
	got := d.RedactArgs(in)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("arg %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if in[3] != "s3cr3tvalue" {
		t.Error("RedactArgs modified its input")
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("https://u:p@h/x?token=1", "--token")
	f.Add("Bearer abcdefghijklmnopqrstu", "Authorization")
	f.Fuzz(func(t *testing.T, s, key string) {
		d := NewDetector()
		_, _ = d.Classify(key, s)
		out := d.RedactURL(s)
		if kind, ok := d.Detect(s); ok && kind != "url-credentials" && strings.Contains(out, s) && len(s) > 40 {
			t.Fatalf("token %q (%s) survived redaction: %q", s, kind, out)
		}
		_ = d.RedactArgs([]string{key, s})
	})
}
