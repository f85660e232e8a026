--- `:AgentAttach {file}`: images for the next prompt. Each is checked (a png, jpeg, gif or webp file, at most 5 MB)
--- and listed under the prompt buffer; the prompt goes as text plus image blocks. A model that reads no images
--- (the server's promptCapabilities.image) refuses them before anything is sent.

local M = {}

M.MAX_BYTES = 5 * 1024 * 1024
local MIME = { png = "image/png", jpg = "image/jpeg", jpeg = "image/jpeg", gif = "image/gif", webp = "image/webp" }
local NS = vim.api.nvim_create_namespace("agent_lsp_images")

---@class agent_lsp.Image
---@field name string
---@field mimeType string
---@field data string base64
---@field size integer

---@type agent_lsp.Image[]
M.pending = {}

---@param bytes integer
---@return string
local function size_text(bytes)
  if bytes >= 1024 * 1024 then
    return ("%.1f MB"):format(bytes / 1024 / 1024)
  end
  return ("%d KB"):format(math.ceil(bytes / 1024))
end

---The pending images as a line under the prompt (or none).
local function show()
  local buf = require("agent_lsp.chat.view").prompt_buf()
  vim.api.nvim_buf_clear_namespace(buf, NS, 0, -1)
  if #M.pending == 0 then
    return
  end
  local names = M.names()
  local last = vim.api.nvim_buf_line_count(buf) - 1
  vim.api.nvim_buf_set_extmark(buf, NS, last, 0, {
    virt_lines = { { { "Images: " .. table.concat(names, ", ") .. "  (:AgentAttach! clears)", "Comment" } } },
  })
end

---Why the current model cannot take images, or nil.
---@param s agent_lsp.Session?
---@return string?
function M.refused(s)
  if #M.pending == 0 or s == nil or s.image_input ~= false then
    return nil
  end
  local model = s.models and s.models.currentModelId or "This model"
  return ("agent-lsp: %s does not take images. :AgentAttach! removes them, or pick a model that reads images."):format(
    model
  )
end

---Attach the image at `path`; a clear message when it is not one, is too big or the model reads none.
---@param path string
---@return boolean
function M.attach(path)
  local full = vim.fn.fnamemodify(vim.fn.expand(path), ":p")
  local ext = (full:match("%.(%w+)$") or ""):lower()
  local mime = MIME[ext]
  if mime == nil then
    vim.notify(("agent-lsp: %s is not an image (png, jpeg, gif or webp)"):format(path), vim.log.levels.ERROR)
    return false
  end
  local size = vim.fn.getfsize(full)
  if size < 0 then
    vim.notify(("agent-lsp: cannot read %s"):format(path), vim.log.levels.ERROR)
    return false
  end
  local name = vim.fs.basename(full)
  if size > M.MAX_BYTES then
    local msg = ("agent-lsp: %s is %s; images up to %s can be attached"):format(
      name,
      size_text(size),
      size_text(M.MAX_BYTES)
    )
    vim.notify(msg, vim.log.levels.ERROR)
    return false
  end
  local file = assert(io.open(full, "rb"))
  local bytes = file:read("*a")
  file:close()
  table.insert(M.pending, { name = name, mimeType = mime, data = vim.base64.encode(bytes), size = size })
  local refused = M.refused(require("agent_lsp.session").current)
  if refused then
    vim.notify(refused, vim.log.levels.WARN) -- said now, and again if a prompt is sent with it
  end
  show()
  return true
end

---Forget the pending images (`:AgentAttach!`).
function M.clear()
  M.pending = {}
  show()
end

---The pending images as the chat names them under the user's message ("shot.png (12 KB)").
---@return string[]
function M.names()
  return vim.tbl_map(function(i)
    return ("%s (%s)"):format(i.name, size_text(i.size))
  end, M.pending)
end

---The prompt for `text`: the text alone, or content blocks with the pending images (which are then taken).
---@param text string
---@return string|table[]
function M.prompt(text)
  if #M.pending == 0 then
    return text
  end
  local blocks = { { type = "text", text = text } }
  for _, image in ipairs(M.pending) do
    blocks[#blocks + 1] = { type = "image", mimeType = image.mimeType, data = image.data }
  end
  M.clear()
  return blocks
end

return M
