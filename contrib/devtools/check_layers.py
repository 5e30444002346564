#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer it may not depend on.

The allowed edges are the table in doc/design.md; keep the two in step.
Usage: contrib/devtools/check_layers.py [SRC_DIR]
"""
import pathlib
import re
import sys

LAYERS = ["util", "crypto", "primitives", "coins", "txdb", "kernel", "rpc", "node", "binaries"]

# Files outside a layer directory, by path relative to src/.
FILE_LAYERS = {
    "uint256.h": "primitives", "uint256.cpp": "primitives", "serialize.h": "primitives",
    "streams.h": "primitives", "hash.h": "primitives", "memusage.h": "primitives", "prevector.h": "primitives",
    "coins.h": "coins", "coins.cpp": "coins", "compressor.h": "coins", "compressor.cpp": "coins",
    "dbwrapper.h": "txdb", "dbwrapper.cpp": "txdb",
    "storage_profile.h": "txdb", "storage_profile.cpp": "txdb", "txdb.h": "txdb", "txdb.cpp": "txdb",
}
DIR_LAYERS = {"dbwrapper": "txdb", "txdb": "txdb", "util": "util", "crypto": "crypto", "primitives": "primitives", "script": "primitives",
              "consensus": "primitives",
              "kernel": "kernel", "node": "node", "rpc": "rpc", "init": "node", "tools": "binaries"}
# node/ holds one subfolder per room (init, blockstorage, chainstate, replay,
# snapshot, rpc), all of layer "node"; a file directly in node/ is an error.
NODE_ROOMS = {"init", "blockstorage", "chainstate", "replay", "snapshot", "rpc"}
# Binaries may use anything; rpc (HTTP/JSON-RPC plumbing) sits on util only.
ALLOWED = {
    "util": set(),
    "crypto": {"util"},
    "primitives": {"crypto", "util"},
    "coins": {"primitives", "crypto", "util"},
    "txdb": {"coins", "primitives", "crypto", "util"},
    "kernel": {"txdb", "coins", "primitives", "crypto", "util"},
    "rpc": {"util"},
    "node": {"rpc", "kernel", "txdb", "coins", "primitives", "crypto", "util"},
    "binaries": set(LAYERS),
}
THIRD_PARTY = {"leveldb/": {"dbwrapper.cpp", "dbwrapper/bloom.cpp", "dbwrapper/env.cpp", "dbwrapper/ingest.cpp", "dbwrapper/ingest_run.cpp", "dbwrapper/slices.h", "dbwrapper/table_encoder.cpp"}, "secp256k1": {"compressor.cpp"}, "openssl/": {"crypto/sha256.cpp", "crypto/salted_sha256.cpp", "crypto/hmac_sha256.cpp", "crypto/muhash.cpp", "crypto/random.cpp"}}

# The dbwrapper module's internals (src/dbwrapper/): only dbwrapper.h is seen
# outside it, as LevelDB keeps include/leveldb/ apart from db/ (tests and
# benchmarks excepted: they test the internals).
MODULE_INTERNALS = {"dbwrapper/": {"dbwrapper.cpp"}}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def layer_of(rel: str):
    if rel in FILE_LAYERS:
        return FILE_LAYERS[rel]
    top = rel.split("/", 1)[0]
    if "/" in rel:
        return DIR_LAYERS.get(top)
    return "binaries" if rel.endswith(".cpp") else None


def main() -> int:
    src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2] / "src")
    errors = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".h", ".cpp") or "test" in path.relative_to(src).parts or "bench" in path.relative_to(src).parts:
            continue
        rel = path.relative_to(src).as_posix()
        parts = rel.split("/")
        if parts[0] == "node" and (len(parts) < 3 or parts[1] not in NODE_ROOMS):
            errors.append(f"{rel}: not in one of node/'s rooms {sorted(NODE_ROOMS)} (update check_layers.py and doc/design.md)")
        layer = layer_of(rel)
        if layer is None:
            errors.append(f"{rel}: not assigned to a layer (update check_layers.py and doc/design.md)")
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            for prefix, owners in THIRD_PARTY.items():
                if target.startswith(prefix) and rel not in owners:
                    errors.append(f"{rel}:{number}: includes {target}; only {sorted(owners)} may")
            for prefix, owners in MODULE_INTERNALS.items():
                if target.startswith(prefix) and not rel.startswith(prefix) and rel not in owners:
                    errors.append(f"{rel}:{number}: includes {target}, internal to {prefix}; use its public header")
            if not (src / target).exists():
                continue
            target_layer = layer_of(target)
            if target_layer and target_layer != layer and target_layer not in ALLOWED[layer]:
                errors.append(f"{rel}:{number}: {layer} may not include {target} ({target_layer})")
    for error in errors:
        print(error)
    print(f"check_layers: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
