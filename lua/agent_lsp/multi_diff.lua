--- The review of a change to several files (a rename): every file's hunks in one diff buffer, accepted or
--- rejected as a whole (the server asked one question for all of them).

local config = require("agent_lsp.config")

local M = {}

---@class agent_lsp.FileDiff
---@field path string
---@field oldText string? nil (or vim.NIL) for a file the agent creates
---@field newText string

---@param text string?
---@return string
local function with_newline(text)
  if type(text) ~= "string" or text == "" then
    return ""
  end
  return text:sub(-1) == "\n" and text or (text .. "\n")
end

---The unified diff of every file, each under its own header, as lines.
---@param diffs agent_lsp.FileDiff[]
---@return string[]
function M.lines(diffs)
  local out = {} ---@type string[]
  for _, diff in ipairs(diffs) do
    local shown = vim.fn.fnamemodify(diff.path, ":~:.")
    local created = type(diff.oldText) ~= "string"
    out[#out + 1] = ("diff %s"):format(shown)
    out[#out + 1] = created and "--- /dev/null" or ("--- a/" .. shown)
    out[#out + 1] = "+++ b/" .. shown
    local hunks = vim.diff(with_newline(diff.oldText), with_newline(diff.newText)) --[=[@as string]=]
    for _, line in ipairs(vim.split(hunks, "\n", { plain = true, trimempty = true })) do
      out[#out + 1] = line
    end
  end
  return out
end

---Open the review tab. `done(decision)` is called once: "accept", "reject", or nil when the tab was closed
---without deciding.
---@param opts { diffs: agent_lsp.FileDiff[], title: string? }
---@param done fun(decision: agent_lsp.ReviewDecision)
---@return { close: fun(), tab: integer, buf: integer }
function M.review(opts, done)
  local keys = config.options.keymaps
  local shown_key = require("agent_lsp.diff").shown_key
  vim.cmd.tabnew()
  local tab = vim.api.nvim_get_current_tabpage()
  local win = vim.api.nvim_get_current_win()
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(buf, ("agent://proposal/%d-files/%d"):format(#opts.diffs, buf))
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.lines(opts.diffs))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "diff"
  vim.wo[win].winbar = ("Proposal%s · %d files · %s accept all · %s reject"):format(
    opts.title and (": " .. opts.title:gsub("%%", "%%%%")) or "",
    #opts.diffs,
    shown_key(keys.accept),
    shown_key(keys.reject)
  )

  local decided = false
  ---@param decision agent_lsp.ReviewDecision
  local function finish(decision)
    if decided then
      return
    end
    decided = true
    if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd.tabclose(vim.api.nvim_tabpage_get_number(tab))
    end
    done(decision)
  end
  for lhs, decision in pairs({ [keys.accept] = "accept", [keys.reject] = "reject" }) do
    vim.keymap.set("n", lhs, function()
      finish(decision)
    end, { buffer = buf, nowait = true, desc = "agent-lsp review: " .. decision })
  end
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
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
    buf = buf,
  }
end

return M
