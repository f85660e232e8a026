"""The replay scripts and project files each Lua spec in tests/nvim_plugin/lua/specs/ runs against."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_lsp.vocabulary import APPROVAL_MODES
from tests.mcp.third_party_servers import NODE_BIN
from tests.replay_lines import call_line, text_line

STATS = "def mean(values):\n    return sum(values) / (len(values) - 1)\n"
FIX = {
    "file_path": "stats.py",
    "instruction": "Divide by the number of values.",
    "old_string": "    return sum(values) / (len(values) - 1)",
    "new_string": "    return sum(values) / len(values)",
}
# Two separate changes, for the inline review: the first hunk is accepted, the second rejected.
TWO = STATS + "\n\ndef total(values):\n    return sum(values) + 0\n"
TWO_PROPOSED = TWO.replace("(len(values) - 1)", "len(values)").replace("sum(values) + 0", "sum(values)")
TWO_RESULT = TWO.replace("(len(values) - 1)", "len(values)")
# A long stream, then a slow command: the cancel sent on the first chunk usually lands mid-stream, and
# always before the turn could end.
CANCEL_CHUNKS = 5000
# The models the fake OpenAI-compatible endpoint lists in GET /v1/models for the endpoint_models spec.
ENDPOINT_MODELS = ("coder", "small")
SLOW_COMMAND = {"command": "sleep 30", "description": "Wait"}
# The MCP reference server (installed by scripts/install-mcp-servers.sh) for the mcp spec.
EVERYTHING = {"command": str(NODE_BIN / "mcp-server-everything"), "args": ["stdio"]}


def stream_then_call(texts: list[str], name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One model response streaming ``texts``, then calling tool ``name`` in its last chunk."""
    line = text_line(*texts)
    last = line["response"][-1]["candidates"][0]
    del last["finishReason"]
    call = {"functionCall": {"name": name, "args": args, "id": f"call-{name}"}}
    line["response"].append({"candidates": [{"content": {"role": "model", "parts": [call]}, "finishReason": "STOP"}]})
    return line


@dataclass(frozen=True)
class Scenario:
    script: list[dict[str, Any]]
    files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    home_files: dict[str, str] = field(default_factory=dict)  # under the spec's temp HOME
    # When set, the spec runs against a fake OpenAI-compatible endpoint listing these models (the first is
    # OPENAI_MODEL) instead of the replay model.
    openai_models: tuple[str, ...] = ()
    # When set, the script is served by the fake Gemini server (tests/fakes/fake_gemini.py) instead of the replay
    # model, and the test can read what each model request carried (SpecResult.model_requests).
    gemini: bool = False


TODOS = {
    "todos": [
        {"description": "Look around", "status": "completed"},
        {"description": "Report", "status": "pending"},
    ]
}

# The code-intelligence spec's project: area() defined in one file, called three times from another.
SHAPES = (
    '"""Shapes."""\n\n\ndef area(width: int, height: int) -> int:\n    """Return the area of a rectangle."""\n'
    '    return width * height\n\n\nclass Square:\n    """A square."""\n'
)
USES = (
    "from shapes import area\n\n\ndef total() -> int:\n    return area(2, 3) + area(4, 5)\n\n\n"
    'def label() -> str:\n    return "é" + str(area(1, 1))\n'
)
KINDS = (
    "class Shape:\n    def size(self) -> int:\n        raise NotImplementedError\n\n\n"
    "class Circle(Shape):\n    def size(self) -> int:\n        return 3\n"
)
CODE_INTEL_FILES = {
    "pyproject.toml": "",
    "shapes.py": SHAPES,
    "main.py": USES,
    "kinds.py": KINDS,
    "notes.txt": "area\n",
}
LANGUAGE_SERVERS = Path(__file__).resolve().parents[2] / ".deps" / "language-servers"
PYRIGHT = {"AGENT_NVIM_PYRIGHT": str(LANGUAGE_SERVERS / "py" / "bin" / "basedpyright-langserver")}


