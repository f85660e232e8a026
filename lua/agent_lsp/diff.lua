--- The diff review tab: the file (as its buffer holds it) beside the agent's editable proposal.

local config = require("agent_lsp.config")
local keymaps = require("agent_lsp.keymaps")

local M = {}

---@class agent_lsp.ReviewOpts
---@field path string
---@field old_text string? nil (or vim.NIL) for a file the agent creates
---@field new_text string
---@field title string?

---@alias agent_lsp.ReviewDecision "accept"|"reject"|nil

---@param text string
---@return string[]
local function to_lines(text)
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    lines[#lines] = nil
  end
  return lines
end

---The proposal's text as the user left it, or nil when unchanged.
---@param buf integer
---@param original string
---@return string?
function M.modified_text(buf, original)
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if original:sub(-1) == "\n" then
    text = text .. "\n"
  end
  return text ~= original and text or nil
end

---Buffer-local normal-mode mappings that are put back as they were afterwards.
---@param buf integer
---@param maps table<string, fun()>
---@return fun() restore
local function map_temporarily(buf, maps)
  return keymaps.map_temporarily(buf, maps, "agent-lsp diff review")
end

---The buffer of the file under review, loaded if needed; a scratch buffer for a file not yet on disk.
---@param opts agent_lsp.ReviewOpts
---@return integer buf, boolean scratch
local function file_buffer(opts)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf) == opts.path then
      vim.fn.bufload(buf)
      return buf, false
    end
  end
  if vim.uv.fs_stat(opts.path) then
    local buf = vim.fn.bufadd(opts.path)
    vim.fn.bufload(buf)
    vim.bo[buf].buflisted = true
    return buf, false
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, "agent://new/" .. opts.path)
  vim.bo[buf].bufhidden = "wipe"
  local old = opts.old_text
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, type(old) == "string" and to_lines(old) or {})
  vim.bo[buf].modifiable = false
  return buf, true
end

---A key as the person types it (`<localleader>a` → `\a`), escaped for a winbar.
---@param lhs string
---@return string
function M.shown_key(lhs)
  local leader = vim.g.maplocalleader or "\\"
  local shown = lhs:gsub("<[Ll]ocal[Ll]eader>", function()
    return leader
  end)
  return (shown:gsub("%%", "%%%%"))
end

---Open the review tab. `done(decision, modified_text)` is called once: "accept" (with the edited text when
---the user changed the proposal), "reject", or nil when the tab was closed without deciding.
---@param opts agent_lsp.ReviewOpts
---@param done fun(decision: agent_lsp.ReviewDecision, modified: string?)
---@return { close: fun(), tab: integer, file_buf: integer, proposal_buf: integer }
function M.review(opts, done)
  local keys = config.options.keymaps
  vim.cmd.tabnew()
  local tab = vim.api.nvim_get_current_tabpage()
  local left = vim.api.nvim_get_current_win()
  vim.bo[vim.api.nvim_get_current_buf()].bufhidden = "wipe" -- the empty buffer :tabnew made
  local file_buf = file_buffer(opts)
  vim.api.nvim_win_set_buf(left, file_buf)
  vim.cmd.diffthis()

  vim.cmd("rightbelow vsplit")
  local right = vim.api.nvim_get_current_win()
  local proposal = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(proposal, "agent://proposal/" .. opts.path)
  vim.bo[proposal].buftype = "nofile"
  vim.bo[proposal].bufhidden = "wipe"
  vim.bo[proposal].swapfile = false
  vim.api.nvim_buf_set_lines(proposal, 0, -1, false, to_lines(opts.new_text))
  vim.api.nvim_win_set_buf(right, proposal)
  local ft = vim.bo[file_buf].filetype
  vim.bo[proposal].filetype = ft ~= "" and ft or (vim.filetype.match({ filename = opts.path }) or "")
  vim.cmd.diffthis()
  vim.wo[right].winbar = ("Proposal%s · %s accept · %s reject · edit it, then accept your version"):format(
    opts.title and (": " .. opts.title:gsub("%%", "%%%%")) or "",
    M.shown_key(keys.accept),
    M.shown_key(keys.reject)
  )
  vim.wo[left].winbar = "Current: " .. vim.fn.fnamemodify(opts.path, ":~:."):gsub("%%", "%%%%")

  local decided = false
  local restores = {} ---@type (fun())[]

  ---@param decision agent_lsp.ReviewDecision
  local function finish(decision)
    if decided then
      return
    end
    decided = true
    local modified = nil ---@type string?
    if decision == "accept" and vim.api.nvim_buf_is_valid(proposal) then
      modified = M.modified_text(proposal, opts.new_text)
    end
    for _, restore in ipairs(restores) do
      restore()
    end
    if vim.api.nvim_win_is_valid(left) then
      vim.api.nvim_win_call(left, function()
        vim.cmd.diffoff()
      end)
    end
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd.tabclose(vim.api.nvim_tabpage_get_number(tab))
    end
    done(decision, modified)
  end

  local maps = {
    [keys.accept] = function()
      finish("accept")
    end,
    [keys.reject] = function()
      finish("reject")
    end,
  }
  restores[#restores + 1] = map_temporarily(proposal, maps)
  restores[#restores + 1] = map_temporarily(file_buf, maps)
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = proposal,
    once = true,
    callback = function()
      vim.schedule(function()
        finish(nil)
      end)
    end,
  })
  return {
    close = function()
      finish(nil)
    end,
    tab = tab,
    file_buf = file_buf,
    proposal_buf = proposal,
  }
end

return M
