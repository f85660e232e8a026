"""``agent-lsp skills ...`` and ``agent-lsp extensions ...``: managing what extends the agent, as Gemini CLI's
``gemini skills`` and ``gemini extensions`` do. Only argparse at import time; the rest loads when a command runs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

TYPE_CHECKING = False  # typing itself is kept off the start-up path (``cli`` imports this module)
if TYPE_CHECKING:
    from typing import Any, TextIO


def add_parsers(sub: Any) -> None:
    skills = sub.add_parser("skills", help="list, enable or disable agent skills (SKILL.md folders)")
    actions = skills.add_subparsers(dest="skills_command", required=True)
    listing = actions.add_parser("list", help="list the skills found for this folder")
    listing.add_argument("--cwd", type=Path, default=None, help="workspace folder (default: current directory)")
    for name in ("enable", "disable"):
        toggle = actions.add_parser(name, help=f"{name} a skill (written to settings.json)")
        toggle.add_argument("name", help="the skill's name")
        toggle.add_argument("--scope", choices=("user", "workspace"), default="user")
        toggle.add_argument("--cwd", type=Path, default=None, help="workspace folder (default: current directory)")

    ext = sub.add_parser("extensions", help="manage Gemini CLI extensions (~/.gemini/extensions)")
    acts = ext.add_subparsers(dest="extensions_command", required=True)
    acts.add_parser("list", help="list installed extensions and whether they are enabled here")
    for name, what in (("install", "copy"), ("link", "link")):
        a = acts.add_parser(name, help=f"{what} the extension in a local folder into ~/.gemini/extensions")
        a.add_argument("path", type=Path, help="the folder holding gemini-extension.json")
    a = acts.add_parser("uninstall", help="remove installed extensions")
    a.add_argument("names", nargs="+")
    for name in ("enable", "disable"):
        a = acts.add_parser(name, help=f"{name} an extension for the user (everywhere) or this workspace")
        a.add_argument("name")
        a.add_argument("--scope", choices=("user", "workspace"), default="user")
    a = acts.add_parser("validate", help="check an extension folder's gemini-extension.json")
    a.add_argument("path", type=Path)


def run(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    if args.command == "skills":
        return _skills(args, out, err)
    if args.command == "extensions":
        return _extensions(args, out, err)
    return 2


def _extensions(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_lsp.config.paths import home
    from agent_lsp.extensions import store
    from agent_lsp.extensions.manifest import ManifestError, read_manifest

    cwd = Path.cwd().resolve()
    command = args.extensions_command
    try:
        if command == "list":
            items = store.installed(cwd)
            if not items:
                out.write(f"No extensions installed in {store.extensions_dir()}.\n")
            for item in items:
                if item.manifest is None:
                    out.write(f"{item.folder.name}  [broken] {item.problem}\n")
                    continue
                m = item.manifest
                state = "enabled" if store.is_enabled(m.name, cwd) else "disabled"
                link = f", linked to {m.path}" if item.linked else ""
                out.write(f"{m.name} ({m.version})  [{state} here{link}]\n")
                if m.description:
                    out.write(f"  {m.description}\n")
                parts = [
                    f"MCP servers: {', '.join(m.mcp_servers)}" if m.mcp_servers else "",
                    f"context: {', '.join(f.name for f in m.context_files)}" if m.context_files else "",
                    f"excluded tools: {', '.join(m.exclude_tools)}" if m.exclude_tools else "",
                    "commands" if (m.path / "commands").is_dir() else "",
                    "skills" if (m.path / "skills").is_dir() else "",
                    "hooks" if (m.path / "hooks" / "hooks.json").is_file() else "",
                ]
                shown = "; ".join(x for x in parts if x)
                if shown:
                    out.write(f"  {shown}\n")
            return 0
        if command in ("install", "link"):
            m = store.install(args.path, link=command == "link")
            verb = "linked" if command == "link" else "installed"
            out.write(f"Extension {m.name!r} ({m.version}) {verb} in {store.extensions_dir() / m.name}.\n")
            if m.mcp_servers:
                out.write(f"Its MCP servers ({', '.join(m.mcp_servers)}) start only in trusted folders.\n")
            return 0
        if command == "uninstall":
            for name in args.names:
                store.uninstall(name)
                out.write(f"Extension {name!r} uninstalled.\n")
            return 0
        if command in ("enable", "disable"):
            if store.find(args.name) is None:
                raise ValueError(f"no extension named {args.name!r} is installed")
            folder = cwd if args.scope == "workspace" else home()
            store.set_enabled(args.name, command == "enable", folder)
            out.write(f"Extension {args.name!r} {command}d for {folder} and the folders below it.\n")
            return 0
        if command == "validate":
            m = read_manifest(args.path.expanduser().resolve())
            missing = [n for n in m.context_file_names if not (m.path / n).is_file() and n != "GEMINI.md"]
            for n in missing:
                err.write(f"agent-lsp: warning: context file {n!r} does not exist\n")
            out.write(f"Extension {m.name!r} ({m.version}) is valid.\n")
            return 0
    except (ManifestError, ValueError, OSError) as exc:
        err.write(f"agent-lsp: {exc}\n")
        return 1
    return 2


def _skills(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from agent_lsp.config.loader import load_settings, read_folder_trust_enabled
    from agent_lsp.config.paths import home
    from agent_lsp.config.skills import SkillSet, set_disabled, settings_file, skill_dirs
    from agent_lsp.config.trust import decide_trust
    from agent_lsp.errors import ConfigError

    cwd = (args.cwd or Path.cwd()).resolve()
    env = dict(os.environ)
    enabled = read_folder_trust_enabled(env)
    trust = decide_trust(cwd, settings_folder_trust_enabled=enabled, env=env, editor_trust=None)
    settings = load_settings([cwd], trusted=trust.trusted, env=env).settings
    skills = SkillSet(skill_dirs(cwd, home=home(), trusted=trust.trusted), settings.skills.disabled)
    for problem in skills.problems:
        err.write(f"agent-lsp: {problem}\n")
    if args.skills_command == "list":
        if not skills.all:
            out.write("No agent skills found (looked in ~/.gemini/skills, ~/.agents/skills")
            out.write(
                ", .gemini/skills and .agents/skills).\n" if trust.trusted else "; this folder is not trusted).\n"
            )
            return 0
        if not settings.skills.enabled:
            out.write("Agent skills are turned off (skills.enabled is false); they would be:\n")
        for skill in sorted(skills.all.values(), key=lambda k: k.name):
            state = "enabled" if skills.get(skill.name) is not None else "disabled"
            out.write(f"{skill.name}  [{skill.source}, {state}]\n  {skill.description}\n  {skill.location}\n")
        return 0
    if args.name not in skills.all:
        err.write(f"agent-lsp: no skill named {args.name!r} here; see `agent-lsp skills list`\n")
        return 1
    if args.scope == "workspace" and not trust.trusted:
        err.write(f"agent-lsp: {cwd} is not trusted, so its settings are not used; trust it first\n")
        return 1
    path = settings_file(args.scope, cwd)
    try:
        set_disabled(args.name, args.skills_command == "disable", path)
    except ConfigError as exc:
        err.write(f"agent-lsp: {exc}\n")
        return 1
    out.write(f"Skill {args.name!r} {args.skills_command}d in {path}.\n")
    return 0
