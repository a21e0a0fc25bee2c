// Command mcpguard finds, evaluates and polices MCP server configurations.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
