package mcpguard.custom.corp_remote_test

import data.mcpguard.custom.corp_remote

warned(transport, url) if {
	some w in corp_remote.warn with input as {"server": {"name": "r", "transport": transport, "url": url}, "context": {}}
	w.id == "ACME-REMOTE-HOST"
}

test_corp_hosts_pass if {
	not warned("http", "https://corp.example/mcp")
	not warned("http", "https://mcp.corp.example/mcp")
	not warned("sse", "https://a.b.corp.example:8443/sse")
	not warned("ws", "wss://ws.corp.example/")
}

test_other_hosts_warn if {
	warned("http", "https://mcp.vendor.example/mcp")
	warned("http", "https://corp.example.evil.test/mcp")
	warned("http", "https://evil.test/.corp.example/")
	warned("sse", "http://mcp.corp.example/sse") # cleartext
}

test_stdio_ignored if {
	not warned("stdio", "")
}
