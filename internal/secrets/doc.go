// Package secrets recognises credentials in MCP server entries — real token
// formats (GitHub, GitLab, AWS, Slack, OpenAI, Anthropic, Google, Stripe, JWTs,
// bearer and basic auth, private keys), credential-named keys with high-entropy
// values — and redacts them from anything mcpguard prints.
//
// Detection never fires on variable references (${VAR}, ${env:VAR}, $VAR) or on
// the placeholders that READMEs put in example configs ("your_api_key",
// "<token>"), because those are not secrets and flagging them trains people to
// ignore the rule.
package secrets
