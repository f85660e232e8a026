"""``agent-lsp skills ...`` (and the seam for ``extensions ...``): managing what extends the agent, as
Gemini CLI's ``gemini skills`` does. Only argparse at import time; the rest loads when a command runs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
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


def run(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    if args.command == "skills":
        return _skills(args, out, err)
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
