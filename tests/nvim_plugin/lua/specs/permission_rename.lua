--- Spec: a question about several files (rename_symbol asks once, one diff per file): "Review diff" shows every
--- file's hunks in one review buffer, offers no hunk-by-hunk review, and <localleader>a accepts them all.

local H = require("harness")

---@param path string
---@param old string
---@param new string
---@return table
local function diff(path, old, new)
  return { type = "diff", path = H.project .. "/" .. path, oldText = old, newText = new }
end

return function()
  H.setup()
  local questions = H.stub_select(H.pick("Review diff"))
  local params = {
    sessionId = "s1",
    toolCall = {
      toolCallId = "rename-1",
      title = "Rename area to surface",
      kind = "edit",
      content = {
        diff("shapes.py", "def area(w, h):\n    return w * h\n", "def surface(w, h):\n    return w * h\n"),
        diff(
          "main.py",
          "from shapes import area\nprint(area(2, 3))\n",
          "from shapes import surface\nprint(surface(2, 3))\n"
        ),
      },
    },
    options = {
      { optionId = "proceed_once", name = "Allow", kind = "allow_once" },
      { optionId = "cancel", name = "Reject", kind = "reject_once" },
    },
  }
  local answers = {}
  require("agent_lsp.permission").ask(params, function(response)
    answers[#answers + 1] = response
  end)
  H.wait(function()
    return #vim.api.nvim_list_tabpages() == 2
  end, "the review tab")
  H.eq(questions[1].labels, { "Review diff", "Allow", "Reject" }, "choices (no inline review of several files)")
  local buf = vim.api.nvim_get_current_buf()
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  for _, expected in ipairs({
    "--- a/shapes.py",
    "+++ b/shapes.py",
    "-def area(w, h):",
    "+def surface(w, h):",
    "--- a/main.py",
    "+++ b/main.py",
    "-from shapes import area",
    "+from shapes import surface",
    "+print(surface(2, 3))",
  }) do
    H.contains(text, expected, "the review buffer")
  end
  H.eq(vim.bo[buf].filetype, "diff", "filetype")
  H.contains(vim.wo[vim.api.nvim_get_current_win()].winbar, "2 files · \\a accept all · \\r reject")
  vim.api.nvim_feedkeys("\\a", "mx", false) -- <localleader>a
  H.wait(function()
    return #answers == 1
  end, "the answer")
  H.eq(answers[1], { outcome = { outcome = "selected", optionId = "proceed_once" } }, "response")
  H.eq(#vim.api.nvim_list_tabpages(), 1, "tabs after accepting")
end
