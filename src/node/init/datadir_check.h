#ifndef COINSDB_NODE_INIT_DATADIR_CHECK_H
#define COINSDB_NODE_INIT_DATADIR_CHECK_H

// Telling a coinsdb data directory from Bitcoin Core's before writing to it.
//
// Both lay a datadir out alike: <datadir>/ is main's chain directory, and
// <datadir>/{testnet3,testnet4,signet,regtest}/ are the test chains'. In a
// chain directory:
//
//   entry                                   written by     in the check
//   blocks/, chainstate/, chainstate_snapshot/  both (same formats)  "chain data"
//   wallets/, wallet.dat, database/, settings.json, peers.dat,
//   anchors.dat, banlist.json, banlist.dat, mempool.dat,
//   fee_estimates.dat, indexes/, onion_v3_private_key,
//   i2p_private_key                         Core only      "Core data"
//   coinsdb_datadir (the marker)            coinsdb only   -
//   bitcoin.conf, debug.log, .lock, .cookie, bitcoind.pid  both  ignored
//
// coinsdb writes the marker into a chain directory before anything else,
// when that directory holds no chain data yet. A chain directory is foreign
// when it holds Core data (Core has run there, marker or not), or chain data
// without the marker (someone else wrote it). An empty blocks/ or
// chainstate/ directory, or a symlink to one, is not chain data: it holds
// no one's data, and operators prepare them (on another disk) before the
// first start. An empty Core-only entry still counts, as Core made it. The formats are the same, so
// coinsdb could read most of it; it refuses anyway because it does not verify
// scripts: the block index entries and chainstate it writes would be trusted
// by Core, -reindex/-reindex-chainstate would throw away Core's work, and
// wallets and indexes would silently fall behind a chain coinsdb moved.
//
// The whole datadir is checked, not only the chain in use, so that coinsdb
// does not start a chain of its own inside Core's datadir either.

#include <filesystem>
#include <string>
#include <vector>

namespace node {

// Written into each chain directory coinsdb starts from scratch.
inline constexpr const char* DATADIR_MARKER_FILE{"coinsdb_datadir"};

// The foreign entries of every chain directory of datadir, as paths relative
// to it ("regtest/blocks"), in the order of the table above; empty when
// coinsdb may use it. Only reads. An entry whose status cannot be read
// counts as present: when in doubt, refuse.
std::vector<std::string> FindForeignData(const std::filesystem::path& datadir);

// The start-up error for FindForeignData's result; names the override.
std::string ForeignDataDirError(const std::filesystem::path& datadir, const std::vector<std::string>& entries);

// Writes the marker into chain_dir (which must exist) when it holds no chain
// data and no marker yet. Never marks a directory with someone else's chain
// data, even when -allowforeigndatadir lets coinsdb use it. False, with
// error set, when the marker cannot be written.
bool MarkNewChainDir(const std::filesystem::path& chain_dir, std::string& error);

} // namespace node

#endif // COINSDB_NODE_INIT_DATADIR_CHECK_H
