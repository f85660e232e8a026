--- Spec: rename_symbol in the default mode, end to end (basedpyright attached in this Neovim answers the rename):
--- the one question carries a diff per file, "Review diff" shows both files' hunks, and accepting applies both.

local H = require("harness")
local A = require("intel_ask")

return function()
  A.enable("basedpyright", { assert(os.getenv("AGENT_NVIM_PYRIGHT"), "AGENT_NVIM_PYRIGHT"), "--stdio" })
  H.setup_endpoint()
  -- basedpyright renames in the files it has read: until it has read main.py (a cold start on a busy machine), a
  -- rename would change shapes.py alone. Its references reaching main.py say it has.
  local read = false
  for _ = 1, 300 do -- a hang fails by the spec's timeout
    read = vim.iter(A.places(A.ask("findReferences", "shapes.py", 3, 4))):any(function(p)
      return vim.startswith(p, "main.py")
    end)
    if read then
      break
    end
    vim.wait(200)
  end
  H.ok(read, "basedpyright read main.py")
  local questions = H.stub_select(H.pick("Review diff"))
  local answers = H.record("AgentPermission")
  local done = H.record("AgentTurnDone")
  require("agent_lsp").prompt("Rename area to surface")
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the review tab", 60000)
  H.eq(questions[1].labels[1], "Review diff", "first choice")
  H.ok(not vim.tbl_contains(questions[1].labels, "Review inline (hunk by hunk)"), "no inline review of two files")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  for _, expected in ipairs({
    "+++ b/shapes.py",
    "-def area(width: int, height: int) -> int:",
    "+def surface(width: int, height: int) -> int:",
    "+++ b/main.py",
    "-from shapes import area",
    "+from shapes import surface",
    "+    return surface(2, 3) + surface(4, 5)",
  }) do
    H.contains(text, expected, "the review buffer")
  end
  vim.api.nvim_feedkeys("\\a", "mx", false) -- <localleader>a
  H.wait(function()
    return #done == 1
  end, "the end of the turn", 60000)
  H.eq(answers[1].response, { outcome = { outcome = "selected", optionId = "proceed_once" } }, "response")
  H.contains(table.concat(H.buf_lines_of(H.project .. "/main.py"), "\n"), "return surface(2, 3) + surface(4, 5)")
  H.contains(table.concat(H.buf_lines_of(H.project .. "/shapes.py"), "\n"), "def surface(width: int, height: int)")
end
