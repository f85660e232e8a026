"""docs/editors/neovim.md's "defaults shown" setup block is the plugin's defaults: headless Neovim evaluates the
documented table and compares it with ``require("agent_lsp.config").defaults`` (vim.deep_equal)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.nvim_plugin.conftest import NVIM, REPO

CHECK = """
local doc = assert(io.open(vim.env.DOC_BLOCK)):read("*a")
local documented = assert(loadstring(doc))()
local defaults = require("agent_lsp.config").defaults
local differ = {}
for key in pairs(vim.tbl_extend("force", {}, documented, defaults)) do
  if not vim.deep_equal(documented[key], defaults[key]) then
    differ[key] = { documented = documented[key], code = defaults[key] }
  end
end
io.stdout:write(vim.json.encode({ keys = vim.tbl_count(documented), differ = differ }))
"""


def test_the_documented_setup_defaults_are_the_plugins(tmp_path: Path) -> None:
    text = (REPO / "docs" / "editors" / "neovim.md").read_text()
    block = re.search(r'```lua\nrequire\("agent_lsp"\)\.setup\(\{\n(.*?)\n\}\)\n```', text, re.S)
    assert block is not None, "the options block of docs/editors/neovim.md"
    (tmp_path / "block.lua").write_text("return {\n" + block.group(1) + "\n}\n")
    (tmp_path / "check.lua").write_text(CHECK)
    done = subprocess.run(
        [
            str(NVIM),
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            "NONE",
            "--cmd",
            f"set rtp^={REPO}",
            "-l",
            str(tmp_path / "check.lua"),
        ],
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "DOC_BLOCK": str(tmp_path / "block.lua")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["keys"] >= 5  # the non-nil ones: root_markers, auto_attach, save_after_edit, chat, keymaps
    assert result["differ"] == {} or result["differ"] == [], result["differ"]
