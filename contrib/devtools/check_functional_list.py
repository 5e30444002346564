#!/usr/bin/env python3
"""Fails when the functional tests, the runner's list and the README disagree.

Every test/functional/<name>.py but the runner must be in test_runner.py's
ALL_TESTS (or it never runs) and have a row in test/functional/README.md
(or nobody knows what it checks), and neither may name a test that is not
there.
Usage: contrib/devtools/check_functional_list.py [FUNCTIONAL_DIR]
"""
import ast
import pathlib
import re
import sys


def runner_tests(runner: pathlib.Path) -> set:
    for node in ast.parse(runner.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ALL_TESTS" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise SystemExit(f"check_functional_list: no ALL_TESTS in {runner}")


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2] / "test" / "functional")
    files = {p.name for p in root.glob("*.py") if p.name != "test_runner.py"}
    listed = runner_tests(root / "test_runner.py")
    documented = set(re.findall(r"^\| `([a-z0-9_]+\.py)` \|", (root / "README.md").read_text(), re.MULTILINE))
    errors = []
    for name in sorted(files - listed):
        errors.append(f"{name}: not in test_runner.py's ALL_TESTS")
    for name in sorted(files - documented):
        errors.append(f"{name}: no row in README.md")
    for name in sorted((listed | documented) - files):
        errors.append(f"{name}: listed but no such test")
    for error in errors:
        print(f"check_functional_list: {error}", file=sys.stderr)
    print(f"check_functional_list: {len(files)} test(s), {len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
