#!/usr/bin/env python3
"""Copies Bitcoin Core's test files into a work directory, ready to compile
against coinsdb, and lists their test cases.

What it changes in the copies, and why, is data in manifest.py:
  - cases of a stored copy that Bitcoin Core does not have (the copy came
    from a fork) are removed and not counted;
  - API-version rewrites: a stored copy older than Core b88bffe5 calls an
    API the way Core did before b88bffe5; the rewrite makes the call as
    Core's own later change did (skipped with --as-stored, which counts the
    cases that need one as not compiled instead);
  - Core cases that cannot compile against coinsdb are removed, with the
    helpers only they use, and listed with the reason.
Removed text is replaced by blank lines, so compiler messages keep the
stored file's line numbers. Nothing is written to the Core directory.

  prepare.py --core <core-src-dir> --out <dir> [--as-stored] [--keep FILE:NAME]

--keep leaves one skipped case (and its helpers) in, for run.sh --explain.
Writes <dir>/src/test/... and <dir>/cases.json.
"""

import argparse
import json
import re
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import manifest  # noqa: E402

CASE_RE = re.compile(r"BOOST_(?:AUTO|FIXTURE)_TEST_CASE\(\s*(\w+)")
SUITE_RE = re.compile(r"BOOST_(?:AUTO|FIXTURE)_TEST_SUITE\(\s*(\w+)|BOOST_AUTO_TEST_SUITE_END\(\)")


def skip_literal(text, i):
    """Index just past the string/char literal or comment starting at i, or i."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        return text.index("*/", i) + 2
    if text[i] in "\"'":
        quote, j = text[i], i + 1
        while text[j] != quote:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def definition_span(text, start):
    """[start, end) of the definition that starts at `start`: up to the brace
    matching the first `{`, plus a `;` right after it (a class)."""
    i, depth = start, 0
    while True:
        j = skip_literal(text, i)
        if j != i:
            i = j
            continue
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                end = i + 1
                rest = re.match(r"\s*;", text[end:])
                return start, end + (rest.end() if rest else 0)
        i += 1


def blank_out(text, start, end, note):
    removed = text[start:end]
    return text[:start] + f"/* corecheck: {note} */" + "\n" * removed.count("\n") + text[end:]


def find_case(text, name):
    for m in CASE_RE.finditer(text):
        if m.group(1) == name:
            return m.start()
    raise SystemExit(f"prepare.py: case {name} not found")


def find_definition(text, head):
    """The start of the line that begins with `head` (a helper's first line)."""
    m = re.search(r"^" + re.escape(head), text, re.MULTILINE)
    if not m:
        raise SystemExit(f"prepare.py: definition starting {head!r} not found")
    return m.start()


def remove_case(text, name, note):
    start, end = definition_span(text, find_case(text, name))
    return blank_out(text, start, end, note)


def remove_definition(text, head, note):
    start, end = definition_span(text, find_definition(text, head))
    return blank_out(text, start, end, note)


def mark_skipped(status, case, why):
    """A case does not compile, for this reason among others."""
    state, reasons = status[case]
    status[case] = ("skipped", f"{reasons}; and {why}" if state == "skipped" else why)


def list_cases(text):
    """[(suite, case)] in file order."""
    events = sorted([(m.start(), "case", m.group(1)) for m in CASE_RE.finditer(text)] +
                    [(m.start(), "suite", m.group(1)) for m in SUITE_RE.finditer(text)])
    suites, cases = [], []
    for _, kind, name in events:
        if kind == "suite":
            if name:
                suites.append(name)
            else:
                suites.pop()
        else:
            cases.append(("/".join(suites), name))
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--core", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--as-stored", action="store_true")
    parser.add_argument("--keep", action="append", default=[])
    args = parser.parse_args()

    records = []
    for name in manifest.FILES + manifest.UTILS:
        source = args.core / "src" / "test" / name
        if not source.is_file():
            raise SystemExit(f"prepare.py: {source} is missing (see doc/design.md for where the files come from)")
        text = source.read_text(encoding="utf-8")
        if name in manifest.UTILS:
            target = args.out / "src" / "test" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            continue

        status = {case: ("run", "") for _, case in list_cases(text)}
        removals = []  # (kind, name-or-head, note)
        for case, why in manifest.FORK_ONLY.get(name, {}).items():
            status[case] = ("fork", why)
            removals.append(("case", case, "not in Bitcoin Core"))

        for rewrite in manifest.REWRITES:
            if rewrite["file"] != name:
                continue
            if args.as_stored:
                kept = any(f"{name}:{case}" in args.keep for case in rewrite["cases"])
                for case in rewrite["cases"]:
                    mark_skipped(status, case, "as stored: " + rewrite["why"])
                    if not kept:
                        removals.append(("case", case, "not compiled"))
                if not kept:
                    for head in rewrite.get("drop", []):
                        removals.append(("definition", head, "not compiled"))
                continue
            found = text.count(rewrite["old"])
            if found != rewrite["count"]:
                raise SystemExit(f"prepare.py: {name}: rewrite {rewrite['id']} expects {rewrite['count']} matches, found {found}")
            text = text.replace(rewrite["old"], rewrite["new"])

        for skip in manifest.SKIPPED:
            if skip["file"] != name:
                continue
            kept = any(f"{name}:{case}" in args.keep for case in skip["cases"])
            for case in skip["cases"]:
                mark_skipped(status, case, skip["why"])
                if not kept:
                    removals.append(("case", case, "not compiled"))
            if not kept:
                for head in skip.get("drop", []):
                    removals.append(("definition", head, "not compiled"))

        done = set()
        for kind, key, note in removals:
            if (kind, key) in done:
                continue
            done.add((kind, key))
            text = remove_case(text, key, note) if kind == "case" else remove_definition(text, key, note)

        target = args.out / "src" / "test" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        for suite, case in list_cases(source.read_text(encoding="utf-8")):
            state, why = status[case]
            records.append({"file": name, "suite": suite, "case": case, "status": state, "reason": why})

    (args.out / "cases.json").write_text(json.dumps(records, indent=1) + "\n")


if __name__ == "__main__":
    main()