def call_with_id(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """call_line with its own call id, so the model's requests tell several calls of one tool apart."""
    line = call_line(name, args)
    line["response"][0]["candidates"][0]["content"]["parts"][-1]["functionCall"]["id"] = call_id
    return line


CODE_INTEL_AGENT_SCRIPT = [
    call_with_id("def", "lsp", {"operation": "goToDefinition", "file_path": "main.py", "line": 5, "character": 12}),
    call_with_id("callers", "lsp", {"operation": "incomingCalls", "file_path": "shapes.py", "line": 4, "character": 5}),
    text_line("area is in shapes.py, called by total and label."),
    call_with_id(
        "break",
        "replace",
        {
            "file_path": "main.py",
            "instruction": "Call something else.",
            "old_string": "str(area(1, 1))",
            "new_string": "str(missing_name(1, 1))",
        },
    ),
    text_line("Done."),
    call_with_id(
        "rename", "rename_symbol", {"file_path": "shapes.py", "line": 4, "character": 5, "new_name": "surface"}
    ),
    text_line("Renamed."),
    # A file the editor had not loaded, with an old error: the edit must not present it as the edit's own.
    call_with_id(
        "old", "replace", {"file_path": "old.py", "instruction": "c", "old_string": "# top", "new_string": "# top."}
    ),
    text_line("Commented."),
]

REPORT = {"SummaryOfFindings": "main.py prints hi.", "ExplorationTrace": [], "RelevantLocations": []}

SCENARIOS: dict[str, Scenario] = {
    "chat": Scenario(
        [
            call_line("list_directory", {"dir_path": "."}, thought="Looking around"),
            call_line("write_todos", TODOS),
            # A subagent: one tool line in the chat, its steps folded under it.
            call_line("invoke_agent", {"agent_name": "codebase_investigator", "prompt": "What does main.py do?"}),
            call_line("read_file", {"file_path": "main.py"}, thought="Reading main"),
            call_line("complete_task", {"report": REPORT}),
            text_line("The project ", "has one file."),
            # A subagent that edits: its write_file asks the session's question, marked as the subagent's.
            call_line("invoke_agent", {"agent_name": "generalist", "prompt": "Write notes.txt"}),
            call_line("write_file", {"file_path": "notes.txt", "content": "notes\n"}),
            call_line("complete_task", {"result": {"response": "written"}}),
            text_line("Wrote notes.txt."),
        ],
        {"main.py": "print('hi')\n"},
    ),
    "permission_accept": Scenario([call_line("replace", FIX), text_line("Fixed the divisor.")], {"stats.py": STATS}),
    "unsaved_kept": Scenario([call_line("replace", FIX), text_line("Fixed the divisor.")], {"stats.py": STATS}),
    "permission_reject": Scenario(
        [call_line("replace", FIX), text_line("Understood, no change.")], {"stats.py": STATS}
    ),
    "new_file": Scenario(
        [
            call_line("write_file", {"file_path": "pkg/util.py", "content": "def double(x):\n    return 2 * x\n"}),
            text_line("Added pkg/util.py."),
        ],
        {"main.py": "print('hi')\n"},
    ),
    "append": Scenario(
        [
            call_line(
                "replace",
                {
                    "file_path": "stats.py",
                    "instruction": "Add total().",
                    "old_string": "(len(values) - 1)\n",
                    "new_string": "(len(values) - 1)\n\ndef total(values):\n    return sum(values)\n",
                },
            ),
            call_line(
                "replace",
                {
                    "file_path": "notes.txt",
                    "instruction": "Add a line.",
                    "old_string": "first\n",
                    "new_string": "first\nsecond\n",
                },
            ),
            text_line("Appended."),
        ],
        {"stats.py": STATS, "notes.txt": "first\n"},
    ),
    "cancel_permission": Scenario([call_line("replace", FIX), text_line("Never sent.")], {"stats.py": STATS}),
    "permission_edit": Scenario([call_line("replace", FIX), text_line("Fixed.")], {"stats.py": STATS}),
    "cancel": Scenario(
        [
            stream_then_call([f"word{i} " for i in range(CANCEL_CHUNKS)], "run_shell_command", SLOW_COMMAND),
            text_line("AFTER THE TOOL"),
        ],
        env={"AGENT_NVIM_CHUNKS": str(CANCEL_CHUNKS)},
    ),
    "sessions": Scenario([text_line("Hello ", "back.")]),
    "rewind": Scenario(
        [
            # Call ids of their own: with one id for both, a rewind after a rewind reads the wrong file record
            # (store/checkpoints/rewind.py takes an id's last records, the rewound call's among them).
            call_with_id("write-one", "write_file", {"file_path": "one.txt", "content": "agent one\n"}),
            text_line("Wrote one."),
            call_with_id("write-two", "write_file", {"file_path": "two.txt", "content": "agent two\n"}),
            text_line("Wrote two."),
            text_line("Wrote three."),  # the edited second message, sent again after the rewind
        ],
        {"one.txt": "mine one\n"},
        gemini=True,
    ),
    "rewind_buffers": Scenario(
        [
            call_line("replace", {"file_path": "app.py", "old_string": "app = 1", "new_string": "app = 2"}),
            call_line("replace", {"file_path": "util.py", "old_string": "util = 1", "new_string": "util = 2"}),
            text_line("Edited both."),
            text_line("Hi."),
        ],
        {"app.py": "app = 1\n", "util.py": "util = 1\n"},
        gemini=True,
    ),
    # A write Neovim refuses (a read-only file), then an edit computed against a hidden buffer whose file changed on
    # disk: each is answered applied=false, and the model reads why; its retry against the file's text lands. Then a
    # shell command rewrites the file, and the hidden buffer follows.
    "refused_write": Scenario(
        [
            call_line("replace", {"file_path": "ro.py", "old_string": "x = 1", "new_string": "x = 2"}),
            text_line("Could not write ro.py."),
            call_line("replace", {"file_path": "util.py", "old_string": "u = 1", "new_string": "u = 2"}),
            call_line("replace", {"file_path": "util.py", "old_string": "u = 55", "new_string": "u = 6"}),
            text_line("Done."),
            # A shell command rewrites util.py: its hidden buffer follows at the turn's end.
            call_line("run_shell_command", {"command": "printf 'u = 7\\n' > util.py", "description": "Rewrite"}),
            text_line("Rewrote it."),
        ],
        {"ro.py": "x = 1\n", "util.py": "u = 1\n"},
        gemini=True,
    ),
    # The chat's rendering of what the server sends (compaction, messageId, subagent nesting, usage), fed as
    # agent/update notifications to the real plugin; steering against a server that lists agent/steer.
    "render": Scenario([text_line("Hello.")]),
    # Steering: the turn waits on a permission question while a message is sent into it; after the command the
    # model's next request carries the message, and the same turn answers it.
    "steer": Scenario(
        [
            call_line("run_shell_command", {"command": "echo steered-run", "description": "Say it"}),
            text_line("Ran it, and bye."),
        ],
        gemini=True,
    ),
    "mode": Scenario([call_line("replace", FIX), text_line("Fixed.")], {"stats.py": STATS}),
    "actions": Scenario(
        [
            text_line("It divides by one ", "less than the count."),
            text_line("That is a bug."),
            text_line("Hints added."),
        ],
        {"stats.py": STATS},
    ),
    "health": Scenario([]),
    "permission_rename": Scenario([]),
    "inline_partial": Scenario(
        [
            call_line("write_file", {"file_path": "stats.py", "content": TWO_PROPOSED}),
            text_line("Kept the mean fix; ", "total() stays as it was."),
        ],
        {"stats.py": TWO},
    ),
    "inline_handover": Scenario(
        [
            call_line("write_file", {"file_path": "stats.py", "content": TWO_PROPOSED}),
            text_line("Applied your version."),
            call_line(
                "replace",
                {
                    "file_path": "stats.py",
                    "instruction": "Shout.",
                    "old_string": "def total(values):",
                    "new_string": "def TOTAL(values):",
                },
            ),
            text_line("Left it alone."),
        ],
        {"stats.py": TWO},
    ),
    "permission_options": Scenario([]),
    # Both server processes of the spec replay the script from its start: the same call, asked once only.
    "permission_save": Scenario(
        [call_line("run_shell_command", {"command": "echo saved-rule", "description": "Say it"}), text_line("Ran it.")],
        home_files={".gemini/settings.json": '{"security": {"enablePermanentToolApproval": true}}\n'},
    ),
    "endpoint_models": Scenario([], openai_models=ENDPOINT_MODELS),
    "login": Scenario([], openai_models=("coder",)),
    "server_lists": Scenario([], env={"AGENT_NVIM_MODES": ",".join(APPROVAL_MODES)}),
    "own_mode": Scenario([]),
    "mention": Scenario(
        [text_line("Read ", "main.py."), text_line("A small picture; one warning.")],
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            ".gitignore": "build/\n",
            "build/hidden.py": "HIDDEN = 1\n",
            "src/app/main.py": "MAIN_MARKER = 'main-file-content-7'\ndef run(): pass\n",
        },
    ),
    "mcp": Scenario(
        [text_line("Sunny in Lyon.")],
        home_files={".gemini/settings.json": json.dumps({"mcpServers": {"everything": EVERYTHING}})},
    ),
    "code_intel": Scenario([], CODE_INTEL_FILES, env=PYRIGHT),
    "code_intel_encoding": Scenario([], CODE_INTEL_FILES),
    "rename_review": Scenario(
        [
            call_with_id(
                "rename", "rename_symbol", {"file_path": "shapes.py", "line": 4, "character": 5, "new_name": "surface"}
            ),
            text_line("Renamed."),
        ],
        CODE_INTEL_FILES,
        env=PYRIGHT,
        gemini=True,
    ),
    "code_intel_agent": Scenario(
        CODE_INTEL_AGENT_SCRIPT,
        {**CODE_INTEL_FILES, "old.py": "# top\nx = undefined_old_name\n"},
        env=PYRIGHT,
        gemini=True,
    ),
    "custom_command": Scenario(
        [text_line("Committed: ", "the custom command ran.")],
        {
            ".gemini/commands/git/commit.toml": 'description = "Write a commit message"\n'
            'prompt = "Write a commit message for: {{args}}"\n'
        },
    ),
}
