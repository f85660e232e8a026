"""web_fetch's URL handling: finding URLs in a prompt, GitHub raw links, and refusing local/private addresses.

The address check is a security boundary (no fetching from this machine or private networks unless the user
allowed it): every hop of a redirect goes through ``check_address``."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from urllib.parse import urlsplit

_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?"
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def extract_urls(prompt: str) -> list[str]:
    """The distinct http(s) URLs in ``prompt``, in order, without trailing sentence punctuation."""
    found: list[str] = []
    for match in _URL.finditer(prompt):
        url = match.group(0)
        while url:
            last = url[-1]
            if last in _TRAILING or (last in _CLOSERS and url.count(_CLOSERS[last]) < url.count(last)):
                url = url[:-1]
                continue
            break
        if url not in found:
            found.append(url)
    return found


def github_raw_url(url: str) -> str:
    """``github.com/o/r/blob/ref/path`` as its raw.githubusercontent.com address; other URLs unchanged."""
    parts = urlsplit(url)
    if parts.hostname not in ("github.com", "www.github.com"):
        return url
    segments = parts.path.split("/")
    # ['', owner, repo, 'blob', ref, *path]
    if len(segments) >= 6 and segments[3] == "blob":
        path = "/".join(segments[1:3] + segments[4:])
        return f"https://raw.githubusercontent.com/{path}"
    return url


def address_problem(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why fetching from ``ip`` is refused by default (loopback, private, ...), or None for a public one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_multicast:
        return "multicast"
    if ip.is_private:
        return "private"
    if ip.is_reserved or not ip.is_global:
        return "reserved"
    return None


class Refused(Exception):
    """A URL the tool will not fetch; the message is for the model."""


def allowed_host(url: str, allowed_private_hosts: frozenset[str]) -> bool:
    """Whether the user exempted the URL's host (``host`` or ``host:port``) from the private-address refusal."""
    parts = urlsplit(github_raw_url(url))
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        return False
    return host in allowed_private_hosts or f"{host}:{port}" in allowed_private_hosts


async def check_address(url: str, *, allow_private: bool, allowed_private_hosts: frozenset[str]) -> None:
    """Raise :class:`Refused` unless ``url`` is http(s) with a host that resolves only to public addresses
    (or private fetching is allowed, in general or for this host)."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise Refused(f"only http and https URLs can be fetched, not {parts.scheme or 'this'}: {url}")
    host = (parts.hostname or "").lower()
    if not host:
        raise Refused(f"no host name in {url}")
    if allow_private:
        return
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as exc:
        raise Refused(f"bad port in {url}") from exc
    if host in allowed_private_hosts or f"{host}:{port}" in allowed_private_hosts:
        return
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise Refused(f"could not resolve {host}: {exc.strerror or exc}") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    for ip in addresses:
        why = address_problem(ip)
        if why:
            raise Refused(
                f"refused to fetch {url}: {host} is a {why} address ({ip}). Fetching from this machine or "
                "private networks is disabled; the user can allow it in the web fetch settings."
            )
