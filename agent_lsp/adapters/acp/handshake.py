"""The ``initialize`` exchange and credentials: what the client can do, what we answer, which auth methods."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_lsp import __version__
from agent_lsp.fields import Fields

PROTOCOL_VERSION = 1
API_KEY_METHOD = "gemini-api-key"
VERTEX_METHOD = "vertex-ai"
LOGIN_METHOD = "agent-lsp-login"

AUTH_METHODS: list[dict[str, Any]] = [
    {
        "id": API_KEY_METHOD,
        "name": "Gemini API key",
        "description": "Use the key `agent-lsp login` stored or GEMINI_API_KEY, or pass the key as _meta.api-key "
        "when authenticating. Get a key at https://aistudio.google.com/apikey.",
        # Gemini CLI's hint: a client that knows it asks for the key and sends it as _meta["api-key"].
        "_meta": {"api-key": {"provider": "google"}},
    },
    {
        "id": VERTEX_METHOD,
        "name": "Vertex AI",
        "description": "Use Vertex AI: GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION with Application Default "
        "Credentials, or GOOGLE_API_KEY for express mode.",
    },
]
# ACP's terminal auth: the client runs the command that starts us with these args appended (`agent-lsp acp
# --login`) in a terminal; exit status 0 means signed in. Offered only to clients that say they can (auth.terminal).
LOGIN_TERMINAL_METHOD: dict[str, Any] = {
    "id": LOGIN_METHOD,
    "name": "Sign in from a terminal",
    "description": "Runs `agent-lsp login`: a Gemini API key, Vertex AI or an OpenAI-compatible endpoint, checked "
    "and stored in the OS keyring (or a file only you can read).",
    "type": "terminal",
    "args": ["--login"],
}


@dataclass(frozen=True)
class ClientCapabilities:
    """The parts of the client's capabilities we act on; anything malformed counts as absent."""

    read_text_file: bool = False
    write_text_file: bool = False
    terminal: bool = False
    terminal_auth: bool = False  # the client can run our terminal auth method
    notices: bool = False
    elicitation_form: bool = False  # the client shows MCP servers' forms (elicitation/create, form mode)
    lsp: bool = False  # the draft LSP proxy (RFD "Language Server Proxy"): lsp/servers, lsp/request
    compaction: bool = False  # session.compaction: compaction_update lifecycles instead of a notice
    subagents: bool = False  # subagents (unstable): a subagent run is a child session of its own
    name: str = ""

    @classmethod
    def from_initialize(cls, params: Mapping[str, Any] | None) -> ClientCapabilities:
        if not isinstance(params, Mapping):
            return cls()
        top = Fields(params)
        caps = Fields(_object(top, "clientCapabilities"))
        fs, session, auth, meta, elicitation = (
            _object(caps, key) for key in ("fs", "session", "auth", "_meta", "elicitation")
        )
        return cls(
            read_text_file=fs.get("readTextFile") is True,
            write_text_file=fs.get("writeTextFile") is True,
            terminal=caps.data.get("terminal") is True,
            # auth.terminal is ACP's opt-in; _meta["terminal-auth"] the older one (the ACP Registry's check sends it).
            terminal_auth=auth.get("terminal") is True or meta.get("terminal-auth") is True,
            notices=Fields(session).take("notices", dict, _ABSENT) is not None,
            compaction=Fields(session).take("compaction", dict, _ABSENT) is not None,
            subagents=caps.take("subagents", dict, _ABSENT) is not None,
            elicitation_form=Fields(elicitation).take("form", dict, _ABSENT) is not None,
            lsp=caps.take("lsp", dict, _ABSENT) is not None,
            name=Fields(_object(top, "clientInfo")).take("name", str, _ABSENT) or "",
        )


_ABSENT = "counts as absent"  # a capability of the wrong shape is not offered; nothing to report


def _object(fields: Fields, key: str) -> dict[str, Any]:
    """The object at ``key``, or an empty one when it is absent or not an object."""
    value: dict[str, Any] = fields.take(key, dict, _ABSENT) or {}
    return value


