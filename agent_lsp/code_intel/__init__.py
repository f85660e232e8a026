"""Code intelligence from language servers the runtime starts (see docs/tools.md#code-intelligence)."""
