#!/usr/bin/env python3
"""Fails when a function in src/cli/*.cc is longer than the limit (80 lines by default).

A function is a top-level body: a `{` at brace depth 0 (outside namespaces) whose header is
not a namespace, struct, class, enum or union (a lambda inside counts toward its function).
Its length is the lines from its header's first line to its closing `}`. Comments, strings and
character literals are skipped. Usage: check_cli_functions.py [SRC_DIR] [--max N] [--list]
"""
import os
import re
import sys

NON_FUNCTION = re.compile(r"\b(namespace|struct|class|enum|union)\b[^;()]*$")


def strip(text):
    """The text with comments, strings and character literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(name, first line, last line) of each top-level function body in the file."""
    # Preprocessor lines are blanked too: a header starts after them.
    text = "\n".join(
        " " * len(l) if l.lstrip().startswith("#") else l
        for l in strip(open(path, encoding="utf-8").read()).split("\n")
    )
    found = []
    scopes = []  # per open brace: "ns" (namespace-like, transparent) or "fn"/"other"
    start = None  # (offset of the header's start) of the pending top-level construct
    header_begin = 0
    for i, c in enumerate(text):
        top = all(s == "ns" for s in scopes)
        if c == "{":
            if top:
                header = text[header_begin:i]
                if NON_FUNCTION.search(header.strip().split("\n")[-1] if header.strip() else ""):
                    kind = "ns" if "namespace" in header.split("\n")[-1] else "other"
                elif re.search(r"\)\s*(const|override|noexcept|->[^{]*)*\s*$", header) or re.search(
                    r"\)\s*:[^;]*$", header
                ):
                    kind = "fn"
                else:
                    kind = "other"
                scopes.append(kind)
                if kind == "fn":
                    stripped = header.lstrip()
                    first = text.count("\n", 0, header_begin + (len(header) - len(stripped)))
                    name = re.findall(r"([~\w:]+)\s*\(", header)
                    start = (name[0] if name else "?", first + 1)
            else:
                scopes.append("inner")
        elif c == "}":
            kind = scopes.pop() if scopes else None
            if kind == "fn" and all(s == "ns" for s in scopes):
                last = text.count("\n", 0, i) + 1
                found.append((start[0], start[1], last))
            if all(s == "ns" for s in scopes):
                header_begin = i + 1
        elif c == ";" and top:
            header_begin = i + 1
    return found


def main(argv):
    src = "src"
    limit = 80
    show = False
    args = list(argv[1:])
    while args:
        a = args.pop(0)
        if a == "--max":
            limit = int(args.pop(0))
        elif a == "--list":
            show = True
        else:
            src = a
    cli = os.path.join(src, "cli")
    over = []
    for name in sorted(os.listdir(cli)):
        if not name.endswith(".cc"):
            continue
        path = os.path.join(cli, name)
        for fn, first, last in functions(path):
            length = last - first + 1
            if show:
                print(f"{length:5d} {name}:{first} {fn}")
            if length > limit:
                over.append(f"{name}:{first}: {fn} is {length} lines (at most {limit})")
    for o in over:
        print(o)
    if over:
        print(f"{len(over)} function(s) in {cli} over {limit} lines: split them")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
