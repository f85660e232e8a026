--- The editor side of code intelligence: files loaded into hidden buffers, their language servers, requests to them
--- and waiting for answers inside the coroutine Neovim runs a server request's handler in.

local E = {}

E.REQUEST_TIMEOUT_MS = 15000 -- a server that never answers
E.ATTACH_TIMEOUT_MS = 15000 -- a server starting for a file just loaded

---Run `start(done)` and wait for `done(...)` without blocking the editor (the caller runs in a coroutine, as
---Neovim's handlers for server requests do); returns what `done` got, or nothing after `ms`.
---@param start fun(done: fun(...))
---@param ms integer?
---@return ...
function E.await(start, ms)
  local co = assert(coroutine.running(), "code_intel runs inside a coroutine")
  local finished = false
  local timer ---@type uv.uv_timer_t?
  local function done(...)
    if finished then
      return
    end
    finished = true
    if timer and not timer:is_closing() then -- vim.defer_fn closes its timer when it fires
      timer:stop()
      timer:close()
    end
    local results = vim.F.pack_len(...)
    vim.schedule(function()
      coroutine.resume(co, vim.F.unpack_len(results))
    end)
  end
  if ms then
    timer = vim.defer_fn(done, math.max(ms, 0))
  end
  start(done)
  return coroutine.yield()
end

---@param ms integer
function E.sleep(ms)
  E.await(function() end, ms)
end

---An error the agent's model reads.
---@param message string
---@param code integer?
function E.fail(message, code)
  local codes = vim.lsp.protocol.ErrorCodes
  error({ agent_lsp_error = vim.lsp.rpc.rpc_response_error(code or codes.RequestFailed, message) })
end

---The buffer of a file, loaded (hidden) with its filetype set so the servers configured for it attach.
---@param uri string
---@return integer
function E.load(uri)
  local ok, name = pcall(vim.uri_to_fname, uri)
  if not ok then
    E.fail("not a file URI: " .. tostring(uri), vim.lsp.protocol.ErrorCodes.InvalidParams)
  end
  local buf = vim.fn.bufadd(name)
  if not vim.api.nvim_buf_is_loaded(buf) then
    if not vim.uv.fs_stat(name) then
      E.fail("no such file: " .. name)
    end
    vim.fn.bufload(buf)
  end
  if vim.bo[buf].filetype == "" then
    local filetype = vim.filetype.match({ buf = buf })
    if filetype then
      vim.bo[buf].filetype = filetype -- FileType: vim.lsp.enable / lspconfig attach their servers
    end
  end
  return buf
end

---The language servers attached to `buf` other than agent-lsp, once they are initialized.
---@param buf integer
---@return vim.lsp.Client[]
function E.servers(buf)
  local function attached()
    return vim.tbl_filter(function(c)
      return c.name ~= require("agent_lsp.client").NAME and not c:is_stopped()
    end, vim.lsp.get_clients({ bufnr = buf, _uninitialized = true })) -- starting ones too (0.11 lists them so)
  end
  local deadline = vim.uv.now() + E.ATTACH_TIMEOUT_MS
  while vim.uv.now() < deadline do
    local ready = true
    for _, c in ipairs(attached()) do
      ready = ready and c.initialized == true
    end
    if ready then
      break
    end
    E.sleep(50)
  end
  return vim.tbl_filter(function(c)
    return c.initialized == true
  end, attached())
end

---Send `method` to `client` and wait for its answer; returns err, result.
---@param client vim.lsp.Client
---@param method string
---@param params table
---@param buf integer?
---@return lsp.ResponseError?, any
function E.request(client, method, params, buf)
  local err, result = E.await(function(done)
    local ok = client:request(method, params, function(e, r)
      done(e, r)
    end, buf)
    if not ok then
      done({ message = client.name .. " is not running" })
    end
  end, E.REQUEST_TIMEOUT_MS)
  if err == nil and result == nil then
    return nil, nil
  end
  return err, result
end

return E
