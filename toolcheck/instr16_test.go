package toolcheck

import "testing"

// TestInstr16Shapes: shapes of community servers' tool texts (issue 44,
// part 3, sixteenth round) that raised a warning or an error, each in a
// wording of its own, with a twin that must still be reported.
func TestInstr16Shapes(t *testing.T) {
	const schema = `"inputSchema": {"type": "object", "properties": {"messages": {"type": "array", "description": "The turns, in order."}, "extra": {"type": "object", "description": "Optional extra fields."}}, "required": ["messages"]}`
	tests := []struct {
		name, tool, rule, want string
	}{
		// T001: a setting put into .env by name ("Set REDIS_URL in your
		// .env file", a sample turn of doobidoo/mcp-memory-service's
		// memory_store_session) is where the user configures it, not a
		// file the model is to read; a setting read from it, or the file
		// named bare, still is.
		{"setting put in the env file", `{"name": "save_chat", "description": "Save a whole chat transcript as one entry.\n\nExample:\n{\"messages\": [{\"role\": \"user\", \"content\": \"How do I point it at Postgres?\"}, {\"role\": \"assistant\", \"content\": \"Put DATABASE_URL in the .env file and restart.\"}]}", ` + schema + `}`, ruleT001, ""},
		{"setting added to the env file", `{"name": "save_chat", "description": "Save a whole chat transcript as one entry. Example turn: \"Add OPENAI_API_KEY=sk-... to your .env and restart.\"", ` + schema + `}`, ruleT001, ""},
		{"setting read from the env file", `{"name": "save_chat", "description": "Save a whole chat transcript as one entry.\n\nExample:\n{\"messages\": [{\"role\": \"user\", \"content\": \"How do I point it at Postgres?\"}, {\"role\": \"assistant\", \"content\": \"Read DATABASE_URL from the .env file and restart.\"}]}", ` + schema + `}`, ruleT001, "error"},
		{"set it in the env file", `{"name": "save_chat", "description": "Save a whole chat transcript as one entry.\n\nExample:\n{\"messages\": [{\"role\": \"assistant\", \"content\": \"Set it in your .env file and restart.\"}]}", ` + schema + `}`, ruleT001, "error"},

		// T001/T002: a name called a prompt or a resource ("processed
		// using the 'reaction_to_connector_strategy' prompt",
		// cursor-talk-to-figma-mcp's get_reactions) is none of the tools
		// the model calls; the same name called a tool, not the server's
		// own, is another tool.
		{"own prompt named", `{"name": "get_marks", "description": "Get the marks of several shapes. CRITICAL: The output MUST be handled using the 'marks_to_lines_plan' prompt right away to build arguments for the 'draw_lines' tool."}, {"name": "draw_lines", "description": "Draw lines between shapes."}`, ruleT001, ""},
		{"own prompt named, shadowing", `{"name": "get_marks", "description": "Get the marks of several shapes. CRITICAL: The output MUST be handled using the 'marks_to_lines_plan' prompt right away to build arguments for the 'draw_lines' tool."}, {"name": "draw_lines", "description": "Draw lines between shapes."}`, ruleT002, ""},
		{"resource named", `{"name": "get_marks", "description": "Get the marks of several shapes. CRITICAL: The output MUST be read using the 'board_layout_notes' resource right away to build arguments for the 'draw_lines' tool."}, {"name": "draw_lines", "description": "Draw lines between shapes."}`, ruleT001, ""},
		{"other tool named", `{"name": "get_marks", "description": "Get the marks of several shapes. CRITICAL: The output MUST be handled using the 'marks_to_lines_plan' tool right away to build arguments for the 'draw_lines' tool."}, {"name": "draw_lines", "description": "Draw lines between shapes."}`, ruleT001, "error"},
		{"other tool named, shadowing", `{"name": "get_marks", "description": "Get the marks of several shapes. CRITICAL: The output MUST be handled using the 'marks_to_lines_plan' tool right away to build arguments for the 'draw_lines' tool."}, {"name": "draw_lines", "description": "Draw lines between shapes."}`, ruleT002, "warning"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := analyze(t, tool(tc.tool), Options{})
			if got := levelOf(rep.Findings, tc.rule); got != tc.want && !(tc.want == "" && got == "note") && !(tc.want == "warning" && got == "error") {
				t.Errorf("%s = %q, want %q:\n%s", tc.rule, got, tc.want, summary(rep.Findings))
			}
		})
	}
}
