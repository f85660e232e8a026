--- Spec: `@` completes the workspace's files in the chat prompt (the server's agent/findFiles, .gitignore
--- respected), the server reads the mentioned file with the prompt, and :AgentAdd puts selected lines there;
--- `@` also completes another language server's workspace symbols and the diagnostics (`@problems`), and
--- :AgentAttach sends an image with the next prompt (a file that is not one, or too big, is refused in words);
--- :AgentAutoApprove changes a switch through the server and the winbar shows it.

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

  -- Symbols: a second language server (tests/nvim_plugin/symbol_server.py, real over stdio) answers workspace/symbol.
  vim.cmd.wincmd("p")
  vim.cmd.edit(H.project .. "/src/app/main.py")
  local main = vim.api.nvim_get_current_buf()
  local symbol_server = H.repo .. "/tests/nvim_plugin/symbol_server.py"
  vim.lsp.start({ name = "symbols", cmd = { H.python, symbol_server }, root_dir = H.project })
  H.wait(function()
    return #vim.lsp.get_clients({ name = "symbols", bufnr = main }) == 1
  end, "the symbol server")
  local function words_of(items)
    return vim.tbl_map(function(i)
      return i.word
    end, items)
  end
  local items = require("agent_lsp.chat.context_items")
  local run = "@src/app/main.py (run, line 2)"
  H.eq(words_of(items.symbol_items("@run")), { run }, "the symbol completes with its place")
  H.ok(vim.tbl_contains(words_of(complete.complete(0, "@run")), run), "offered by @")

  -- Problems: the diagnostics of the workspace, or of one file.
  local ns = vim.api.nvim_create_namespace("spec_lint")
  local warning = { lnum = 1, col = 4, message = "run is never called", severity = 2, source = "lint" }
  vim.diagnostic.set(ns, main, { warning })
  H.eq(words_of(items.problem_items("@prob")), { "@problems", "@problems:src/app/main.py" }, "problems offered")

  -- Images: a png is attached; a text file and a 6 MB png are refused in words.
  local said = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    said[#said + 1] = { msg = msg, level = level }
  end
  local png = H.project .. "/shot.png"
  local f = assert(io.open(png, "wb"))
  local tiny = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP8z8Dwn4GBgYGJgYGBAQAk"
    .. "CAICtPCuCQAAAABJRU5ErkJggg=="
  f:write(vim.base64.decode(tiny))
  f:close()
  local big = assert(io.open(H.project .. "/big.png", "wb"))
  big:write(string.rep("\0", 6 * 1024 * 1024))
  big:close()
  vim.cmd("AgentAttach " .. H.project .. "/src/app/main.py")
  vim.cmd("AgentAttach " .. H.project .. "/big.png")
  vim.cmd("AgentAttach " .. png)
  vim.notify = notify
  H.contains(said[1].msg, "main.py is not an image (png, jpeg, gif or webp)")
  H.contains(said[2].msg, "big.png is 6.0 MB; images up to 5.0 MB can be attached")
  H.eq(#require("agent_lsp.chat.images").pending, 1, "one image waits for the prompt")

  -- A model that reads no images (as the server says for one) refuses the prompt before anything is sent.
  local s = require("agent_lsp.session").current
  s.image_input = false
  said = {}
  vim.notify = function(msg, level)
    said[#said + 1] = { msg = msg, level = level }
  end
  require("agent_lsp.turns").prompt("what is this?")
  vim.notify = notify
  H.contains(said[1].msg, "does not take images")
  H.eq(#done, 1, "nothing was sent")
  s.image_input = true

  -- :AgentAutoApprove asks the server, and what is on shows in the chat's winbar.
  H.ok(s.auto_approve ~= nil and s.auto_approve.available, "the session's switches, fetched when it opened")
  vim.cmd("AgentAutoApprove shell workspace")
  H.wait(function()
    return (view.winbar() or ""):find("auto: Shell✓✓", 1, true) ~= nil
  end, "Shell on for the workspace in the winbar")
  vim.cmd("AgentAutoApprove shell off")
  H.wait(function()
    return (view.winbar() or ""):find("auto:", 1, true) == nil
  end, "nothing auto-approved in the winbar")

  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "What is in it? Mind @problems" })
  view.submit()
  H.wait(function()
    return #done == 2
  end, "the second turn")
  H.eq(#require("agent_lsp.chat.images").pending, 0, "the image went with the prompt")
  local told = transcripts()
  H.contains(told, "Problems the editor reports in the workspace:")
  H.contains(told, "- src/app/main.py:2:5: warning: run is never called (lint)")
  H.contains(told, "image/png")
end
