"""The LSP adapter: ``agent-lsp lsp`` serves the agent to any Language Server Protocol client."""
