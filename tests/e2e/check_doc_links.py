#!/usr/bin/env python3
"""Every relative link and image in the project's Markdown points to something that exists.

Checks README.md, docs/*.md, inputs/README.md and inputs/*/README.md under ROOT: a link's file
(or folder) must exist inside ROOT, and a `#anchor` must name a heading of the file it points to,
slugged as GitHub does. Links inside code blocks and code spans are text, not links. Outside
addresses (http:, mailto:, ...) are not fetched: the check needs no network.

Usage: check_doc_links.py ROOT       exit 0, or 1 listing each broken link as FILE:LINE
       check_doc_links.py --self-test  shows on a made-up tree that broken links are caught
"""
import os
import re
import sys
import tempfile
import urllib.parse

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)")
HTML = re.compile(r"<(?:img|a)\s[^>]*?(?:src|href)=\"([^\"]+)\"", re.IGNORECASE)
HTML_ID = re.compile(r"<a\s[^>]*?(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_files(root):
    names = ["README.md", "inputs/README.md"]
    for folder, pattern in (("docs", None), ("inputs", "README.md")):
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for entry in sorted(os.listdir(base)):
            if pattern is None and entry.endswith(".md"):
                names.append(f"{folder}/{entry}")
            elif pattern and os.path.isfile(os.path.join(base, entry, pattern)):
                names.append(f"{folder}/{entry}/{pattern}")
    return [n for n in names if os.path.isfile(os.path.join(root, n))]


def prose_lines(path):
    """(line number, text) outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            marker = FENCE.match(line)
            if marker:
                fence = None if fence == marker.group(1) else (fence or marker.group(1))
                continue
            if fence is None:
                yield number, line.rstrip("\n")


def slug(heading):
    """GitHub's anchor for a heading: rendered text, lower case, punctuation gone, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    for _, line in prose_lines(path):
        out.update(HTML_ID.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def links(path):
    """(line number, target) for each link and image in the file's prose."""
    for number, line in prose_lines(path):
        text = CODE_SPAN.sub(lambda m: "code", line)
        for pattern in (INLINE, REFERENCE, HTML):
            for target in pattern.findall(text):
                yield number, target


def problems(root):
    root = os.path.realpath(root)
    found, checked = [], 0
    for name in markdown_files(root):
        source = os.path.join(root, name)
        for number, target in links(source):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue
            checked += 1
            where = f"{name}:{number}: link '{target}'"
            file_part, _, anchor = urllib.parse.unquote(target).partition("#")
            dest = os.path.realpath(os.path.join(os.path.dirname(source), file_part)) if file_part else source
            if os.path.commonpath([root, dest]) != root:
                found.append(f"{where}: points outside the repository")
            elif not os.path.exists(dest):
                found.append(f"{where}: {os.path.relpath(dest, root)} does not exist")
            elif anchor and not dest.endswith(".md"):
                found.append(f"{where}: an anchor into a file that is not Markdown")
            elif anchor and anchor not in anchors(dest):
                found.append(f"{where}: no heading '#{anchor}' in {os.path.relpath(dest, root)}")
    return found, checked


def self_test():
    """A tree with one link of each broken kind, beside good ones and links that are only text."""
    pages = {
        "README.md": "# Top\n## Two words: `code`\n[ok](docs/a.md) [ok](docs/a.md#a-heading) [ok](#two-words-code)\n"
        "![gone](docs/images/gone.png)\n[bad anchor](docs/a.md#nowhere)\n"
        "```\n[in a block](missing.md)\n```\n`[in a span](missing.md)` [web](https://example.org/x)\n",
        "docs/a.md": "# A heading\n# A heading\n[ok](a.md#a-heading-1) [ok](../README.md) [ok](images/)\n"
        "[dir gone](../nowhere/)\n[out](../../etc/passwd)\n[ref]: missing_ref.md\n",
        "docs/images/x.png": "",
        "inputs/README.md": "[ok](../docs/a.md)\n",
        "inputs/hardware/README.md": "[bad](../../docs/b.md)\n",
    }
    expected = {
        "README.md:4: link 'docs/images/gone.png'",
        "README.md:5: link 'docs/a.md#nowhere'",
        "docs/a.md:4: link '../nowhere/'",
        "docs/a.md:5: link '../../etc/passwd'",
        "docs/a.md:6: link 'missing_ref.md'",
        "inputs/hardware/README.md:1: link '../../docs/b.md'",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in pages.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        found, checked = problems(tmp)
    reported = {p.split(": ", 1)[0] + ": " + p.split(": ", 2)[1] for p in found}
    if reported != expected or checked != 13:
        print(f"self-test: {checked} links checked (13 expected); reported:", *found, sep="\n  ")
        print("expected:", *sorted(expected), sep="\n  ")
        return 1
    print(f"self-test: the {len(expected)} broken links of {checked} were caught, and only those")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    found, checked = problems(argv[1])
    for p in found:
        print(p)
    if found:
        print(f"{len(found)} broken of {checked} relative links")
        return 1
    print(f"{checked} relative links and images: every target exists")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
