"""The shell of the self-contained HTML pages (a game's replay, a tournament): one document with
its styles and script inline and nothing to load, marked by a generator line so that a later run
replaces only a page it wrote."""

from __future__ import annotations

from html import escape


def document(*, title: str, generator: str, css: str, header: str, main: str, js: str = "") -> str:
    """The page: ``title`` (plain text), the ``generator`` meta line, styles, the header's and the
    main part's HTML, and a script when ``js`` is given."""
    script = f"<script>\n{js}</script>\n" if js else ""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"{generator}\n<title>{escape(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n"
        f"<header>\n{header}\n</header>\n<main>\n{main}\n</main>\n{script}</body>\n</html>\n"
    )