def check_initialize(params: Any) -> str | None:
    """Why these initialize params are unusable (naming the field), or None."""
    if not isinstance(params, Mapping):
        return "params must be an object"
    fields = Fields(params)
    must = "is required and must be a non-negative integer"
    version = fields.require("protocolVersion", int, must)
    if version is not None and version < 0:
        fields.problem("protocolVersion", must)
    return fields.problems[0] if fields.problems else None


def default_prompt_capabilities(env: Mapping[str, str], model: str | None, *, replay: bool) -> dict[str, Any]:
    """What the default model takes, as ACP's PromptCapabilities: the provider and model the environment and the
    command line choose (settings files are read only when a session opens), through the documented table
    (model/inputs.py); each session then says its own in ``_meta`` (docs/protocol-acp.md#prompt-capabilities)."""
    from agent_lsp.model.inputs import table_capabilities

    openai = bool(env.get("OPENAI_BASE_URL", "").strip() or env.get("OPENAI_MODEL", "").strip())
    provider = "replay" if replay else "openai" if openai else "gemini"
    chosen = model or (env.get("OPENAI_MODEL") if openai else env.get("GEMINI_MODEL")) or "auto"
    return table_capabilities(provider, chosen)


def initialize_result(
    *, auth_required: bool, terminal_auth: bool = False, prompt: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Our answer. We speak version 1 whatever the client asked for (the client disconnects if it cannot).
    ``prompt``: the default model's PromptCapabilities (default_prompt_capabilities)."""
    methods = [*AUTH_METHODS, LOGIN_TERMINAL_METHOD] if terminal_auth else AUTH_METHODS
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": dict(prompt) if prompt is not None else {"embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": True},
            "sessionCapabilities": {
                "list": {},
                "resume": {},
                "close": {},
                "delete": {},
                "additionalDirectories": {},
                "fork": {},  # unstable in the SDK 2.4.0 schema (schema.unstable.json)
                "systemPrompt": {},  # unstable: a client's systemPrompt, append mode only
            },
            "auth": {"logout": {}},
            # Our extension methods (docs/protocol-acp.md#extensions): a client that knows them may call them.
            # forkFromMessage: session/fork takes _meta.messageId (or _meta.messageIndex) (docs/protocol-acp.md)
            "_meta": {"agent-lsp": {"rewind": "_agent-lsp/rewind", "forkFromMessage": True}},
        },
        "authMethods": methods if auth_required else [],
        "agentInfo": {"name": "agent-lsp", "title": "agent-lsp (Gemini)", "version": __version__},
        # The steering extension as claude-agent-acp and codex-acp speak it: `_session/steering`.
        "_meta": {"steering": {"supported": True}},
    }


def credentials_env(method: str, meta: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str] | None:
    """The environment ``authenticate`` with ``method`` resolves credentials from (a key may come in ``_meta``);
    None for an unknown method."""
    out = dict(env)
    if method == API_KEY_METHOD:
        names = ("api-key", "apiKey", "api_key", "GEMINI_API_KEY")  # "api-key": Gemini CLI's name, which Zed sends
        key = next((meta[k] for k in names if isinstance(meta.get(k), str)), None)
        out.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
        if key:
            out["GEMINI_API_KEY"] = key.strip()
        return out
    if method == VERTEX_METHOD:
        out["GOOGLE_GENAI_USE_VERTEXAI"] = "true"
        for name, meta_key in (("GOOGLE_CLOUD_PROJECT", "project"), ("GOOGLE_CLOUD_LOCATION", "location")):
            if isinstance(meta.get(meta_key), str):
                out[name] = meta[meta_key]
        key = next((meta[k] for k in ("api-key", "apiKey") if isinstance(meta.get(k), str)), None)
        if key:
            out["GOOGLE_API_KEY"] = key
        return out
    if method == LOGIN_METHOD:
        return out  # the terminal method stored the sign-in: nothing to add here
    return None


def auth_required(env: Mapping[str, str], *, replay: bool) -> bool:
    """Whether the client may have to authenticate: not with a replay model, a custom Gemini endpoint, or an
    OpenAI-compatible endpoint (its key comes from the environment or settings, never through ACP)."""
    if replay:
        return False
    return not any(env.get(name, "").strip() for name in ("GOOGLE_GEMINI_BASE_URL", "OPENAI_BASE_URL", "OPENAI_MODEL"))
