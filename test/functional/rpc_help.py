#!/usr/bin/env python3
"""Every RPC's help, as Bitcoin Core writes help.

For every command `bitcoin-cli help` lists, `bitcoin-cli help <command>`
starts with the usage line the list shows, describes the command, lists its
arguments (numbered, each with its type and whether it is required or its
default) when it takes any, shows its result and at least one example.
The result's fields are those the command returns, and the optional ones
are marked so.

`bitcoind -help`, `bitcoind -help-debug` and `bitcoin-cli -help` print, byte
for byte, the texts committed in test/functional/data/ (the option texts are
assembled from each subsystem's own registration; moving that code must not
change a byte of what users see).

`bitcoind -help-debug` and `bitcoin-cli -help` show every option's default,
but for the actions (-?, -h, -help, -help-debug, -version, -getinfo) and the options
coinsdb accepts only to ignore them.

Beside a Bitcoin Core node from the reference build (skipped, saying so,
without it): for every command both have, the same usage line, the same
argument names, types and named arguments, the same result fields (but for
the documented differences) and, where the fields are the same, the same
description column, i.e. the same layout.
"""

import difflib
import os
import pathlib
import re
import subprocess
import sys

from test_framework.test_framework import BitcoinTestFramework, SkipTest
from test_framework.util import assert_equal, assert_greater_than, assert_in

# Result fields coinsdb has and Core has not, or Core has and coinsdb not,
# by command (README, "Where coinsdb still differs").
OURS_ONLY = {
    # The SwiftSync object and its members.
    "getblockchaininfo": {"waiting_blocks", "swiftsync", "status", "height", "blockhash", "hinted_blocks", "seconds", "reason"},
}
CORE_ONLY = {
    "getblockchaininfo": {"backgroundvalidation", "snapshotheight", "signet_challenge"},
    # Without coinstatsindex.
    "gettxoutsetinfo": {"total_unspendable_amount", "block_info", "prevout_spent", "coinbase",
                        "new_outputs_ex_coinbase", "unspendable", "unspendables", "genesis_block", "bip30", "scripts",
                        "unclaimed_rewards"},
    "gettxout": {"asm", "desc", "address"},
}


def sections(text):
    """{heading: [lines]} of a help text; the usage line and description
    are under "usage" and "description"."""
    parts = text.rstrip("\n").split("\n\n")
    out = {"usage": [parts[0]], "description": parts[1].split("\n")}
    heading = None
    for part in parts[2:]:
        lines = part.split("\n")
        if lines[0].endswith(":"):
            heading = lines[0]
            out[heading] = lines[1:]
        else:
            # Core writes some descriptions and examples in paragraphs.
            assert heading in (None, "Examples:"), "unexpected help section %r" % part
            out[heading or "description"] += lines
    return out


def argument_lines(lines):
    """[(name, type, need)] of "1. name    (type, need...) description"."""
    args = []
    for line in lines:
        # An array's element and a description's further lines are indented.
        if line.startswith(" "):
            continue
        match = re.match(r"^(?:\d+\. )?(\S+) +\(([^,]+(?: or [^,]+)?), (required|optional)[^)]*\)", line)
        assert match, "bad argument line %r" % line
        args.append(match.groups())
    return args


def result_fields(help_sections):
    """{name: optional?} of every result section's object members; a member
    of an optional object is optional too."""
    fields = {}
    for heading, lines in help_sections.items():
        if not heading.startswith("Result"):
            continue
        # The open objects and arrays above the line: (indent, optional).
        enclosing = []
        for line in lines:
            indent = len(line) - len(line.lstrip())
            while enclosing and indent <= enclosing[-1][0]:
                enclosing.pop()
            match = re.match(r'^\s*"(\w+)" : (\S+)\s+\(([^)]*)\)', line)
            if match:
                optional = "optional" in match.group(3) or any(o for _, o in enclosing)
                fields[match.group(1)] = optional
                if match.group(2) in ("{", "["):
                    enclosing.append((indent, optional))
    return fields


def description_columns(help_sections):
    """The column the descriptions of each result block start at."""
    columns = {}
    for heading, lines in help_sections.items():
        if heading.startswith("Result"):
            found = {re.match(r"^(.*?\S)( {2,})\(", line) for line in lines}
            columns[heading] = {len(m.group(1)) + len(m.group(2)) for m in found if m}
    return columns


def output_fields(value, into=None):
    """Every member name of a JSON value, nested ones too."""
    into = set() if into is None else into
    if isinstance(value, dict):
        for key, member in value.items():
            into.add(key)
            output_fields(member, into)
    elif isinstance(value, list):
        for element in value:
            output_fields(element, into)
    return into


