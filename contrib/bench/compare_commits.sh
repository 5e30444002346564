#!/usr/bin/env bash
# Runs one workload with the bitcoind of two commits under hyperfine and
# says how much faster or slower HEAD is than BASE.
#
#   contrib/bench/compare_commits.sh [options] BASE HEAD [WORKLOAD]
#   e.g. contrib/bench/compare_commits.sh main HEAD flush
#        contrib/bench/compare_commits.sh --storage hdd --apply <commit adding -debugstorage> v1 HEAD load
#
# Workloads (default: load):
#   load    loadtxoutset of a generated regtest snapshot on a fresh
#           datadir, then stop, at -dbcache=450: the load flushes as the
#           cache fills, and once more at its end
#   flush   the same with a -dbcache that holds the whole snapshot
#           (default 4000): the load's only flush is the big one at its
#           end; warns when a run flushed more than once
#   replay  -loadblock of a generated chain to its tip (-stopatheight),
#           pruned (-prune=550) with a large -dbcache (default 4000),
#           as contrib/bench/compare_replay.sh; fails a run that did not
#           reach the tip
#
# Options:
#   --runs N           hyperfine runs per commit (default: 3)
#   --out DIR          output directory, reused between calls: worktrees,
#                      generated inputs, results (default: compare_commits-out)
#   --coins N          load, flush: coins in the snapshot (default: 5000000)
#   --blocks N         replay: blocks in the chain (default: 2000)
#   --utxos N          replay: UTXO set size the generator aims for (default: 5000000)
#   --txs-per-block N  replay: average transactions per block (default: 2000)
#   --seed N           generator seed (default: 1)
#   --dbcache MIB      -dbcache (default: 450 for load, 4000 for flush and replay)
#   --prune MIB        replay: -prune target, 0 for none (default: 550)
#   --storage PROFILE  adds -debugstorage=PROFILE to both commits' bitcoind
#                      (hdd, sdcard or <write MB/s>,<sync ms>[,<seek ms>])
#   --apply COMMIT     cherry-picks COMMIT (without committing) onto each
#                      worktree that does not contain it yet, before
#                      building; repeatable, applied in the order given. For
#                      a flag that only newer commits have. A conflict stops
#                      the script and names the commit and the files.
#   --arg FLAG         another bitcoind flag for both commits (repeatable),
#                      e.g. --arg -dbbatchsize=67108864
#   --port N           RPC port of the bitcoind (default: 29490)
#   --jobs N           build jobs (default: nproc)
#   --dry-run          resolve the commits and print the build steps, the
#                      bitcoind command line and the hyperfine command;
#                      build and run nothing
#   -h, --help         this text
#
# Each commit is built (Release, ccache) in its own worktree,
# DIR/trees/<commit>[-apply-<key>], and must yield bitcoind, bitcoin-cli
# and the generator the workload needs (coinsdb-gensnapshot or
# coinsdb-genchain; the input is generated once with HEAD's, or BASE's if
# HEAD has none, and reused by later calls). Before anything runs, each
# bitcoind's -help -help-debug must list the flags the workload passes.
#
# hyperfine runs `DIR/run.sh DIR/bin/{commit} {commit}` with
# --parameter-list commit BASE,HEAD (all runs of BASE, then all runs of
# HEAD, as hyperfine orders them). Its --prepare step, DIR/prepare.py,
# reads the previous run's debug.log and empties DIR/datadir-<commit>, so
# every run starts fresh and neither the reset nor the log reading is
# timed. Timed: bitcoind's start-up, the workload, and shutdown until the
# process exits.
#
# Writes DIR/<workload>.json and DIR/<workload>.md (hyperfine's exports),
# DIR/<workload>-summary.txt (the ratio and the log figures below),
# DIR/runs-<commit>.tsv (per run: FlushSnapshotToDisk ms sum, flush count,
# BatchWrite lines, BatchWrite ms sum, peak maxMem MiB, and for replay the
# coins-database writes and prunes) and DIR/logs/<commit>.log (the last
# run's debug.log).
#
# Not measured: script or signature checks (coinsdb has none), network
# download, cold-cache reads (the snapshot or chain is in the page cache
# after the first run), or anything the two commits share below bitcoind
# (the same machine, the same generated input).
set -euo pipefail

