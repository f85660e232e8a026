"""The session's FileSystem over LSP: reads see the editor's unsaved buffers, writes are workspace edits.

Every change a tool makes goes to the editor as ``workspace/applyEdit`` (minimal TextEdits against the
version the editor has, or CreateFile for a new file), so the user sees it, can undo it, and keeps cursor
and marks. Only a client without ``workspace.applyEdit`` gets the file written to disk by the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agent_lsp.adapters.lsp import client as caps
from agent_lsp.adapters.lsp.client import ClientRequestError, LspClient
from agent_lsp.adapters.lsp.documents import Document, DocumentStore, canonical, path_to_uri, uri_to_path
from agent_lsp.adapters.lsp.edits import change_edit, create_edit, text_edits
from agent_lsp.errors import ToolError
from agent_lsp.workspace.filesystem import LocalFileSystem, check_unchanged, read_disk_text

log = logging.getLogger(__name__)
SYNC_WAIT_S = 2.0  # how long to wait for the editor's didChange after it applied our edit


class LspFileSystem:
    """One per server, shared by its sessions (the editor's buffers are the same for all of them)."""

    def __init__(self, documents: DocumentStore, client: LspClient) -> None:
        self.documents = documents
        self.client = client
        self._disk = LocalFileSystem()
        # Text the editor holds for files it has not opened for us (applied edits, not yet saved).
        self._unsaved: dict[Path, str] = {}
        self._changed = asyncio.Event()

    # --- the editor's account of its buffers (textDocument/didOpen, didChange, didClose, didSave) ----------

    def did_open(self, params: Mapping[str, Any]) -> None:
        doc = params["textDocument"]
        opened = self.documents.open(doc["uri"], doc["text"], doc.get("version"), doc.get("languageId", ""))
        self._document_changed(opened.path if opened else None)

    def did_change(self, params: Mapping[str, Any]) -> None:
        doc = params["textDocument"]
        self.documents.change(doc["uri"], doc.get("version"), params.get("contentChanges") or [])
        self._document_changed()

    def did_close(self, params: Mapping[str, Any]) -> None:
        uri = params["textDocument"]["uri"]
        self.documents.close(uri)
        self._document_changed(uri_to_path(uri))

    def did_save(self, params: Mapping[str, Any]) -> None:
        path = uri_to_path(params["textDocument"]["uri"])
        if path is not None:
            self._unsaved.pop(canonical(path), None)

    def _document_changed(self, path: Path | None = None) -> None:
        if path is not None:
            self._unsaved.pop(canonical(path), None)
        self._changed.set()

    # --- FileSystem ------------------------------------------------------------------------------------

    async def read_text(self, path: Path) -> str:
        doc = self.documents.get(path)
        if doc is not None:
            return doc.text
        unsaved = self._unsaved.get(canonical(path))
        if unsaved is not None:
            return unsaved
        return await self._disk.read_text(path)

    def open_buffers(self) -> dict[Path, str]:
        result: dict[Path, str] = dict(self._unsaved)
        for doc in self.documents.documents():
            try:
                on_disk: str | None = read_disk_text(doc.path)
            except OSError:
                on_disk = None
            if on_disk != doc.text:
                result[doc.path] = doc.text
        return result

    async def write_text(self, path: Path, content: str, *, expected: str | None, label: str = "") -> None:
        client_caps = self.client.capabilities
        edits: list[Any] = []
        if expected is not None and caps.capability(client_caps, "workspace.applyEdit"):
            # The minimal edits of a large rewrite take a while: computed off the event loop, and before the
            # buffer is checked below, so nothing is awaited between that check and the edit going out.
            edits = await asyncio.to_thread(text_edits, expected, content)
        versioned = caps.uses_document_changes(client_caps)
        doc = self.documents.get(path)
        if doc is not None and doc.reported is not None and versioned:
            # A versioned edit needs the version the editor is at: give its late didChange a moment.
            await self._await_report(doc)
            doc = self.documents.get(path)
            if doc is not None and doc.reported is not None:
                # Still silent (Eglot reports only once Emacs sees input again): its version moved by an
                # amount we cannot know, but its text is our last edit's. Send this edit without a version.
                versioned = False
        current = await self._current(path, doc)
        check_unchanged(path, expected, current, where=" in the editor" if doc is not None else "")
        if not caps.capability(client_caps, "workspace.applyEdit"):
            await self._disk.write_text(path, content, expected=expected, label=label)
            return
        if expected is None and not caps.can_create_files(client_caps):
            # The editor cannot create files through an edit: create it on disk, where it will find it.
            await self._disk.write_text(path, content, expected=None, label=label)
            return
        # Annotations only name the change (for the editor's undo and preview lists). The user already
        # approved it through the permission question, or chose a mode that does not ask, so it is never
        # marked needsConfirmation: a client honouring the flag would ask a second time.
        annotate = caps.supports_annotations(client_caps)
        shown = f"Agent: {label}" if label else f"Agent: edit {path.name}"
        if expected is None:
            uri = path_to_uri(path)
            edit = create_edit(uri, content, label=shown, annotate=annotate, needs_confirmation=False)
        else:
            uri = doc.uri if doc is not None else path_to_uri(path)
            version = doc.version if doc is not None else None
            edit = change_edit(
                uri,
                version,
                edits,
                label=shown,
                annotate=annotate,
                needs_confirmation=False,
                document_changes=versioned,
            )
        changes_when_sent = doc.changes if doc is not None else 0
        self._changed.clear()
        try:
            answer = await self.client.request("workspace/applyEdit", {"label": shown, "edit": edit})
        except ClientRequestError as exc:
            raise ToolError(f"The editor refused the change to {path}: {exc}. Nothing was written.") from exc
        applied = isinstance(answer, dict) and answer.get("applied") is True
        if not applied:
            reason = answer.get("failureReason") if isinstance(answer, dict) else None
            raise ToolError(
                f"The editor did not apply the change to {path}"
                + (f": {reason}" if reason else " (the user declined it or the document changed)")
                + ". Nothing was written; re-read the file before trying again.",
                "edit_not_applied",
            )
        if doc is None:
            self._unsaved[canonical(path)] = content
            return
        # The editor holds ``content`` now, whenever its didChange comes: never work from the old copy.
        self.documents.applied(doc, content, changes_when_sent)
        if doc.text != content:
            await self._await_sync(doc, content)  # it reported part of the edit already: wait for the rest

    async def _current(self, path: Path, doc: Document | None) -> str | None:
        if doc is not None:
            return doc.text
        try:
            return await self.read_text(path)
        except FileNotFoundError:
            return None

    async def _await_report(self, doc: Document) -> None:
        """Wait (briefly) for the editor to report the edit it applied, for the version it is now at."""
        if not await self._wait_for(doc, lambda: doc.reported is None):
            log.info("no didChange yet for %s; sending the next edit without a version", doc.uri)

    async def _await_sync(self, doc: Document, content: str) -> None:
        """Let the editor's didChange for our edit arrive, so the next read sees the edited buffer."""
        if not await self._wait_for(doc, lambda: doc.text == content):
            log.warning("no didChange for %s after the editor applied an edit", doc.uri)

    async def _wait_for(self, doc: Document, done: Callable[[], bool]) -> bool:
        """Wait up to SYNC_WAIT_S for ``done`` (re-checked at each didChange); True unless time ran out.
        A document closed or replaced meanwhile ends the wait too: there is nothing left to wait for."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SYNC_WAIT_S
        while not done() and self.documents.get(doc.path) is doc:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)
        return True
