#!/usr/bin/env python3
"""The commands in the project's Markdown still work: every ```bash block of README.md,
docs/*.md and the inputs' READMEs is split into commands, and

- a path into the repository (scripts/, inputs/, docs/, tests/, packaging/, cmake/) must exist
  (a glob must match something; `<placeholder>` and `$VAR` paths are text, not checked), and a
  script run as the command itself must be executable;
- a minigpu command (build/src/minigpu, build-cuda/src/minigpu, an installed bin/minigpu) is
  checked against the built binary: its subcommand's `--help` must succeed and name every
  option the command uses, and `run INPUT ...` is run as given with `--dry-run` added.

Usage: check_doc_commands.py MINIGPU ROOT          exit 0, or 1 listing each stale command
       check_doc_commands.py MINIGPU --self-test   shows on a made-up tree that stale ones are caught
"""
import functools
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_doc_links import markdown_files  # noqa: E402  (the same pages the link check reads)

REPO_PREFIXES = ("scripts/", "inputs/", "docs/", "tests/", "packaging/", "cmake/")
MINIGPU = re.compile(r"(^|/)(build[^/]*/src|bin)/minigpu$")
OPERATORS = {"&&", "||", "|", ";", "&", "(", ")", ";;"}


def commands(path):
    """(line number, tokens) of each command in the file's bash blocks, comments dropped."""
    fence, start, text = False, 0, ""
    with open(path, encoding="utf-8") as f:
        lines = list(enumerate(f, 1))
    for number, line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = (not fence) and stripped[3:].strip() in ("bash", "sh", "shell")
            continue
        if not fence:
            continue
        if not text:
            start = number
        text += line
        if stripped.endswith("\\"):
            continue
        # `<stamp>`-style placeholders are text to the reader, not redirections.
        text = re.sub(r"<([\w.-]+)>", r"PLACEHOLDER_\1", text.replace("\\\n", " "))
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError as e:
            yield start, None, f"does not parse as shell ({e})"
            tokens = []
        text, command = "", []
        for token in tokens + [";"]:
            if token in OPERATORS:
                if command:
                    yield start, command, None
                command = []
            else:
                command.append(token)


def placeholder(token):
    return "PLACEHOLDER_" in token or any(c in token for c in "$`{")


def path_problems(root, tokens, command_word):
    found = []
    for token in tokens:
        value = token.split("=", 1)[1] if re.match(r"^(--)?[A-Za-z_][\w-]*=", token) else token
        if not value.startswith(REPO_PREFIXES) or placeholder(value):
            continue
        full = os.path.join(root, value)
        if any(c in value for c in "*?["):
            if not glob.glob(full):
                found.append(f"'{value}' matches nothing")
        elif not os.path.exists(full):
            found.append(f"'{value}' does not exist")
        elif token == command_word and not os.access(full, os.X_OK):
            found.append(f"'{value}' is run as a command but is not executable")
    return found


