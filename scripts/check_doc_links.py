#!/usr/bin/env python3
"""Checks the links of the project's Markdown: README.md and docs/*.md.

Every relative link ([text](path), [text](path#anchor), [text](#anchor)) must point at a file
or directory that exists in the repository, and an #anchor at a heading of the target file
(GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats). Links
must not leave the repository. README.md must have at most 260 lines (the README guides; the
manual is in docs/). Code spans and fenced code blocks are not read for links.

Usage: check_doc_links.py SOURCE_DIR. Exit status 1 lists every broken link as FILE:LINE: ...
"""
import os
import re
import sys

README_MAX_LINES = 260

LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def strip_code_spans(line):
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def split_fences(text):
    """([(line number, line) outside fenced code blocks], the line of a fence left open or None)."""
    prose, fence, opened = [], None, None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence, opened = mark, number
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
            continue
        if fence is None:
            prose.append((number, line))
    return prose, opened if fence is not None else None


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    return split_fences(text)[0]


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # keeps letters, digits, _, -, space
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        result = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
        for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
            result.add(m.group(1))
        cache[path] = result
    return cache[path]


def check_file(root, path, problems):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(path, root)
    for number, line in prose_lines(text):
        targets = []
        m = REF_DEF.match(line)
        if m:
            targets.append(m.group(1))
        plain = strip_code_spans(line)
        targets += LINK.findall(plain) + IMAGE.findall(plain)
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            file_part, _, anchor = target.partition("#")
            if file_part:
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            else:
                dest = path
            if os.path.commonpath([os.path.abspath(dest), os.path.abspath(root)]) != os.path.abspath(root):
                problems.append(f"{rel}:{number}: {target}: leaves the repository")
                continue
            if not os.path.exists(dest):
                problems.append(f"{rel}:{number}: {target}: no such file")
                continue
            if anchor and os.path.isfile(dest) and dest.endswith(".md"):
                if anchor not in anchors(dest):
                    problems.append(f"{rel}:{number}: {target}: no heading #{anchor} in "
                                    f"{os.path.relpath(dest, root)}")
    # A fence left open swallows the rest of the page.
    opened = split_fences(text)[1]
    if opened is not None:
        problems.append(f"{rel}:{opened}: code fence never closed")


def main():
    if len(sys.argv) != 2:
        print("usage: check_doc_links.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    readme = os.path.join(root, "README.md")
    docs = os.path.join(root, "docs")
    files = [readme] + sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    problems = []
    for path in files:
        check_file(root, path, problems)
    with open(readme, encoding="utf-8") as f:
        lines = len(f.read().splitlines())
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines, more than {README_MAX_LINES} "
                        "(the README guides; the reference belongs in docs/)")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} broken link(s) or problem(s) in {len(files)} files")
        return 1
    print(f"{len(files)} files, every relative link resolves; README.md {lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
