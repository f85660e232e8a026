"""The MCP SDK's OAuth client (``mcp.client.auth.OAuthClientProvider``: authorization code with PKCE, dynamic
client registration, refresh) over our token store, and the sign-in that drives it. Imported with the SDK, by
``mcp/oauth.py``'s functions only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, OAuthToken
from pydantic import ValidationError

from agent_lsp.mcp.config import OAuthSettings
from agent_lsp.mcp.oauth_callback import CALLBACK_PATH, CallbackListener, SignInFailed
from agent_lsp.mcp.oauth_store import Entry, OAuthTokenStore, TokenStoreError, expires_at

Present = Callable[[str], Awaitable[None]]  # show the user the authorization URL (the front end's way)

CALLBACK_TIMEOUT_S = 300.0  # as long as Gemini CLI waits for the browser
_PROBE = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
_PROTOCOL_VERSION = "2025-06-18"


async def run_sign_in(
    name: str, url: str, sse: bool, headers: dict[str, str], settings: OAuthSettings, present: Present, timeout_s: float
) -> int:
    """The whole flow against ``url``, started by a probe the server refuses: its 401 → discovery →
    registration → ``present`` (the browser) → the code at our listener → tokens stored. The probe's last status.
    The probe is what the transport sends first: a POST (streamable HTTP), the event stream's GET (SSE), whose
    body is never read."""
    listener = CallbackListener(settings.redirect_uri)
    await listener.start()
    try:
        auth = McpOAuth(name, url, settings, OAuthTokenStore(), present=present, listener=listener, timeout_s=timeout_s)
        headers = {
            **headers,
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": _PROTOCOL_VERSION,
        }
        async with (
            httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30.0)) as client,
            client.stream("GET" if sse else "POST", url, json=None if sse else _PROBE, headers=headers) as response,
        ):
            return response.status_code
    except SignInFailed:
        raise
    except (OAuthFlowError, ValidationError, httpx2.HTTPError, TokenStoreError) as exc:
        raise SignInFailed(_one_line(exc)) from exc
    finally:
        await listener.aclose()


class McpOAuth(OAuthClientProvider):
    """The SDK's OAuth provider over our token store. Without ``present`` (a connection's transport) a 401 is
    not answered with a sign-in: the request ends with that 401 and ``problem`` says what to do."""

    def __init__(
        self,
        name: str,
        url: str,
        settings: OAuthSettings,
        store: OAuthTokenStore,
        *,
        present: Present | None = None,
        listener: CallbackListener | None = None,
        timeout_s: float = CALLBACK_TIMEOUT_S,
    ) -> None:
        self.name = name
        self.problem: str | None = None  # why the server refused us, for a person
        self.had_tokens = False  # whether a stored token was offered (then it was refused)
        self._present = present
        self._listener = listener
        self._timeout_s = timeout_s
        redirect = listener.redirect_uri if listener is not None else settings.redirect_uri
        storage = StoredTokens(store, url, settings, redirect, fresh=present is not None)
        metadata = OAuthClientMetadata(
            client_name="agent-lsp",
            redirect_uris=[redirect or f"http://127.0.0.1{CALLBACK_PATH}"],  # type: ignore[list-item]  # pydantic parses the str
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="client_secret_post" if settings.client_secret else "none",
            scope=" ".join(settings.scopes) if settings.scopes else None,
        )
        super().__init__(url, metadata, storage, redirect_handler=self._show, callback_handler=self._wait)
        if settings.authorization_url and settings.token_url:
            # Configured endpoints: used when discovery finds no authorization server metadata.
            issuer = "{0.scheme}://{0.netloc}".format(urlsplit(settings.authorization_url))
            self.context.oauth_metadata = OAuthMetadata.model_validate(
                {
                    "issuer": issuer,
                    "authorization_endpoint": settings.authorization_url,
                    "token_endpoint": settings.token_url,
                    "registration_endpoint": settings.registration_url,
                }
            )

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if outgoing is request and self._present is None and _challenged(response):
                    self.problem = self._refusal(configured="authorization" in request.headers)
                    return  # the caller gets this 401: the transport fails the request at once
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _initialize(self) -> None:
        await super()._initialize()
        tokens = self.context.current_tokens
        self.had_tokens = tokens is not None
        if tokens is not None and tokens.expires_in is not None:
            # The SDK keeps expiry only in memory; the store gave the seconds left, so a token that expired while
            # we were not running is refreshed before it is sent.
            self.context.update_token_expiry(tokens)

    def _refusal(self, *, configured: bool = False) -> str:
        if self.had_tokens:
            return f"it refused the stored OAuth token: sign in again with `/mcp auth {self.name}`"
        if configured:  # the entry's own `headers` carry an Authorization: that is what was refused
            return (
                f"it refused the Authorization header of its settings; fix it, or sign in with `/mcp auth {self.name}`"
            )
        return f"it requires authentication: sign in with `/mcp auth {self.name}`"

    async def _show(self, authorization_url: str) -> None:
        if self._present is None:
            raise SignInFailed(self._refusal())
        await self._present(authorization_url)

    async def _wait(self) -> AuthorizationCodeResult:
        if self._listener is None:
            raise SignInFailed(self._refusal())
        answer = await self._listener.wait(self._timeout_s)
        return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"), iss=answer.get("iss"))


class StoredTokens:
    """The SDK's ``TokenStorage`` for one server URL over the token store. ``fresh`` (a new sign-in) offers no
    stored token; a stored registration is offered only if it lists this sign-in's redirect URI."""

    def __init__(
        self, store: OAuthTokenStore, url: str, settings: OAuthSettings, redirect_uri: str | None, *, fresh: bool
    ) -> None:
        self._store, self._url, self._settings = store, url, settings
        self._redirect_uri, self._fresh = redirect_uri, fresh
        self._entry: Entry | None = None

    async def get_tokens(self) -> OAuthToken | None:
        entry = await self._load()
        raw = entry.get("tokens")
        if self._fresh or not isinstance(raw, dict):
            return None
        try:
            tokens = OAuthToken.model_validate(raw)
        except ValidationError:
            return None
        at = entry.get("expiresAt")
        if isinstance(at, int | float):
            tokens.expires_in = max(0, int(at - time.time()))
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        entry = {
            **await self._load(),
            "tokens": tokens.model_dump(mode="json", exclude_none=True),
            "expiresAt": expires_at(tokens.expires_in),
        }
        await self._save(entry)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        s = self._settings
        if s.client_id:
            return OAuthClientInformationFull(
                client_id=s.client_id,
                client_secret=s.client_secret,
                redirect_uris=[self._redirect_uri] if self._redirect_uri else None,  # type: ignore[list-item]
                token_endpoint_auth_method="client_secret_post" if s.client_secret else "none",
                grant_types=["authorization_code", "refresh_token"],
            )
        raw = (await self._load()).get("client")
        if not isinstance(raw, dict):
            return None
        try:
            info = OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None
        if self._redirect_uri and self._redirect_uri not in [str(u) for u in info.redirect_uris or ()]:
            return None  # registered for another port: register again
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await self._save({**await self._load(), "client": client_info.model_dump(mode="json", exclude_none=True)})

    async def _load(self) -> Entry:
        if self._entry is None:
            self._entry = await asyncio.to_thread(self._store.load, self._url) or {}
        return self._entry

    async def _save(self, entry: Entry) -> None:
        await asyncio.to_thread(self._store.save, self._url, entry)
        self._entry = entry


def _challenged(response: httpx2.Response) -> bool:
    """A 401, or a 403 asking for more scope: the SDK would start a sign-in."""
    if response.status_code == 401:
        return True
    return response.status_code == 403 and "insufficient_scope" in response.headers.get("www-authenticate", "")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
