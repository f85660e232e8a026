"""The mcp SDK's ClientSession, declaring only the elicitation mode we handle (imported when a server connects).

The SDK declares both elicitation modes, form and URL, whenever an elicitation callback is given; we answer forms
only (mcp/elicitation.py), so a server must not be told that URL requests would be followed.
"""

from __future__ import annotations

from mcp import ClientSession
from mcp_types import ClientCapabilities, ElicitationCapability, FormElicitationCapability


class FormElicitingSession(ClientSession):
    """A ClientSession whose ``elicitation`` capability is ``{"form": {}}`` (no ``url``)."""

    def _build_capabilities(self, version: str) -> ClientCapabilities:
        # The SDK offers no parameter for the modes; its capability builder is the one place they are declared.
        caps = super()._build_capabilities(version)
        if caps.elicitation is None:
            return caps
        return caps.model_copy(update={"elicitation": ElicitationCapability(form=FormElicitationCapability())})
