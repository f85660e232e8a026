"""What a release publishes, checked before it is published: one name, one version, one repository URL, the ACP
Registry entry in the registry's format, and release workflows that GitHub would accept.

``acp-registry-agent.schema.json`` beside this file is a reference copy of the registry's ``agent.schema.json``
(repository agentclientprotocol/registry, commit 789271302bcb8e82afb651b4417424d6f85cfae2, taken 2026-11-26): the
registry publishes it in no package, and the tests read nothing from outside the repository. Refresh it when the
registry changes its format.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import agent_lsp

REPO = Path(__file__).resolve().parents[2]
DIST = "agent-lsp-server"
ENTRY = REPO / "registry" / "agent-lsp"
REGISTRY_SCHEMA = Path(__file__).with_name("acp-registry-agent.schema.json")


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _entry() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ENTRY / "agent.json").read_text(encoding="utf-8"))
    return data


def _manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPO / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
    return data


def test_one_name_and_one_version(project_wheel: Path) -> None:
    project = _pyproject()["project"]
    assert project["name"] == DIST
    assert "version" not in project and project["dynamic"] == ["version"], "the version lives in agent_lsp only"
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "agent_lsp.__version__"}
    assert project["scripts"] == {"agent-lsp": "agent_lsp.cli:main"}, "the command stays agent-lsp"
    version = agent_lsp.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), "the registry and the marketplaces need x.y.z"
    assert project_wheel.name == f"agent_lsp_server-{version}-py3-none-any.whl"
    with zipfile.ZipFile(project_wheel) as whl:
        meta = whl.read(f"agent_lsp_server-{version}.dist-info/METADATA").decode()
    assert f"\nName: {DIST}\n" in meta and f"\nVersion: {version}\n" in meta
    assert _manifest()["version"] == version, "the VS Code extension bundles the server of its own version"
    lock = json.loads((REPO / "vscode-extension" / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == lock["packages"][""]["version"] == version
    changelog = (REPO / "vscode-extension" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {version}\n" in changelog, "the Marketplace shows the changelog of the published version"
    assert _entry()["version"] == version
    assert _entry()["distribution"]["uvx"]["package"] == f"{DIST}=={version}"


def test_the_repository_url_is_written_once_and_agreed_everywhere() -> None:
    source: str = _pyproject()["project"]["urls"]["Source"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", source)
    assert all(url.startswith(source) for url in _pyproject()["project"]["urls"].values())
    manifest = _manifest()
    assert manifest["repository"]["url"] == f"{source}.git"
    assert manifest["homepage"].startswith(f"{source}/") and manifest["bugs"]["url"] == f"{source}/issues"
    assert _entry()["repository"] == source
    owner_repo = source.removeprefix("https://github.com/")
    texts = {
        path: path.read_text(encoding="utf-8")
        for path in [
            REPO / "README.md",
            REPO / "doc" / "agent-lsp.txt",
            REPO / "vscode-extension" / "README.md",
            *(REPO / "docs").rglob("*.md"),
            *(REPO / "lua").rglob("*.lua"),
        ]
    }
    assert f'"{owner_repo}", build = ":AgentLspInstall"' in texts[REPO / "README.md"], "the lazy.nvim line"
    for path, text in texts.items():
        assert "<owner>/agent-lsp" not in text, f"a placeholder in {path}"
        for other in re.findall(r"https://github\.com/agent-lsp/[\w.-]+", text):
            assert other == source, f"{path} names {other}, not {source}"


def test_the_registry_entry_is_in_the_registrys_format() -> None:
    schema = json.loads(REGISTRY_SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    entry = _entry()
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(entry)]
    assert not errors, errors
    # What the registry's CI checks besides the schema.
    assert entry["id"] == ENTRY.name, "the folder is named after the id"
    assert "icon" not in entry, "the registry's build sets the icon's URL from icon.svg"
    uvx = entry["distribution"]["uvx"]
    assert uvx["cmd"] in _pyproject()["project"]["scripts"] and uvx["args"] == ["acp"]
    project = _pyproject()["project"]
    assert entry["license"] == project["license"]
    assert entry["authors"] == [a["name"] for a in project["authors"]]
    assert entry["description"].startswith(project["description"].split(",")[0].rstrip("."))


def test_the_registry_icon_is_a_16px_monochrome_svg() -> None:
    text = (ENTRY / "icon.svg").read_text(encoding="utf-8")
    assert "<!--" not in text, "the registry embeds icons in MDX, which comments break"
    root = ET.fromstring(text)
    assert root.tag in ("svg", "{http://www.w3.org/2000/svg}svg")
    assert root.get("width") == root.get("height") == "16" and root.get("viewBox") == "0 0 16 16"
    paints: list[str] = []
    for element in root.iter():
        paints += [element.get(a, "").strip().lower() for a in ("fill", "stroke") if element.get(a) is not None]
        assert "style" not in element.attrib and not element.tag.endswith("style"), "paint by attributes only"
    assert paints and set(paints) <= {"currentcolor", "none", "inherit"}, paints
    assert "currentcolor" in paints, "themes colour the icon through currentColor"


def test_no_guide_sends_anyone_to_pypis_agent_lsp() -> None:
    """``agent-lsp`` on PyPI is another project; every install line names agent-lsp-server."""
    files = [
        REPO / "README.md",
        *(REPO / "docs").rglob("*.md"),
        REPO / "vscode-extension" / "README.md",
        *(REPO / "vscode-extension" / "src").rglob("*.ts"),
        *(REPO / "vscode-extension" / "media").rglob("*.md"),
        *(REPO / "lua").rglob("*.lua"),
        *(REPO / "doc").rglob("*.txt"),
    ]
    wrong = re.compile(r"\b(pip|pipx|uv tool|uv pip) (install|upgrade) agent-lsp(?![\w-])|uvx agent-lsp(?![\w-])")
    offenders = []
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if wrong.search(line) and "doesNotMatch" not in line:
                offenders.append(f"{file.relative_to(REPO)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
    assert f"uv tool install {DIST}" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_workflows_are_valid_github_actions() -> None:
    """GitHub's own workflow schema, as check-jsonschema ships it (no network)."""
    check = shutil.which("check-jsonschema", path=sysconfig.get_path("scripts"))
    assert check, "check-jsonschema is missing: make install (it is a dev dependency)"
    workflows = sorted((REPO / ".github" / "workflows").glob("*.yml"))
    assert {w.name for w in workflows} >= {"test.yml", "release.yml"}
    proc = subprocess.run(
        [check, "--builtin-schema", "vendor.github-workflows", *map(str, workflows)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", ["test.yml", "release.yml"])
def test_the_workflows_install_and_publish_what_this_repository_builds(name: str) -> None:
    text = (REPO / ".github" / "workflows" / name).read_text(encoding="utf-8")
    if name == "test.yml":
        for runner in ("ubuntu-latest", "macos-latest", "windows-latest"):
            assert runner in text
        assert "make test" in text
    else:
        assert "id-token: write" in text and "pypa/gh-action-pypi-publish" in text, "PyPI trusted publishing"
        vsce = _manifest()["devDependencies"]["@vscode/vsce"]
        assert f"@vscode/vsce@{vsce} publish" in text, "the vsce that packages the extension publishes it"
        assert re.search(r"ovsx@[\d.]+ publish", text)
        assert "registry/agent-lsp" in text and "agentclientprotocol/registry" in text
        assert "uv build" in text and "make vsix" in text


def test_a_registry_pull_request_only_when_more_than_the_version_changed(tmp_path: Path) -> None:
    script = REPO / "scripts" / "registry_pr_needed.py"

    def needed(theirs: Path) -> bool:
        proc = subprocess.run([sys.executable, str(script), str(ENTRY), str(theirs)], timeout=30, check=False)
        assert proc.returncode in (0, 1)
        return proc.returncode == 0

    theirs = tmp_path / "agent-lsp"
    assert needed(theirs), "not listed yet"
    theirs.mkdir()
    shutil.copy(ENTRY / "icon.svg", theirs / "icon.svg")
    listed = _entry()
    listed["version"] = "0.0.9"
    listed["distribution"]["uvx"]["package"] = f"{DIST}==0.0.9"
    (theirs / "agent.json").write_text(json.dumps(listed), encoding="utf-8")
    assert not needed(theirs), "the registry's hourly update bumps the version itself"
    listed["description"] = "an older description"
    (theirs / "agent.json").write_text(json.dumps(listed), encoding="utf-8")
    assert needed(theirs)
