"""Read HTML the way a person reads a page: visible text, and controls by accessible name."""

from html.parser import HTMLParser


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.elements: list[tuple[str, dict[str, str]]] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        if tag in ("script", "style", "title"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "title") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.text.append(" ".join(data.split()))


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def visible_text(html: str) -> str:
    """The page's text, whitespace folded, without scripts and styles."""
    return " ".join(parse(html).text)


def elements(html: str, tag: str, **attrs: str) -> list[dict[str, str]]:
    """Attributes of every `tag` element whose attributes include attrs."""
    return [
        found
        for name, found in parse(html).elements
        if name == tag and all(found.get(k.rstrip("_")) == v for k, v in attrs.items())
    ]
