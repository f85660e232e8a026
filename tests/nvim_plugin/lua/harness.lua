--- Helpers for the plugin specs run inside headless Neovim: setup against the real server, waits, asserts.

local H = {}

H.repo = os.getenv("AGENT_NVIM_REPO") or ""
H.project = os.getenv("AGENT_NVIM_PROJECT") or ""
H.responses = os.getenv("AGENT_NVIM_RESPONSES") or ""
H.python = os.getenv("AGENT_NVIM_PYTHON") or "python3"

---The plugin set up to run the repository's server on the spec's replay script.
---@param extra agent_lsp.UserConfig?
function H.setup(extra)
  local cmd = { H.python, "-m", "agent_lsp", "lsp", "--fake-responses", H.responses }
  require("agent_lsp").setup(vim.tbl_extend("force", { cmd = cmd }, extra or {}))
end

---The plugin set up to run the repository's server on the spec's model endpoint rather than a replay: the fake
---OpenAI-compatible server (OPENAI_BASE_URL / OPENAI_MODEL / OPENAI_API_KEY in the environment) or the fake Gemini
---server (GOOGLE_GEMINI_BASE_URL / GEMINI_API_KEY) the test started.
---@param extra agent_lsp.UserConfig?
function H.setup_endpoint(extra)
  local endpoint = os.getenv("OPENAI_BASE_URL") or os.getenv("GOOGLE_GEMINI_BASE_URL")
  assert(endpoint, "the spec's scenario starts no model endpoint")
  local cmd = { H.python, "-m", "agent_lsp", "lsp" }
  require("agent_lsp").setup(vim.tbl_extend("force", { cmd = cmd }, extra or {}))
end

---Wait (processing events) until `predicate` holds; fail with `what` after `ms` milliseconds.
---@param predicate fun(): boolean
---@param what string
---@param ms integer?
function H.wait(predicate, what, ms)
  if not vim.wait(ms or 20000, predicate, 10) then
    error("timed out waiting for " .. what, 2)
  end
end

---Wait until the current session offers the slash command `name` (custom and MCP commands come after it opens).
---@param name string
---@param what string
---@param ms integer?
function H.wait_for_command(name, what, ms)
  local session = require("agent_lsp.session")
  H.wait(function()
    for _, c in ipairs(session.current and session.current.commands or {}) do
      if c.name == name then
        return true
      end
    end
    return false
  end, what, ms)
end

---@param actual any
---@param expected any
---@param what string?
function H.eq(actual, expected, what)
  if not vim.deep_equal(actual, expected) then
    error(("%s: expected %s, got %s"):format(what or "value", vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

---@param value any
---@param what string
function H.ok(value, what)
  if not value then
    error("expected " .. what, 2)
  end
end

---@param haystack string
---@param needle string
---@param what string?
function H.contains(haystack, needle, what)
  if not haystack:find(needle, 1, true) then
    error(("%s: %q not found in:\n%s"):format(what or "text", needle, haystack), 2)
  end
end

---The server saw the buffer end up with the text it computed (it logs a warning when the editor's
---didChange never brings its mirror there).
function H.no_sync_warning()
  local path = vim.lsp.get_log_path()
  local log = vim.uv.fs_stat(path) and table.concat(vim.fn.readfile(path), "\n") or ""
  if log:find("no didChange", 1, true) then
    error("the server's mirror did not match the edited buffer:\n" .. log, 2)
  end
end

---The chat transcript's text.
---@return string
function H.chat_text()
  return require("agent_lsp.chat.view").transcript():text()
end

---@param path string
---@return string[]
function H.buf_lines_of(path)
  local buf = vim.fn.bufnr(path)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

---Replace vim.ui.select with a stub that records each question; `answer(items, opts)` picks the item.
---@param answer fun(items: any[], opts: table): any
---@return { prompt: string, labels: string[] }[] questions
function H.stub_select(answer)
  local questions = {}
  ---@diagnostic disable-next-line: duplicate-set-field
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, item in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
    end
    questions[#questions + 1] = { prompt = opts.prompt, labels = labels }
    local choice = answer(items, opts)
    vim.schedule(function()
      on_choice(choice)
    end)
  end
  return questions
end

---Pick the item whose label is `label`.
---@param label string
---@return fun(items: any[], opts: table): any
function H.pick(label)
  return function(items, opts)
    for _, item in ipairs(items) do
      if (opts.format_item and opts.format_item(item) or item) == label then
        return item
      end
    end
    error("no item " .. label)
  end
end

---Record the User autocmds with this pattern.
---@param pattern string
---@return table[] data
function H.record(pattern)
  local seen = {}
  vim.api.nvim_create_autocmd("User", {
    pattern = pattern,
    callback = function(ev)
      seen[#seen + 1] = ev.data
    end,
  })
  return seen
end

---Stop the servers and wait for them to exit, so none outlives the test.
local function stop_clients()
  local clients = vim.lsp.get_clients()
  for _, client in ipairs(clients) do
    client:stop()
  end
  vim.wait(5000, function()
    for _, client in ipairs(clients) do
      if not client:is_stopped() then
        return false
      end
    end
    return true
  end, 20)
end

---Run the spec module `name` and exit Neovim: 0 when it passed, 1 (message on stderr) when not.
---@param name string
function H.run(name)
  local ok, err = xpcall(function()
    require("specs." .. name)()
  end, debug.traceback)
  stop_clients()
  if ok then
    if os.getenv("AGENT_NVIM_DUMP") then
      io.stdout:write(H.chat_text() .. "\n")
    end
    io.stdout:write("spec " .. name .. ": ok\n")
    vim.cmd("qall!")
  else
    io.stderr:write("spec " .. name .. " FAILED:\n" .. tostring(err) .. "\n")
    local shown_ok, shown = pcall(H.chat_text)
    io.stderr:write("chat was:\n" .. (shown_ok and shown or "?") .. "\n")
    vim.cmd("cquit 1")
  end
end

return H
