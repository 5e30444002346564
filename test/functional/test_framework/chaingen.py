"""Runs coinsdb-genchain and returns what it reports."""

import json
import os
import subprocess


def generate_chain(framework, name, *, blocks, seed, txs_per_block, target_utxos=None):
    genchain = os.path.join(os.path.dirname(framework.gensnapshot), "coinsdb-genchain")
    path = os.path.join(framework.options.tmpdir, name)
    args = [genchain, "-output=" + path, "-blocks=%d" % blocks, "-seed=%d" % seed, "-txs-per-block=%d" % txs_per_block]
    if target_utxos is not None:
        args.append("-target-utxos=%d" % target_utxos)
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tip_height"] == blocks, report
    return path, report