die() { echo "compare_commits.sh: error: $*" >&2; exit 1; }
note() { echo "compare_commits.sh: $*" >&2; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

runs=3 out=compare_commits-out coins=5000000 blocks=2000 utxos=5000000 txs=2000 seed=1 dbcache= prune=550
storage= port=29490 jobs=$(nproc) dry_run=0
applies=() extra=() positional=()
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
  case $1 in
    --runs) need "$@"; runs=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --coins) need "$@"; coins=$2; shift 2 ;;
    --blocks) need "$@"; blocks=$2; shift 2 ;;
    --utxos) need "$@"; utxos=$2; shift 2 ;;
    --txs-per-block) need "$@"; txs=$2; shift 2 ;;
    --seed) need "$@"; seed=$2; shift 2 ;;
    --dbcache) need "$@"; dbcache=$2; shift 2 ;;
    --prune) need "$@"; prune=$2; shift 2 ;;
    --storage) need "$@"; storage=$2; shift 2 ;;
    --apply) need "$@"; applies+=("$2"); shift 2 ;;
    --arg) need "$@"; extra+=("$2"); shift 2 ;;
    --port) need "$@"; port=$2; shift 2 ;;
    --jobs) need "$@"; jobs=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; positional+=("$@"); break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -ge 2 ] && [ ${#positional[@]} -le 3 ] || { usage >&2; exit 2; }
base_rev=${positional[0]} head_rev=${positional[1]} workload=${positional[2]:-load}
case $workload in
  load) dbcache=${dbcache:-450} ;;
  flush|replay) dbcache=${dbcache:-4000} ;;
  *) die "unknown workload '$workload': use load, flush or replay" ;;
esac
for number in runs coins blocks utxos seed dbcache prune port jobs; do
  [[ ${!number} =~ ^[0-9]+$ ]] || die "--$number must be a number, not '${!number}'"
done
[ "$runs" -ge 1 ] || die "--runs must be at least 1"
if [ -n "$storage" ] && ! [[ $storage =~ ^(hdd|sdcard|[0-9]+(\.[0-9]+)?,[0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)?)$ ]]; then
  die "--storage '$storage' is not a profile: use hdd, sdcard or <write MB/s>,<sync ms>[,<seek ms>]"
fi
command -v hyperfine > /dev/null || die "no hyperfine: run contrib/install_deps.sh"

top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
resolve() { git -C "$top" rev-parse --verify --quiet "$1^{commit}" || die "'$1' is not a commit"; }
base=$(resolve "$base_rev")
head=$(resolve "$head_rev")
base_short=$(git -C "$top" rev-parse --short "$base")
head_short=$(git -C "$top" rev-parse --short "$head")
apply_full=()
for rev in "${applies[@]}"; do apply_full+=("$(resolve "$rev")"); done
[ "$base" != "$head" ] || note "BASE and HEAD are the same commit: an A/A comparison, which shows the noise"
out=$(realpath -m "$out")
[ "$dry_run" = 1 ] || mkdir -p "$out"

# --- worktrees and builds ----------------------------------------------------

case $workload in
  replay) generator=coinsdb-genchain; targets=(bitcoind "$generator") ;;
  *) generator=coinsdb-gensnapshot; targets=(bitcoind bitcoin-cli "$generator") ;;
esac

# The commits of --apply that $1 does not contain yet.
missing_applies() {
  local c
  for c in "${apply_full[@]}"; do
    git -C "$top" merge-base --is-ancestor "$c" "$1" || echo "$c"
  done
}

