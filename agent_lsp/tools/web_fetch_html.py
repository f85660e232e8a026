"""web_fetch's page reading: response bytes to text, and HTML to readable plain text (stdlib HTMLParser)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin


def body_to_text(body: bytes, content_type: str, url: str, encoding: str | None) -> str:
    """A response body as text: HTML made readable, other text decoded, binary content only described."""
    mime = content_type.split(";", 1)[0].strip().lower()
    head = body[:512].lstrip().lower()
    looks_html = head.startswith((b"<!doctype html", b"<html"))
    is_text = (
        not mime
        or mime.startswith("text/")
        or any(k in mime for k in ("json", "xml", "javascript", "yaml", "toml", "markdown"))
    )
    if not is_text and not looks_html:
        return f"[{mime} content, {len(body)} bytes, not shown as text]"
    try:
        decoded = body.decode(encoding or "utf-8", errors="replace")
    except LookupError:
        decoded = body.decode("utf-8", errors="replace")
    if "html" in mime or (looks_html and "xml" not in mime):
        return html_to_text(decoded, base_url=url)
    return decoded


_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"})
_BLOCK = frozenset(
    {
        "p", "div", "br", "ul", "ol", "table", "tr", "section", "article", "header", "footer", "nav", "main",
        "aside", "blockquote", "pre", "hr", "dl", "dt", "dd", "form", "figure", "figcaption", "li",
        "h1", "h2", "h3", "h4", "h5", "h6", "title", "body", "details", "summary",
    }
)  # fmt: skip


class _HtmlText(HTMLParser):
    """HTML as readable plain text: blocks on their own lines, links as "text (url)", no scripts or styles."""

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.skip_depth = 0
        self.in_head = False
        self.pre_depth = 0
        self.title: list[str] | None = None
        self.titles: list[str] = []
        self.link_href: str | None = None
        self.link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.title = []
            return
        if tag == "head":
            self.in_head = True
        elif tag == "body":
            self.in_head = False  # a document may never close its head
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth or self.in_head:
            return
        if tag in _BLOCK:
            self._newline(2 if tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6", "table", "pre") else 1)
        if tag == "pre":
            self.pre_depth += 1
        elif tag == "li":
            self._emit("- ")
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._emit("#" * int(tag[1]) + " ")
        elif tag in ("td", "th"):
            self._emit(" ")
        elif tag == "a":
            self.link_href = dict(attrs).get("href") or ""
            self.link_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            if self.title is not None:
                self.titles.append(" ".join("".join(self.title).split()))
            self.title = None
            return
        if tag == "head":
            self.in_head = False
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth or self.in_head:
            return
        if tag == "a" and self.link_href is not None:
            self._finish_link()
        elif tag == "pre":
            self.pre_depth = max(0, self.pre_depth - 1)
        if tag in _BLOCK:
            self._newline(1)

    def handle_data(self, data: str) -> None:
        if self.title is not None:
            self.title.append(data)
            return
        if self.skip_depth or self.in_head:
            return
        if not self.pre_depth:
            data = re.sub(r"\s+", " ", data)
        if self.link_href is not None:
            self.link_text.append(data)
        else:
            self._emit(data)

    def _finish_link(self) -> None:
        href = self.link_href or ""
        text = " ".join("".join(self.link_text).split())
        self.link_href = None
        url = urljoin(self.base_url, href) if href and not href.startswith(("#", "javascript:")) else ""
        if url and text and text != url:
            self._emit(f"{text} ({url})")
        else:
            self._emit(text or url)

    def _emit(self, text: str) -> None:
        if not self.pre_depth and (not self.out or self.out[-1].endswith("\n")):
            text = text.lstrip(" ")
        if text:
            self.out.append(text)

    def _newline(self, count: int) -> None:
        joined_tail = "".join(self.out[-3:])
        have = len(joined_tail) - len(joined_tail.rstrip("\n"))
        if self.out and have < count:
            self.out.append("\n" * (count - have))

    def text(self) -> str:
        if self.link_href is not None:
            self._finish_link()
        body = "".join(self.out)
        lines = [line.rstrip() for line in body.split("\n")]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
        if self.titles and self.titles[0]:
            text = f"Title: {self.titles[0]}\n\n{text}"
        return text


def html_to_text(html: str, *, base_url: str = "") -> str:
    """Readable text of an HTML document (see :class:`_HtmlText`)."""
    parser = _HtmlText(base_url)
    parser.feed(html)
    parser.close()
    return parser.text()
