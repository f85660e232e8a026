"""``initialize``, ``authenticate`` and ``logout``: what the client can do, which credentials serve it, and the
Runtime built from them (lazily: the runtime's imports are paid by the first session, not by ``initialize``)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_lsp.adapters.acp import handshake
from agent_lsp.adapters.acp.jsonrpc import RequestContext, RpcError
from agent_lsp.adapters.acp.params import require_str
from agent_lsp.adapters.launch import LaunchOptions
from agent_lsp.supervisor import TaskSupervisor

if TYPE_CHECKING:
    from agent_lsp.mcp.pool import McpPool
    from agent_lsp.runtime import Runtime

log = logging.getLogger(__name__)


@dataclass
class AgentOptions:
    """What the command line decided, and the environment ``authenticate`` may add credentials to."""

    launch: LaunchOptions = field(default_factory=LaunchOptions)
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))


class Access:
    """The handshake state of one connection: the client's capabilities and the credentials' Runtime."""

    def __init__(self, options: AgentOptions) -> None:
        self.options = options
        self.env = options.env
        if self.env.get("GOOGLE_GEMINI_BASE_URL", "").strip() and not _has_key(self.env):
            # A custom endpoint (a proxy or a local fake) needs no credentials, but the client wants a key.
            self.env["GEMINI_API_KEY"] = "no-key-needed"
        self._launch_env = dict(self.env)  # what ``logout`` returns to: keys ``authenticate`` took are forgotten
        self.client = handshake.ClientCapabilities()
        self._runtime: Runtime | None = None
        self._mcp_pool: McpPool | None = None  # kept when the runtime is remade: open sessions still lease from it
        self.tasks = TaskSupervisor("acp")  # this connection's background tasks (every Runtime it builds shares it)

    @property
    def _replay(self) -> bool:
        return self.options.launch.fake_responses is not None

    async def initialize(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        problem = handshake.check_initialize(params)
        if problem:
            raise RpcError.invalid_params("protocolVersion", problem.removeprefix("protocolVersion "))
        self.client = handshake.ClientCapabilities.from_initialize(params)
        return handshake.initialize_result(
            auth_required=handshake.auth_required(self.env, replay=self._replay),
            terminal_auth=self.client.terminal_auth,
            prompt=handshake.default_prompt_capabilities(self.env, self.options.launch.model, replay=self._replay),
        )

    async def authenticate(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        method = require_str(params, "methodId")
        if not handshake.auth_required(self.env, replay=self._replay):
            return {}  # a replay model or a custom endpoint: whatever the client picked is fine
        env = handshake.credentials_env(method, meta(params), self.env)
        if env is None:
            raise RpcError.invalid_params(
                "methodId",
                f"must be {handshake.API_KEY_METHOD}, {handshake.VERTEX_METHOD} or {handshake.LOGIN_METHOD}",
            )
        from agent_lsp.errors import AuthError

        try:
            # The stored sign-in may be read from the OS keyring: off the event loop.
            described, from_env = await asyncio.to_thread(_usable_credentials, env, method)
        except AuthError as exc:
            raise RpcError.of("auth_required", str(exc)) from exc
        if from_env:
            # Kept in this process only: never written anywhere, never logged (AuthConfig hides the key).
            self.env.clear()
            self.env.update(env)
        self._runtime = None  # the next session is built with these credentials
        log.info("authenticated: %s", described)
        return {}

    async def logout(self, params: dict[str, Any], ctx: RequestContext) -> Any:
        """Remove the stored sign-in and forget any key ``authenticate`` was given. Sessions already open keep
        their model client; new ones need credentials again (the environment's own variables are not ours)."""
        from agent_lsp.config.credentials import CredentialStore

        removed = await asyncio.to_thread(CredentialStore().delete)
        self.env.clear()
        self.env.update(self._launch_env)
        self._runtime = None
        log.info("logged out (%s)", "stored sign-in removed" if removed else "nothing was stored")
        return {}

    def runtime(self) -> Runtime:
        """The Runtime for new sessions. Credentials are checked when a session opens, with its folder's
        settings and ``.env`` (a key there serves that folder): see SessionLifecycle."""
        if self._runtime is None:
            from agent_lsp.runtime import Runtime, RuntimeOptions, replay_delay

            self._runtime = Runtime(
                RuntimeOptions(
                    fake_responses=self.options.launch.fake_responses,
                    model=self.options.launch.model,
                    approval_mode=self.options.launch.approval_mode,
                    checkpointing=True,
                    chunk_delay=replay_delay(self.env),
                    env=self.env,
                ),
                tasks=self.tasks,
                mcp_pool=self._mcp_pool,
            )
            self._mcp_pool = self._runtime.mcp_pool
        return self._runtime

    async def close_servers(self) -> None:
        """Stop the MCP servers the connection's sessions left leased (each session's close releases its own)."""
        if self._mcp_pool is not None:
            await self._mcp_pool.aclose()


def _usable_credentials(env: Mapping[str, str], method: str) -> tuple[str, bool]:
    """(a secret-free description, whether they came from ``env``) of the Gemini credentials in ``env``, else of
    the stored sign-in; raises AuthError saying what to do when there are none."""
    from agent_lsp.config.credentials import CredentialError, CredentialStore
    from agent_lsp.errors import AuthError
    from agent_lsp.model.auth import resolve_auth

    missing = AuthError("No stored sign-in: run `agent-lsp login` in a terminal, then authenticate again.")
    if method != handshake.LOGIN_METHOD:
        try:
            return resolve_auth(env).describe(), True
        except AuthError as exc:
            missing = exc
    try:
        stored = CredentialStore().load()
    except CredentialError as exc:
        raise AuthError(str(exc)) from exc
    if stored is None:
        raise missing
    return f"the stored sign-in ({stored.describe()})", False


def meta(params: dict[str, Any]) -> dict[str, Any]:
    """A request's ``_meta`` object ({} when absent or malformed)."""
    value = params.get("_meta")
    return value if isinstance(value, dict) else {}


def _has_key(env: Mapping[str, str]) -> bool:
    return any(env.get(k, "").strip() for k in ("GEMINI_API_KEY", "GOOGLE_API_KEY"))