# Echoes the worktree for commit $1 with its missing --apply commits, made
# or reset to exactly that state. Untracked files (the build) survive.
prepare_tree() {
  local commit=$1 short picks key tree c files
  short=$(git -C "$top" rev-parse --short "$commit")
  mapfile -t picks < <(missing_applies "$commit")
  tree=$out/trees/$short
  if [ ${#picks[@]} -gt 0 ]; then
    key=$(printf '%s\n' "${picks[@]}" | sha1sum | cut -c1-8)
    tree=$tree-apply-$key
  fi
  if [ -e "$tree/.git" ]; then
    git -C "$tree" cherry-pick --abort > /dev/null 2>&1 || true
    git -C "$tree" reset -q --hard "$commit" >&2
  else
    mkdir -p "$out/trees"
    git -C "$top" worktree add -q --detach "$tree" "$commit" >&2
  fi
  for c in "${picks[@]}"; do
    if ! git -C "$tree" cherry-pick --no-commit "$c" > "$tree.apply.log" 2>&1; then
      files=$(git -C "$tree" diff --name-only --diff-filter=U | paste -sd ' ' -)
      git -C "$tree" cherry-pick --abort > /dev/null 2>&1 || true
      git -C "$tree" reset -q --hard "$commit"
      die "--apply $(git -C "$top" rev-parse --short "$c") does not apply cleanly to $short:" \
        "conflicts in ${files:-(see $tree.apply.log)}; pick commits that apply, or a BASE closer to them"
    fi
    note "$short: applied $(git -C "$top" log -1 --format='%h %s' "$c")"
  done
  echo "$tree"
}

# Builds the targets of $1's tree that exist at that commit.
build_tree() {
  local tree=$1 label=$2 have=() target
  cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$tree.cmake.log" 2>&1 ||
    die "$label: cmake failed (see $tree.cmake.log)"
  # The list is read whole: grep -q would stop at the first match, and
  # ninja, cut off, would fail the pipeline under pipefail.
  local listed
  listed=$(ninja -C "$tree/build" -t targets all 2> /dev/null)
  for target in "${targets[@]}"; do
    if grep "^$target:" <<< "$listed" > /dev/null; then have+=("$target"); fi
  done
  [ ${#have[@]} -gt 0 ] || die "$label: none of ${targets[*]} is a build target at this commit"
  note "$label: building ${have[*]} in $tree/build"
  CCACHE_BASEDIR=$tree cmake --build "$tree/build" --target "${have[@]}" -j "$jobs" > "$tree.build.log" 2>&1 ||
    die "$label: build failed (see $tree.build.log)"
}

# The path of built program $2 in tree $1, or nothing.
built() { find "$1/build" -name "$2" -type f -perm -u+x -not -path '*/CMakeFiles/*' 2> /dev/null | head -n 1; }

labels=("$base_short" "$head_short")
commits=("$base" "$head")
if [ "$dry_run" = 1 ]; then
  for i in 0 1; do
    picks=$(missing_applies "${commits[$i]}" | cut -c1-10 | paste -sd ' ' -)
    echo "# ${labels[$i]}: worktree under $out/trees, ${picks:+cherry-pick -n $picks, }build ${targets[*]}"
  done
else
  declare -A bin_of gen_of
  for i in 0 1; do
    label=${labels[$i]}
    tree=$(prepare_tree "${commits[$i]}")
    build_tree "$tree" "$label"
    daemon=$(built "$tree" bitcoind)
    [ -n "$daemon" ] || die "$label: the build produced no bitcoind (see $tree.build.log)"
    if [ "$workload" != replay ] && [ -z "$(built "$tree" bitcoin-cli)" ]; then
      die "$label: the build produced no bitcoin-cli (see $tree.build.log)"
    fi
    bin_of[$label]=$(dirname "$daemon")
    gen_of[$label]=$(built "$tree" "$generator")
    [ -n "${gen_of[$label]}" ] || note "$label: no $generator at this commit"
    mkdir -p "$out/bin"
    ln -sfn "${bin_of[$label]}" "$out/bin/$label"
  done
fi

# --- input and flags -----------------------------------------------------------

[ "$dry_run" = 1 ] || mkdir -p "$out/inputs" "$out/logs"
common=(-regtest "-dbcache=$dbcache" -printtoconsole=0 -debug=coindb "-rpcport=$port")
case $workload in
  replay)
    input=$out/inputs/chain-$blocks-$utxos-$txs-$seed.dat
    gen_args=("-output=$input.tmp" "-blocks=$blocks" "-target-utxos=$utxos" "-txs-per-block=$txs" "-seed=$seed")
    flags=("${common[@]}" "-loadblock=$input" "-stopatheight=$blocks" -debug=prune)
    [ "$prune" = 0 ] || flags+=("-prune=$prune")
    needed=(-loadblock -stopatheight -dbcache)
    [ "$prune" = 0 ] || needed+=(-prune) ;;
  *)
    input=$out/inputs/snapshot-$coins-$seed.dat
    gen_args=("-output=$input.tmp" "-coins=$coins" "-seed=$seed")
    flags=("${common[@]}" -listen=0 -connect=0 -blocksonly=1)
    needed=(-assumeutxo -dbcache) ;;
esac
[ -z "$storage" ] || { flags+=("-debugstorage=$storage"); needed+=(-debugstorage); }
for flag in "${extra[@]}"; do
  flags+=("$flag")
  name=${flag%%=*}
  # -noX is X negated: the help lists -X.
  [[ $name == -no* ]] && needed+=("-${name#-no}") || needed+=("$name")
done

# A flag one commit lacks would fail its first run; say so before running.
if [ "$dry_run" = 0 ]; then
  for label in "${labels[@]}"; do
    help=$("${bin_of[$label]}/bitcoind" -help -help-debug 2> /dev/null) || { note "$label: no -help-debug, flags not checked"; continue; }
    for flag in "${needed[@]}"; do
      grep -qE -- "^  $flag(=|\$)" <<< "$help" && continue
      hint=
      [ "$flag" != -debugstorage ] || hint="; --apply the commit that adds it"
      die "$label's bitcoind has no $flag (not in its -help -help-debug)$hint"
    done
  done
fi

if [ "$dry_run" = 0 ] && [ ! -f "$input" ]; then
  gen=${gen_of[$head_short]:-${gen_of[$base_short]}}
  [ -n "$gen" ] || die "neither $base_short nor $head_short built $generator"
  note "generating $input with $gen"
  rm -f "$input.tmp"
  "$gen" "${gen_args[@]}" > "$input.json.tmp" || die "$generator failed"
  mv "$input.json.tmp" "$input.json"
  mv "$input.tmp" "$input"
fi
if [ "$workload" != replay ]; then
  if [ -f "$input.json" ]; then
    assumeutxo=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["assumeutxo"])' "$input.json")
  else
    assumeutxo=HEIGHT:BLOCKHASH:HASH
  fi
  flags+=("-assumeutxo=$assumeutxo")
fi

# --- the timed command -------------------------------------------------------

# The timed part of one run, $out/run.sh BIN_DIR LABEL: bitcoind on
# datadir-LABEL through the workload to its exit. It fails the benchmark
# when bitcoind fails or a replay stops short of the tip.
runner=$out/run.sh
# A dry run writes nothing under DIR.
scratch=$out
if [ "$dry_run" = 1 ]; then scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT; fi
{
  echo '#!/usr/bin/env bash'
  echo "# Written by compare_commits.sh: one timed $workload run. run.sh BIN_DIR LABEL"
  echo 'set -euo pipefail'
  echo 'bin=$1 label=$2'
  printf 'workload=%q out=%q input=%q blocks=%q port=%q\n' "$workload" "$out" "$input" "$blocks" "$port"
  printf 'flags=(%s)\n' "$(printf '%q ' "${flags[@]}")"
  cat << 'EOF'
datadir=$out/datadir-$label
log=$datadir/regtest/debug.log
flags+=("-datadir=$datadir")
fail() { echo "run.sh $label: $*; see $log" | tee -a "$out/logs/failures.txt" >&2; exit 1; }
if [ "$workload" = replay ]; then
  "$bin/bitcoind" "${flags[@]}" || fail "bitcoind exited with $?"
  grep -qE "UpdateTip: .* height=$blocks " "$log" || fail "the replay did not reach height $blocks"
  exit 0
fi
"$bin/bitcoind" "${flags[@]}" & pid=$!
trap 'kill $pid 2> /dev/null || true' EXIT
cli=("$bin/bitcoin-cli" -regtest "-datadir=$datadir" "-rpcport=$port" -rpcclienttimeout=0)
until "${cli[@]}" getblockcount > /dev/null 2>&1; do
  kill -0 "$pid" 2> /dev/null || fail "bitcoind exited during start-up"
  sleep 0.05
done
"${cli[@]}" loadtxoutset "$input" > /dev/null || fail "loadtxoutset failed"
"${cli[@]}" stop > /dev/null
wait "$pid" || fail "bitcoind exited with $?"
trap - EXIT
EOF
} > "$scratch/run.sh.tmp"

# Untimed, hyperfine's --prepare before each run of LABEL and once more at
# the end: reads the figures of LABEL's previous run from its debug.log
# into runs-LABEL.tsv, keeps the log as logs/LABEL.log, then (but for
# --final) empties the datadir for the next run.
harvest=$out/prepare.py
cat > "$scratch/prepare.py.tmp" << 'EOF'
#!/usr/bin/env python3
"""Written by compare_commits.sh: prepare.py LABEL [--final]"""
import re, shutil, sys
from pathlib import Path
out = Path(__file__).resolve().parent
label = sys.argv[1]
datadir = out / f"datadir-{label}"
log = datadir / "regtest" / "debug.log"
if log.exists():
    text = log.read_text(errors="replace")
    flushes = [float(ms) for ms in re.findall(r"FlushSnapshotToDisk: completed \(([0-9.]+) ?ms\)", text)]
    batches = [(int(ms), int(mib)) for ms, mib in re.findall(r"BatchWrite took=(\d+)ms, maxMem=(\d+)MiB", text)]
    writes = len(re.findall(r"Committed [1-9]\d* changed transaction outputs", text))
    prunes = len(re.findall(r"Pruning|[Pp]rune: ", text))
    row = [f"{sum(flushes):.2f}", len(flushes), len(batches), sum(ms for ms, _ in batches),
           max((mib for _, mib in batches), default=0), writes, prunes]
    with open(out / f"runs-{label}.tsv", "a") as f:
        f.write("\t".join(map(str, row)) + "\n")
    shutil.copyfile(log, out / "logs" / f"{label}.log")
if "--final" not in sys.argv:
    shutil.rmtree(datadir, ignore_errors=True)
    datadir.mkdir(parents=True)
EOF
chmod +x "$scratch/run.sh.tmp" "$scratch/prepare.py.tmp"

hyperfine_cmd=(hyperfine --runs "$runs" --export-json "$out/$workload.json" --export-markdown "$out/$workload.md"
  --prepare "$(printf %q "$harvest") {commit}" --parameter-list commit "$base_short,$head_short"
  --command-name "{commit}" "$(printf %q "$runner") $(printf %q "$out/bin")/{commit} {commit}")
if [ "$dry_run" = 1 ]; then
  echo "# bitcoind (from $out/bin/<commit>) runs as:"
  echo "bitcoind $(printf '%q ' "${flags[@]}")-datadir=$out/datadir-<commit>"
  echo "# the timed script, $runner:"
  cat "$scratch/run.sh.tmp"
  echo "# hyperfine (its --prepare, $harvest, reads the previous run's log and empties the datadir):"
  printf '%q ' "${hyperfine_cmd[@]}"
  echo
  exit 0
fi
mv "$scratch/run.sh.tmp" "$runner"
mv "$scratch/prepare.py.tmp" "$harvest"
for label in "${labels[@]}"; do
  rm -rf "$out/datadir-$label"
  : > "$out/runs-$label.tsv"
done
: > "$out/logs/failures.txt"

note "$workload: BASE $base_short, HEAD $head_short, $runs runs each; bitcoind $(printf '%q ' "${flags[@]}")"
"${hyperfine_cmd[@]}" || die "hyperfine failed: $(cat "$out/logs/failures.txt")"
for label in $(printf '%s\n' "${labels[@]}" | sort -u); do "$harvest" "$label" --final; done

# --- summary -----------------------------------------------------------------

python3 - "$out" "$workload" "$base_short" "$head_short" << 'EOF' | tee "$out/$workload-summary.txt"
import json, math, statistics, sys
from pathlib import Path
out, workload, base, head = Path(sys.argv[1]), *sys.argv[2:]
results = json.loads((out / f"{workload}.json").read_text())["results"]
b, h = results[0], results[1]
print()
print(f"BASE {base}: median {b['median']:.3f} s, mean {b['mean']:.3f} s over {len(b['times'])} runs")
print(f"HEAD {head}: median {h['median']:.3f} s, mean {h['mean']:.3f} s over {len(h['times'])} runs")
ratio = b["mean"] / h["mean"]
spread = ""
if len(b["times"]) > 1 and len(h["times"]) > 1:
    rel = math.hypot(b["stddev"] / b["mean"], h["stddev"] / h["mean"])
    spread = f" ± {(ratio if ratio >= 1 else 1 / ratio) * rel:.2f}"
if ratio >= 1:
    print(f"HEAD is {ratio:.2f}{spread} times faster than BASE ({workload}, means)")
else:
    print(f"HEAD is {1 / ratio:.2f}{spread} times slower than BASE ({workload}, means)")
columns = ["flush_ms", "flushes", "batchwrites", "batchwrite_ms", "maxmem_mib", "coin_writes", "prunes"]
for name, label in (("BASE", base), ("HEAD", head)):
    rows = [dict(zip(columns, map(float, line.split("\t"))))
            for line in (out / f"runs-{label}.tsv").read_text().splitlines() if line]
    if not rows:
        continue
    med = {c: statistics.median(r[c] for r in rows) for c in columns}
    text = (f"{name} {label} (log, median of {len(rows)}): FlushSnapshotToDisk {med['flush_ms']:.0f} ms in "
            f"{med['flushes']:.0f} flushes, {med['batchwrites']:.0f} BatchWrite lines of {med['batchwrite_ms']:.0f} ms, "
            f"peak maxMem {med['maxmem_mib']:.0f} MiB")
    if workload == "replay":
        text += f", {med['coin_writes']:.0f} coins-db writes, {med['prunes']:.0f} prune lines"
    print(text)
    if workload == "flush" and max(r["flushes"] for r in rows) > 1:
        print(f"warning: {label} flushed more than once in a run: the cache did not hold the snapshot; raise --dbcache")
EOF
echo "wrote $out/$workload.json, $out/$workload.md, $out/$workload-summary.txt"
