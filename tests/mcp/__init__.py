"""Tests of the MCP client side: specs, schema repair, McpTool and McpManager against real servers."""