@functools.lru_cache(maxsize=None)
def help_text(minigpu, sub):
    proc = subprocess.run([minigpu] + ([sub] if sub else []) + ["--help"], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def minigpu_problems(minigpu, root, args):
    """A documented minigpu command against the real CLI."""
    sub = next((a for a in args if not a.startswith("-")), None)
    listed = help_text(minigpu, None)[1].split("Subcommands:", 1)[-1]
    if sub and not re.search(r"^\s+" + re.escape(sub) + r"\s", listed, re.M):
        return [f"'{sub}' is not a subcommand of 'minigpu --help'"]
    rc, text = help_text(minigpu, sub)
    if rc != 0:
        return [f"'minigpu {sub} --help' exits {rc}: no such subcommand?"]
    found = [f"option '{o}' is not in 'minigpu {sub or ''} --help'".replace("  ", " ")
             for o in (a.split("=", 1)[0] for a in args if a.startswith("--"))
             if o != "--help" and not re.search(re.escape(o) + r"(?![\w-])", text)]
    if sub != "run" or found or any(placeholder(a) or "*" in a for a in args):
        return found
    # A GPU input is checked whole on this host too: only its need of a real GPU is lifted.
    env = {k: v for k, v in os.environ.items() if k != "MINIGPU_EMULATE_GPUS"}
    argv = [minigpu] + args + ["--set", "run.require_gpu=false", "--dry-run"]
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        found.append(f"'minigpu {' '.join(args)} --dry-run' exits {proc.returncode}: {tail[0]}")
    return found


def problems(minigpu, root):
    root = os.path.realpath(root)
    found, checked = [], 0
    for name in markdown_files(root):
        for number, tokens, error in commands(os.path.join(root, name)):
            if error:
                found.append(f"{name}:{number}: {error}")
                continue
            checked += 1
            where = f"{name}:{number}: `{' '.join(tokens)[:70]}`"
            words = [t for t in tokens if not re.match(r"^[A-Z_][A-Z0-9_]*=", t)]
            issues = path_problems(root, tokens, words[0] if words else None)
            at = next((i for i, t in enumerate(words) if MINIGPU.search(t)), None)
            if at is not None:
                issues += minigpu_problems(minigpu, root, words[at + 1:])
            found += [f"{where}: {p}" for p in issues]
    return found, checked


def self_test(minigpu):
    """A tree whose README has one stale command of each kind beside commands that still work."""
    ok_input = "inputs/tiny.yaml"
    readme = ("# T\n```bash\nscripts/run.sh inputs/tiny.yaml   # a comment naming scripts/gone.sh\n"
              "python3 scripts/plot.py results/quickstart-*/ && ls inputs/*.yaml\n"
              "scripts/bench.sh 2\n"
              "build/src/minigpu run inputs/tiny.yaml --only matmul \\\n  --repetitions 2\n"
              "build/src/minigpu compare A B --fail-belo 20\n"
              "build/src/minigpu frobnicate\n"
              "MINIGPU_X=1 build/src/minigpu run inputs/gone.yaml\n"
              "build/src/minigpu model --from results/<run>\n"
              "scripts/plain.sh\n```\n")
    pages = {"README.md": readme, "scripts/run.sh": "", "scripts/plot.py": "", "scripts/plain.sh": "",
             ok_input: "run:\n  name: tiny\nexperiments:\n  - name: matmul\n    sizes: [8]\n"}
    expected = {"README.md:5: 'scripts/bench.sh' does not exist",
                "README.md:8: option '--fail-belo' is not in 'minigpu compare --help'",
                "README.md:9: 'frobnicate' is not a subcommand of 'minigpu --help'",
                "README.md:10: 'inputs/gone.yaml' does not exist",
                "README.md:10: 'minigpu run inputs/gone.yaml --dry-run' exits 2",
                "README.md:12: 'scripts/plain.sh' is run as a command but is not executable"}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in pages.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, name)), exist_ok=True)
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        os.chmod(os.path.join(tmp, "scripts/run.sh"), 0o755)
        found, checked = problems(minigpu, tmp)
    reported = {re.sub(r" `[^`]*`:", "", p) for p in found}
    missed = [e for e in expected if not any(r.startswith(e) for r in reported)]
    extra = [r for r in reported if not any(r.startswith(e) for e in expected)]
    if missed or extra or checked != 10:
        print(f"self-test: {checked} commands checked (10 expected)", *found, sep="\n  ")
        print("missed:", *missed, "unexpected:", *extra, sep="\n  ")
        return 1
    print(f"self-test: the {len(expected)} stale commands of {checked} were caught, and only those")
    return 0


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    if argv[2] == "--self-test":
        return self_test(argv[1])
    found, checked = problems(argv[1], argv[2])
    for p in found:
        print(p)
    if found:
        print(f"{len(found)} problems in {checked} documented commands")
        return 1
    print(f"{checked} documented commands: every path exists and every minigpu command is accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
