#!/usr/bin/env bash
# Builds Debian's own LevelDB (the source package of the installed
# libleveldb1d, its patches applied, Debian's compiler flags) with its
# symbols kept, for profiling only, and prints the directory that holds it:
#
#   LD_LIBRARY_PATH=$(contrib/bench/leveldb_symbols.sh) perf record -g build/src/bitcoind ...
#
# Why: Debian strips libleveldb.so.1d and its -dbgsym package lives in an
# archive this machine cannot reach, so perf shows LevelDB's share of a
# profile but not which of its functions. The library built here is the
# same version and the same code at the same optimisation level (-O2) as
# the installed one, so a profile taken with it stands for the installed
# one; the build adds nothing but the symbol tables.
#
# With --no-seek-compactions it builds, for measurement only, the same
# library with one change: a read never counts against a table's allowed
# seeks (Version::UpdateStats does nothing), so LevelDB never schedules a
# seek-triggered compaction, as in Bitcoin Core's LevelDB since 2025.
# Debian's LevelDB has no option for it; this variant says how much of a
# replay's compaction those are (doc/benchmarks/replay.md, round 21):
#
#   contrib/bench/alternate_replay.py ... build/src/bitcoind \
#       build/src/bitcoind@$(contrib/bench/leveldb_symbols.sh --no-seek-compactions)
#
# The result is cached in ${COINSDB_CACHE:-$HOME/.cache/coinsdb}; the first
# call downloads the source (about 250 kB) from deb.debian.org and builds it
# in about a minute on one core. Needs libsnappy-dev (installed here if
# missing, as Debian's build links snappy too).
set -euo pipefail

variant=symbols
case "${1:-}" in
    "") ;;
    --no-seek-compactions) variant=no-seek-compactions ;;
    *) echo "usage: $0 [--no-seek-compactions]" >&2; exit 2 ;;
esac

version=$(dpkg-query -W -f='${Version}' libleveldb1d 2>/dev/null) || {
    echo "libleveldb1d is not installed (run contrib/install_deps.sh)" >&2; exit 1; }
cache=${COINSDB_CACHE:-$HOME/.cache/coinsdb}
out=$cache/leveldb-$version-$variant
lib=$out/lib/libleveldb.so.1d

if [ ! -e "$lib" ]; then
    if ! dpkg-query -W -f='${Status}' libsnappy-dev 2>/dev/null | grep -q "ok installed"; then
        echo "installing libsnappy-dev (Debian's LevelDB build links snappy)" >&2
        sudo_cmd=(); [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
        "${sudo_cmd[@]}" apt-get install -y -q libsnappy-dev >&2
    fi
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # A private source list, so the machine's apt configuration stays as it is.
    mkdir -p "$work/lists/partial"
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    echo "deb-src http://deb.debian.org/debian $codename main" > "$work/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
              -o "Dir::State::Lists=$work/lists" -q)
    echo "downloading the source of leveldb $version" >&2
    apt-get "${apt_opts[@]}" update >&2
    (cd "$work" && apt-get "${apt_opts[@]}" source "leveldb=$version" >&2)
    src=$(find "$work" -maxdepth 1 -type d -name 'leveldb-*' | head -1)
    if [ "$variant" = no-seek-compactions ]; then
        # The one place a read is charged to a table (Get, and an
        # iterator's read sampling, both end here).
        file=$src/db/version_set.cc
        before='  if (f != nullptr) {'
        after='  if (false \&\& f != nullptr) {  // coinsdb: no seek-triggered compactions'
        [ "$(grep -c -F -x "$before" "$file")" = 1 ] || {
            echo "$file: Version::UpdateStats is not as expected; not patching" >&2; exit 1; }
        sed -i "s|^$before\$|$after|" "$file"
        grep -q "coinsdb: no seek-triggered compactions" "$file" || { echo "patching $file failed" >&2; exit 1; }
    fi
    # Debian's rules build with dpkg-buildflags' flags plus -fPIC and
    # CMAKE_BUILD_TYPE=None (the flags alone decide); -g is among them.
    flags="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS) -fPIC"
    echo "building it with: $flags" >&2
    cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=ON \
        -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
        -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF -DLEVELDB_INSTALL=OFF >&2
    cmake --build "$work/build" -j"$(nproc)" >&2
    mkdir -p "$out/lib"
    built=$(find "$work/build" -maxdepth 1 -name 'libleveldb.so.*' -type f | head -1)
    cp "$built" "$out/lib/"
    ln -sf "$(basename "$built")" "$lib"
    [ "$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')" = libleveldb.so.1d ] || {
        echo "the built library's soname is not libleveldb.so.1d" >&2; exit 1; }
fi
echo "$out/lib"
