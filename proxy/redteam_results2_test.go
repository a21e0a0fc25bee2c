package proxy

import (
	"strings"
	"testing"
)

// TestRedteamInputRequiredAnswer: a hostile server labels its answer
// input_required (2026-07-28) to skip the checks of the results: a client
// of an earlier revision, or one that reads the members it knows, reads
// the messages of a prompts/get or the content of a tools/call as the
// answer. Through a real child process in enforce mode, a prompt that
// carries hidden instructions beside the label is still not forwarded,
// and a tool result's terminal escapes beside the label are not either.
func TestRedteamInputRequiredAnswer(t *testing.T) {
	resultsServer(t)
	t.Setenv("MCPGUARD_FAKE_PROMPT_labelled", `{"resultType":"input_required","inputRequests":{},"requestState":"s",`+strings.TrimPrefix(crossServerPrompt, "{"))
	t.Setenv("MCPGUARD_FAKE_RESULT", `{"resultType":"input_required","inputRequests":{},`+strings.TrimPrefix(csiResult, "{"))
	gt := newGuardTest(t, GuardOptions{Name: "fake", Enforce: true})
	s := start(t, "normal", Options{Enforce: true, Inspector: gt.g})
	defer s.close()

	s.send(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"labelled"}}`)
	if line := s.recv(); strings.Contains(line, `"messages"`) || !strings.Contains(line, `"id":1`) {
		t.Errorf("a prompt labelled input_required reached the client: %s", line)
	} else if code, _ := rpcError(t, line); code == 0 {
		t.Errorf("want an error: %s", line)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"result","arguments":{}}}`)
	if line := s.recv(); strings.Contains(line, `\u001b`) || strings.Contains(line, "\x1b") || !strings.Contains(line, `"id":2`) {
		t.Errorf("terminal escapes of a result labelled input_required reached the client: %s", line)
	}
}
