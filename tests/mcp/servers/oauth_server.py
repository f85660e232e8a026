"""An OAuth-protected MCP server for the sign-in tests, built on the MCP SDK's server auth support: streamable HTTP
at /mcp behind bearer tokens, and its own authorization server (metadata, dynamic client registration, PKCE,
refresh tokens) that approves every authorization request at once, as a user clicking "allow" would.

Usage: oauth_server.py [--access-ttl SECONDS] [--sse]
With --sse the protected endpoint is SSE at /sse (and /messages/) instead of streamable HTTP at /mcp.
Prints ``PORT <n>`` before serving. Test-only routes, outside the auth: GET /test/stats (counts of registrations,
authorizations, code exchanges, refreshes, tokens refused), POST /test/expire (every access token expires now),
POST /test/revoke (every access and refresh token is forgotten).
"""

from __future__ import annotations

import argparse
import secrets
import socket
import time
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, AuthorizationCode, RefreshToken, construct_redirect_uri
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

SCOPE = "mcp"


class AutoApprovingProvider:
    """An in-memory authorization server: every client may register, every authorization is granted."""

    def __init__(self, issuer: str, access_ttl: int) -> None:
        self.issuer = issuer
        self.access_ttl = access_ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.stats = {"registrations": 0, "authorizations": 0, "exchanges": 0, "refreshes": 0, "refused": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.stats["registrations"] += 1

    async def authorize(self, client: OAuthClientInformationFull, params: Any) -> str:
        assert client.client_id is not None
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.stats["authorizations"] += 1
        # The issuer goes with the answer (RFC 9207), as Gemini CLI insists when it knows the issuer.
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=self.issuer)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[code.code]
        self.stats["exchanges"] += 1
        return self._issue(code.client_id, code.scopes)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        self.stats["refreshes"] += 1
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            self.stats["refused"] += 1
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + self.access_ttl
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, expires_at=expires)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access, expires_in=self.access_ttl, refresh_token=refresh, scope=" ".join(scopes)
        )


def build(base: str, provider: AutoApprovingProvider, endpoint: str = "/mcp") -> MCPServer:
    auth = AuthSettings(
        issuer_url=base,  # type: ignore[arg-type]  # pydantic parses the str
        resource_server_url=f"{base}{endpoint}",  # type: ignore[arg-type]
        validate_token_resource=False,
        required_scopes=[SCOPE],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        revocation_options=RevocationOptions(enabled=True),
    )
    server = MCPServer("secure", log_level="WARNING", auth_server_provider=provider, auth=auth)

    @server.tool(description="Return the text, and which client sent it.")
    def echo(text: str) -> str:
        token = get_access_token()
        return f"{text} (for a signed-in client: {token is not None})"

    @server.custom_route("/test/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse(provider.stats)

    @server.custom_route("/test/expire", methods=["POST"])
    async def expire(request: Request) -> Response:
        for token in provider.access.values():
            token.expires_at = int(time.time()) - 1
        return JSONResponse({"expired": len(provider.access)})

    @server.custom_route("/test/revoke", methods=["POST"])
    async def revoke(request: Request) -> Response:
        provider.access.clear()
        provider.refresh.clear()
        return JSONResponse({"revoked": True})

    return server


def main() -> None:
    import anyio
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--access-ttl", type=int, default=3600)
    parser.add_argument("--sse", action="store_true")
    opts = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    server = build(base, AutoApprovingProvider(base, opts.access_ttl), "/sse" if opts.sse else "/mcp")
    app = server.sse_app() if opts.sse else server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {port}", flush=True)
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
