--- Starts `agent-lsp lsp` with vim.lsp.start, finds the running client and sends requests through it.

local config = require("agent_lsp.config")

local M = {}

M.NAME = "agent-lsp"

---The client capabilities Neovim advertises, plus what only this plugin understands.
---@return lsp.ClientCapabilities
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = vim.tbl_deep_extend("force", caps.experimental or {}, {
    agent = {
      permissionRequests = true,
      compaction = true, -- compaction_update items (the server sends them over LSP either way)
      subagents = true, -- a subagent's updates nested under its call (_meta["agent-lsp"].subagent)
      codeIntel = require("agent_lsp.code_intel").capability(),
    },
  })
  return caps
end

---The workspace root for a buffer: the nearest root marker, else the current directory.
---@param bufnr integer?
---@return string
function M.root(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local found = nil ---@type string?
  if name ~= "" and vim.bo[bufnr].buftype == "" then
    found = vim.fs.root(bufnr, config.options.root_markers)
  end
  return vim.fs.normalize(found or vim.fn.getcwd())
end

---Server-to-client methods this plugin answers; resolved lazily so start-up loads nothing else.
---@return table<string, lsp.Handler>
local function handlers()
  return {
    ["agent/update"] = function(_, params, ctx)
      require("agent_lsp.updates").on_update(params, ctx.client_id)
    end,
    ["agent/requestPermission"] = function(err, params, ctx)
      return require("agent_lsp.permission").handler(err, params, ctx)
    end,
    ["workspace/applyEdit"] = function(err, params, ctx)
      return require("agent_lsp.apply_edit").handler(err, params, ctx)
    end,
    ["agent/codeIntel"] = function(err, params, ctx)
      return require("agent_lsp.code_intel").code_intel_handler(err, params, ctx)
    end,
    ["agent/diagnostics"] = function(err, params, ctx)
      return require("agent_lsp.code_intel").diagnostics_handler(err, params, ctx)
    end,
  }
end

---Client-side versions of the server's code-action commands, so they open the chat and ask for input here.
---@return table<string, fun(command: lsp.Command, ctx: table)>
local function commands()
  ---@param name string
  local function run(name)
    return function(command, ctx)
      require("agent_lsp.actions").run_command(name, command, ctx)
    end
  end
  return {
    ["agent.fix"] = run("agent.fix"),
    ["agent.explain"] = run("agent.explain"),
    ["agent.editSelection"] = run("agent.editSelection"),
  }
end

---@param root string
---@return vim.lsp.ClientConfig
function M.client_config(root)
  local opts = config.options
  return {
    name = M.NAME,
    cmd = config.cmd(opts),
    cmd_env = opts.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    capabilities = M.capabilities(),
    handlers = handlers(),
    commands = commands(),
    init_options = config.server_settings(opts),
  }
end

---A running agent-lsp client whose workspace holds `root` (the first one when `root` is nil).
---@param root string?
---@return vim.lsp.Client?
function M.find(root)
  for _, client in ipairs(vim.lsp.get_clients({ name = M.NAME })) do
    if client:is_stopped() then
      goto continue -- shutting down (:LspStop): it would refuse every request; a new one is started instead
    end
    if root == nil or client.root_dir == root then
      return client
    end
    for _, folder in ipairs(client.workspace_folders or {}) do
      if vim.uri_to_fname(folder.uri) == root then
        return client
      end
    end
    ::continue::
  end
  return nil
end

---Whether a buffer holds a file the server should mirror (not the chat, a terminal or a help page).
---@param bufnr integer
---@return boolean
function M.is_file_buffer(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr)
    and vim.bo[bufnr].buftype == ""
    and vim.api.nvim_buf_get_name(bufnr) ~= ""
    and not vim.api.nvim_buf_get_name(bufnr):match("^%a[%w+.-]*://")
end

---Start (or reuse) the client for a file buffer's workspace and attach the buffer to it.
---@param bufnr integer
---@return integer? client_id
function M.attach(bufnr)
  if not M.is_file_buffer(bufnr) then
    return nil
  end
  local root = M.root(bufnr)
  return vim.lsp.start(M.client_config(root), { bufnr = bufnr })
end

---The client for the current buffer's workspace (the buffer attached when it is a file); from a non-file
---buffer such as the chat, any running client, else one started for the current directory.
---@return vim.lsp.Client?
function M.ensure()
  local bufnr = vim.api.nvim_get_current_buf()
  local id ---@type integer?
  if M.is_file_buffer(bufnr) then
    id = M.attach(bufnr)
  else
    local root = M.root(bufnr)
    local client = M.find(root) or M.find(nil)
    if client then
      return client
    end
    id = vim.lsp.start(M.client_config(root), { attach = false })
  end
  return id and vim.lsp.get_client_by_id(id) or nil
end

---Send a request; `callback` gets (err, result). Returns the request id, or nil when it could not be sent.
---@param client vim.lsp.Client
---@param method string
---@param params table
---@param callback fun(err: lsp.ResponseError?, result: any)
---@param bufnr integer?
---@return integer?
function M.request(client, method, params, callback, bufnr)
  local ok, id = client:request(method, params, function(err, result)
    callback(err, result)
  end, bufnr)
  if not ok then
    callback({ code = -32803, message = "the agent-lsp server is not running" }, nil)
    return nil
  end
  return id
end

---Report a request error to the user (the server's message says what to do).
---@param what string
---@param err lsp.ResponseError|string
function M.report(what, err)
  local message = type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
  vim.notify(("agent-lsp: %s failed: %s"):format(what, message), vim.log.levels.ERROR)
end

return M
