-- Headless Neovim with only its built-in LSP client: prompt the agent, approve its edit through
-- window/showMessageRequest (vim.ui.select), and check the buffer changed and LspProgress fired.
-- Exits 0 on success; on failure prints why and exits 1.

local python = assert(os.getenv('AGENT_LSP_PYTHON'), 'AGENT_LSP_PYTHON not set')
local responses = assert(os.getenv('AGENT_LSP_RESPONSES'), 'AGENT_LSP_RESPONSES not set')
local project = assert(os.getenv('AGENT_LSP_PROJECT'), 'AGENT_LSP_PROJECT not set')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  os.exit(1)
end

local asked = {}
vim.ui.select = function(items, opts, on_choice)
  table.insert(asked, opts.prompt or '')
  for i, item in ipairs(items) do
    if item.title == 'Allow once' then
      return on_choice(item, i)
    end
  end
  on_choice(nil, nil)
end

local progress = {}
vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(ev)
    local value = ev.data and ev.data.params and ev.data.params.value or {}
    table.insert(progress, value.kind or '?')
  end,
})

local updates = 0
local file = project .. '/app.py'
vim.cmd.edit(vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

local client_id = vim.lsp.start({
  name = 'agent-lsp',
  cmd = { python, '-m', 'agent_lsp', 'lsp', '--fake-responses', responses },
  root_dir = project,
  handlers = {
    ['agent/update'] = function()
      updates = updates + 1
    end,
  },
}, { bufnr = buf })
if not client_id then
  fail('vim.lsp.start returned nil')
end
local client = vim.lsp.get_client_by_id(client_id)
if not vim.wait(15000, function()
  return client.initialized == true
end, 20) then
  fail('server did not initialize')
end

local function request(method, params)
  local done, answer, failure = false, nil, nil
  client:request(method, params, function(err, result)
    done, answer, failure = true, result, err
  end, buf)
  if not vim.wait(30000, function()
    return done
  end, 20) then
    fail(method .. ' timed out')
  end
  if failure then
    fail(method .. ' failed: ' .. vim.inspect(failure))
  end
  return answer
end

local session = request('agent/newSession', { cwd = project })
local result = request('agent/prompt', { sessionId = session.sessionId, prompt = 'make it return 2' })
if result.stopReason ~= 'end_turn' then
  fail('stopReason ' .. tostring(result.stopReason))
end

local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local text = table.concat(lines, '\n')
if not text:find('return 2', 1, true) then
  fail('buffer was not edited: ' .. text)
end
if not text:find('# keep me', 1, true) then
  fail('the rest of the buffer changed: ' .. text)
end
if #asked ~= 1 then
  fail('expected one permission question through vim.ui.select, got ' .. #asked)
end
if not vim.tbl_contains(progress, 'begin') or not vim.tbl_contains(progress, 'end') then
  fail('LspProgress did not fire begin and end: ' .. vim.inspect(progress))
end
if updates == 0 then
  fail('no agent/update notification arrived')
end
if vim.bo[buf].modified ~= true then
  fail('the edit should be in the unsaved buffer')
end
print(string.format('ok: %d updates, progress %s', updates, table.concat(progress, ',')))
vim.lsp.stop_client(client_id, true)
os.exit(0)
