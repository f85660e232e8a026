"""Where MCP servers' OAuth tokens are kept: ``~/.agent-lsp/mcp-oauth.json`` (mode 0600), one entry per server URL,
so one server's token never serves another; an entry's secrets go to the OS keyring when a real one is available,
as ``agent-lsp login``'s key does. Nothing here is ever logged."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_lsp.config import paths
from agent_lsp.config.credentials import CredentialError, keyring_backend, read_private, write_private

log = logging.getLogger(__name__)

FILE_NAME = "mcp-oauth.json"
KEYRING_SERVICE = "agent-lsp-mcp-oauth"

Entry = dict[str, Any]  # {"tokens": OAuthToken as JSON, "expiresAt": epoch seconds or None, "client": client info}


TokenStoreError = CredentialError  # the token file cannot be read (broken JSON, an unreadable file)


class OAuthTokenStore:
    """Reads and writes the entries of the token file. Calls block (a file, perhaps a keyring): run them in a
    thread from the event loop. A lock keeps one process's read-modify-write cycles apart."""

    _lock = threading.Lock()

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.state_dir() / FILE_NAME

    def load(self, url: str) -> Entry | None:
        """The entry of the server at ``url``, or None."""
        with self._lock:
            record = self._read()
        entry = record.get(url)
        if not isinstance(entry, dict):
            return None
        if entry.get("keyring") is True:
            return self._from_keyring(url)
        return entry

    def save(self, url: str, entry: Mapping[str, Any]) -> None:
        """Store ``entry`` for ``url`` in place of any earlier one."""
        with self._lock:
            record = self._read()
            record[url] = self._to_keyring(url, entry) or dict(entry)
            write_private(self.path, {"version": 1, "servers": record})

    def delete(self, url: str) -> bool:
        """Forget ``url``'s entry (its keyring part too); False when there was none."""
        with self._lock:
            record = self._read()
            entry = record.pop(url, None)
            if entry is None:
                return False
            if isinstance(entry, dict) and entry.get("keyring") is True:
                backend = keyring_backend()
                if backend is not None:
                    try:
                        backend.delete_password(KEYRING_SERVICE, url)
                    except Exception as exc:  # already gone: the file entry goes anyway
                        log.debug("keyring delete: %s", type(exc).__name__)
            write_private(self.path, {"version": 1, "servers": record})
            return True

    def _read(self) -> dict[str, Any]:
        data = read_private(self.path, "delete it and sign in again")
        if data is None:
            return {}
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict):
            raise TokenStoreError(f"{self.path} is not an MCP token file: delete it and sign in again")
        return servers

    def _to_keyring(self, url: str, entry: Mapping[str, Any]) -> Entry | None:
        """The file's stand-in for ``entry`` when the keyring took it; None to keep it in the file."""
        backend = keyring_backend()
        if backend is None:
            return None
        try:
            backend.set_password(KEYRING_SERVICE, url, json.dumps(entry))
        except Exception as exc:  # the user-only file still keeps the token safe
            log.warning("the keyring refused an MCP token (%s); keeping it in %s", type(exc).__name__, self.path)
            return None
        return {"keyring": True}

    def _from_keyring(self, url: str) -> Entry | None:
        backend = keyring_backend()
        if backend is None:
            return None  # the keyring is gone: as if never signed in
        try:
            text = backend.get_password(KEYRING_SERVICE, url)
            entry = json.loads(text) if isinstance(text, str) else None
        except Exception as exc:
            log.debug("keyring read: %s", type(exc).__name__)
            return None
        return entry if isinstance(entry, dict) else None


def expires_at(expires_in: float | None, now: float | None = None) -> float | None:
    """The absolute time a token given ``expires_in`` seconds ago expires (the SDK keeps only the relative one)."""
    if expires_in is None:
        return None
    return (now if now is not None else time.time()) + float(expires_in)
