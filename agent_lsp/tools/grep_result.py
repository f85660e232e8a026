"""grep_search's answer: matches grouped by file with line numbers, as the model reads it."""

from __future__ import annotations

from agent_lsp.tools.base import ToolResult
from agent_lsp.tools.context import ToolContext
from agent_lsp.tools.file_utils import shown
from agent_lsp.tools.grep_found import Found, GrepParams


def grep_result(ctx: ToolContext, params: GrepParams, found: Found) -> ToolResult:
    """The model's text (``L12: text`` for matches, ``L13- text`` for context, ``--`` between gaps)."""
    p = params
    where = ", ".join(shown(ctx, t) for t in p.targets)
    filt = f' (filter: "{p.include}")' if p.include else ""
    if not found.files:
        text = f'No matches found for pattern "{p.pattern}" in path "{where}"{filt}.'
        return ToolResult(llm_content=text, display="No matches found")
    paths = sorted(found.files)
    more = " There may be more: narrow the pattern, dir_path or include_pattern."
    if p.names_only:
        head = f'Found {len(paths)} file(s) containing matches for pattern "{p.pattern}" in path "{where}"{filt}'
        head += f" (limited to {p.max_matches}).{more}" if found.capped else ":"
        text = head + "\n" + "\n".join(shown(ctx, f) for f in paths)
        return ToolResult(llm_content=text, display=f"Found {len(paths)} file(s)")
    head = f'Found {found.matches} match(es) for pattern "{p.pattern}" in path "{where}"{filt}'
    head += f" (limited to total_max_matches={p.max_matches}).{more}" if found.capped else ":"
    blocks = [head, "---"]
    for path in paths:
        hits = sorted({h.line: h for h in found.files[path]}.values(), key=lambda h: h.line)
        if not hits:
            continue
        blocks.append(f"File: {shown(ctx, path)}")
        prev = None
        for h in hits:
            if prev is not None and h.line > prev + 1:
                blocks.append("--")
            blocks.append(f"L{h.line}{':' if h.is_match else '-'} {h.text}")
            prev = h.line
        blocks.append("---")
    display = f"Found {found.matches} match(es)" + (" (limited)" if found.capped else "")
    return ToolResult(llm_content="\n".join(blocks), display=display)