class RPCHelpTest(BitcoinTestFramework):
    def set_test_params(self):
        self.num_nodes = 1

    def run_test(self):
        node = self.nodes[0]
        listing = node.cli.run("help").stdout
        commands = {}
        for line in listing.splitlines():
            if line and not line.startswith("=="):
                commands[line.split()[0]] = line
        assert_greater_than(len(commands), 10)
        self.helps = {}
        for command, usage in sorted(commands.items()):
            self.check_help(node, command, usage)
        self.check_fields_returned(node)
        self.check_help_texts_unchanged()
        self.check_option_defaults()
        self.compare_with_core(commands)

    def check_help(self, node, command, usage):
        self.log.info("help %s: usage, description, arguments, result, examples", command)
        result = node.cli.run("help", command)
        assert_equal(result.returncode, 0)
        parts = sections(result.stdout)
        self.helps[command] = parts
        assert_equal(parts["usage"], [usage])
        assert parts["description"][0], command
        takes_args = usage != command
        assert_equal("Arguments:" in parts, takes_args)
        if takes_args:
            args = argument_lines(parts["Arguments:"])
            # Every argument of the usage line, in order: quoted strings,
            # bare names, the options object, or an array, which shows its
            # element's name instead of its own.
            shown = re.findall(r'"(\w+)"|\{|(\[)[^\]]*\]|(\w+)', usage[len(command):])
            names = [a or c or ("[array]" if b else "options") for a, b, c in shown][:len(args)]
            for (name, kind, _), in_usage in zip(args, names):
                assert_equal((name, kind == "json array"), (in_usage if in_usage != "[array]" else name, in_usage == "[array]"))
            assert_equal(len(names), len(args))
            for name, kind, need in args:
                assert_in(kind, {"string", "numeric", "boolean", "json object", "json array", "string or numeric"})
        if "Named Arguments:" in parts:
            argument_lines(parts["Named Arguments:"])
        assert [heading for heading in parts if heading.startswith("Result")], "%s has no Result section" % command
        examples = parts.get("Examples:", [])
        assert [line for line in examples if line.startswith("> bitcoin-cli ")], "%s has no example" % command

    def check_fields_returned(self, node):
        self.log.info("The documented result fields are those the commands return")
        node.gettxoutsetinfo()
        dump = node.dumptxoutset("help_dump.dat", "latest")
        outputs = {
            "getblockchaininfo": node.getblockchaininfo(),
            "getchainstates": node.getchainstates(),
            "getblockheader": node.getblockheader(node.getbestblockhash()),
            "gettxoutsetinfo": node.gettxoutsetinfo(),
            "getcoinscacheinfo": node.getcoinscacheinfo(),
            "getmemoryinfo": node.getmemoryinfo(),
            "dumptxoutset": dump,
        }
        for command, output in outputs.items():
            documented = result_fields(self.helps[command])
            returned = output_fields(output)
            assert_equal((command, sorted(returned - set(documented))), (command, []))
            required = {name for name, optional in documented.items() if not optional}
            assert_equal((command, sorted(required - returned)), (command, []))

    def check_help_texts_unchanged(self):
        data = pathlib.Path(__file__).resolve().parent / "data"
        # -dbcache's default depends on the machine (caches.h's table); the
        # committed texts hold a placeholder where the number goes.
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        dbcache_default = "1024" if sys.maxsize > 2**32 and ram >= 4 << 30 else "450"
        for binary, flag, expected_file in ((self.bitcoind, "-help", "bitcoind-help.txt"),
                                            (self.bitcoind, "-help-debug", "bitcoind-help-debug.txt"),
                                            (self.bitcoin_cli, "-help", "bitcoin-cli-help.txt")):
            self.log.info("%s %s: the same bytes as data/%s", binary.rsplit("/", 1)[-1], flag, expected_file)
            text = subprocess.run([binary, flag], capture_output=True, text=True, check=True).stdout
            expected = (data / expected_file).read_text().replace("{dbcache_default}", dbcache_default)
            if text != expected:
                diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                    "data/" + expected_file, flag))
                raise AssertionError("%s %s changed; if on purpose, update test/functional/data/%s:\n%s"
                                     % (binary, flag, expected_file, diff))

    def check_option_defaults(self):
        actions = {"-?", "-h", "-help", "-help-debug", "-version", "-getinfo"}
        for binary, flag in ((self.bitcoind, "-help-debug"), (self.bitcoin_cli, "-help")):
            self.log.info("%s %s: every option shows its default", binary.rsplit("/", 1)[-1], flag)
            text = subprocess.run([binary, flag], capture_output=True, text=True, check=True).stdout
            # Options start two spaces in; their descriptions are indented further.
            options = re.split(r"\n  (?=-)", text)[1:]
            assert_greater_than(len(options), 10)
            missing = []
            for option in options:
                name = option.split()[0].split("=")[0]
                described = " ".join(option.split()[1:])
                if name in actions or described.startswith("Accepted for compatibility"):
                    continue
                if "default" not in described:
                    missing.append(name)
            assert_equal(missing, [])

    def compare_with_core(self, commands):
        bin_dir = self.reference_core_bin()
        if not bin_dir:
            self.log.warning("No Bitcoin Core reference build (../shared/reference or $COINSDB_CORE_BIN): "
                             "the comparison with Core's help is skipped")
            return
        core = self.add_core_node()
        core.start()
        core_listing = core.cli.run("help").stdout
        core_commands = {line.split()[0]: line for line in core_listing.splitlines() if line and not line.startswith("==")}
        same_layout = []
        for command in sorted(set(commands) & set(core_commands)):
            self.log.info("help %s beside Core's: usage, arguments, result fields, layout", command)
            ours = self.helps[command]
            theirs = sections(core.cli.run("help", command).stdout)
            assert_equal(ours["usage"], theirs["usage"])
            for heading in ("Arguments:", "Named Arguments:"):
                assert_equal((command, heading, argument_lines(ours.get(heading, []))),
                             (command, heading, argument_lines(theirs.get(heading, []))))
            our_fields = set(result_fields(ours)) - OURS_ONLY.get(command, set())
            core_fields = set(result_fields(theirs)) - CORE_ONLY.get(command, set())
            assert_equal((command, sorted(our_fields)), (command, sorted(core_fields)))
            if not OURS_ONLY.get(command) and not CORE_ONLY.get(command) and len(ours) == len(theirs):
                assert_equal(sorted(description_columns(ours).values(), key=sorted),
                             sorted(description_columns(theirs).values(), key=sorted))
                same_layout.append(command)
        assert set(same_layout) >= {"getblockheader", "getchainstates", "dumptxoutset", "loadtxoutset", "getblockhash"}, same_layout
        core.stop_node()


if __name__ == "__main__":
    RPCHelpTest(__file__).main()
