--- Spec: the agent's `lsp` tool and the diagnostics after its edit, through the real server: the plugin advertises
--- experimental.agent.codeIntel, the server asks it (agent/codeIntel, agent/diagnostics) and basedpyright, attached
--- to the project's buffers in this Neovim, answers; the agent server starts no language server of its own. The test
--- reads what the tools answered the model from the fake Gemini server's requests. Last, rename_symbol applies
--- basedpyright's rename to both files' buffers, and an edit of a file Neovim had not loaded (an old error in it)
--- does not pass the old error off as the edit's.

local H = require("harness")
local A = require("intel_ask")

---Command lines of the processes under `pid`, recursively.
---@param pid integer
---@return string[]
local function descendants(pid)
  local out = {}
  for _, child in ipairs(vim.api.nvim_get_proc_children(pid)) do
    local info = vim.api.nvim_get_proc(child)
    out[#out + 1] = ("%d %s"):format(child, info and info.name or "?")
    local proc = "/proc/" .. child .. "/cmdline"
    local cmdline = vim.uv.fs_stat(proc) and vim.fn.readfile(proc, "b")
    if cmdline and cmdline[1] then
      out[#out] = out[#out] .. " " .. cmdline[1]:gsub("%z", " ")
    end
    vim.list_extend(out, descendants(child))
  end
  return out
end

return function()
  A.enable("basedpyright", { assert(os.getenv("AGENT_NVIM_PYRIGHT"), "AGENT_NVIM_PYRIGHT"), "--stdio" })
  H.setup_endpoint({ approval_mode = "auto_edit" })
  local done = H.record("AgentTurnDone")
  require("agent_lsp").prompt("Where is area defined, and who calls it?")
  H.wait(function()
    return #done == 1
  end, "the navigation turn", 60000)
  require("agent_lsp").prompt("Call something else in label")
  H.wait(function()
    return #done == 2
  end, "the edit turn", 60000)
  local main = vim.fn.bufnr(H.project .. "/main.py")
  H.contains(table.concat(vim.api.nvim_buf_get_lines(main, 0, -1, false), "\n"), "missing_name(1, 1)", "the edit")
  require("agent_lsp").prompt("Rename area to surface")
  H.wait(function()
    return #done == 3
  end, "the rename turn", 60000)
  local text = table.concat(vim.api.nvim_buf_get_lines(main, 0, -1, false), "\n")
  H.contains(text, "from shapes import surface", "the rename in main.py's import")
  H.contains(text, "return surface(2, 3) + surface(4, 5)", "and its calls")
  local shapes = vim.fn.bufnr(H.project .. "/shapes.py")
  H.eq(vim.api.nvim_buf_get_lines(shapes, 3, 4, false), { "def surface(width: int, height: int) -> int:" }, "shapes.py")
  require("agent_lsp").prompt("Comment old.py")
  H.wait(function()
    return #done == 4
  end, "the turn editing a file not loaded before", 60000)

  -- Who answered: basedpyright runs under Neovim; nothing under the agent server is a language server.
  local agent = vim.lsp.get_clients({ name = "agent-lsp" })[1]
  local everything = descendants(vim.fn.getpid())
  local pyright = vim.tbl_filter(function(p)
    return p:find("basedpyright", 1, true) ~= nil
  end, everything)
  H.ok(#pyright > 0, "basedpyright runs under Neovim: " .. table.concat(everything, "\n"))
  local server_pid = agent and agent.rpc and agent.rpc.pid
  local under_agent = {} ---@type string[]
  for _, p in ipairs(everything) do
    local pid = tonumber(p:match("^(%d+)"))
    if pid and p:find("agent_lsp", 1, true) and (server_pid == nil or pid == server_pid) then
      vim.list_extend(under_agent, descendants(pid))
    end
  end
  for _, p in ipairs(under_agent) do
    H.ok(not p:find("pyright", 1, true) and not p:find("jedi", 1, true), "a language server under the agent: " .. p)
  end
  local said = "code_intel agent ok: %d processes under the agent server, none a language server\n"
  io.stdout:write(said:format(#under_agent))
end
