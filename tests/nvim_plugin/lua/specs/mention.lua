--- Spec: `@` completes the workspace's files in the chat prompt (the server's agent/findFiles, .gitignore
--- respected), the server reads the mentioned file with the prompt, and :AgentAdd puts selected lines there.

local H = require("harness")

---Every saved session transcript under the agent's home, as one string.
local function transcripts()
  local text = {}
  for _, file in ipairs(vim.fs.find(function(name)
    return name:match("%.jsonl$") ~= nil
  end, { path = vim.env.AGENT_LSP_HOME, type = "file", limit = math.huge })) do
    text[#text + 1] = table.concat(vim.fn.readfile(file), "\n")
  end
  return table.concat(text, "\n")
end

return function()
  H.setup()
  local done = H.record("AgentTurnDone")
  vim.cmd.edit(H.project .. "/src/app/main.py")
  vim.cmd("AgentChat")
  local view = require("agent_lsp.chat.view")
  H.wait(function()
    return require("agent_lsp.session").current ~= nil
  end, "a session")

  local complete = require("agent_lsp.chat.complete")
  local words = vim.tbl_map(function(i)
    return i.word
  end, complete.file_items("@"))
  H.ok(vim.tbl_contains(words, "@src/app/main.py") and vim.tbl_contains(words, "@src/"), "files and folders offered")
  H.ok(not vim.tbl_contains(words, "@build/hidden.py"), "a .gitignored file is not offered")

  -- The real thing: <C-x><C-o> after @mai in the prompt buffer completes the only match.
  local buf = view.prompt_buf()
  vim.api.nvim_set_current_win(select(2, view.windows()))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  vim.api.nvim_feedkeys(vim.keycode("iExplain @mai<C-x><C-o><Esc>"), "tx", false)
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "Explain @src/app/main.py" }, "the completed prompt")

  -- :AgentAdd on two lines of the file appends them with their place.
  vim.cmd.wincmd("p")
  vim.cmd.edit(H.project .. "/src/app/main.py")
  vim.cmd("1,2AgentAdd")
  H.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), {
    "Explain @src/app/main.py",
    "",
    "From `src/app/main.py` lines 1-2:",
    "```python",
    "MAIN_MARKER = 'main-file-content-7'",
    "def run(): pass",
    "```",
  }, "the prompt with the added lines")
  H.eq(vim.api.nvim_get_current_buf(), buf, "the prompt buffer has the focus")

  view.submit()
  H.wait(function()
    return #done == 1
  end, "the turn")
  H.contains(H.chat_text(), "Read main.py.")
  -- The server read the mentioned file into the prompt (its content is in the model's history).
  H.contains(transcripts(), "Content from @")
  H.contains(transcripts(), "From `src/app/main.py` lines 1-2:")
end
