--- Spec: :AgentLogin runs the server's `agent-lsp login` in a terminal window. A key the endpoint refuses stores
--- nothing; the right one, typed into the terminal with echo off, is checked against the endpoint and stored where
--- the server reads it (a file only the user can read here, as no keyring is configured); :checkhealth then reports
--- the sign-in, and :AgentLogout removes it.

local H = require("harness")

---Run :AgentLogin with `args`, type `key` at its hidden prompt, and return the exit code and the terminal's text.
---@param args string
---@param key string
---@return integer code
---@return string screen
local function login(args, key)
  vim.cmd("AgentLogin " .. args)
  local buf = vim.api.nvim_get_current_buf()
  local job = vim.b[buf].terminal_job_id
  H.ok(job, "a terminal job runs in the new window")
  local function screen()
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  end
  H.wait(function()
    return screen():find("API key", 1, true) ~= nil
  end, "the key prompt")
  vim.fn.chansend(job, key .. "\r")
  local code ---@type integer?
  vim.api.nvim_create_autocmd("TermClose", {
    buffer = buf,
    once = true,
    callback = function()
      code = vim.v.event.status
    end,
  })
  H.wait(function()
    return code ~= nil
  end, "agent-lsp login to exit", 60000)
  vim.wait(200) -- the last output reaches the terminal buffer
  return assert(code), screen()
end

return function()
  H.setup_endpoint()
  local url = assert(os.getenv("OPENAI_BASE_URL"))
  local key = assert(os.getenv("OPENAI_API_KEY"))
  local stored = require("agent_lsp.login").stored_path(vim.fn.environ())
  local args = "--openai --base-url " .. url .. " --model coder"

  local code, screen = login(args, "sk-not-this-one")
  H.eq(code, 41, "a refused key: " .. screen)
  H.contains(screen, "refused the")
  H.ok(not vim.uv.fs_stat(stored), "nothing stored after a refused key")

  code, screen = login(args, key)
  H.eq(code, 0, "the right key: " .. screen)
  H.contains(screen, "Signed in: OpenAI-compatible endpoint " .. url)
  H.ok(not screen:find(key, 1, true), "the key was typed with echo off:\n" .. screen)
  local stat = assert(vim.uv.fs_stat(stored), "stored in " .. stored)
  H.eq(bit.band(stat.mode, tonumber("777", 8)), tonumber("600", 8), "the file's mode")

  vim.cmd("checkhealth agent_lsp")
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  H.ok(not health:find(key, 1, true), "no key in :checkhealth")

  vim.cmd("AgentLogout")
  H.wait(function()
    return vim.uv.fs_stat(stored) == nil
  end, ":AgentLogout to remove " .. stored)
end
