#ifndef COINSDB_DBWRAPPER_ENV_H
#define COINSDB_DBWRAPPER_ENV_H

// For dbwrapper.cpp only: the LevelDB environment every database on disk
// writes through.

#include <storage_profile.h>

#include <atomic>
#include <cstddef>
#include <memory>

namespace leveldb {
class Env;
}

// The size of the writes a table file reaches the kernel in.
constexpr size_t TABLE_WRITE_BYTES = size_t{1} << 20;

// `base`, except that table files (".ldb") collect their bytes and hand
// them on TABLE_WRITE_BYTES at a time, and at Sync and Close.
//
// Why: LevelDB flushes a table file after every 4 KiB block, so a flush of
// the coins cache costs its compaction thread one write(2) per block, a
// million system calls for 4 GiB of tables. Holding the bytes back is safe
// for tables: LevelDB syncs and closes a table before any version of the
// database refers to it, and an error in a held-back write surfaces there.
// The write-ahead log and the MANIFEST are left alone: LevelDB counts on a
// log record reaching the kernel before Write returns, so that a crash of
// the process alone loses nothing that was written.
//
// With `direct_ingest` (set only when `base` is the file system itself), the
// table files coinsdb builds for a bulk ingestion ("ingest-N.ldb",
// dbwrapper/ingest.h) are written with O_DIRECT where the file system
// allows it: they are read back by LevelDB only after their flush, and
// copying 4 GiB of them into the page cache was a third of a 60M-coin
// flush's CPU on this project's machines (doc/benchmarks.md, round 13).
// Their last partial 4 KiB block goes through the page cache; the file is
// synced before any MANIFEST names it, as every table is.
// Counts the table files of bulk ingestion written with O_DIRECT, so that a
// test or a benchmark can tell that path ran: where the file system refuses
// O_DIRECT, the files silently take the buffered one (logged once).
struct DirectFileCount {
    std::atomic<size_t> files{0};
};
std::unique_ptr<leveldb::Env> NewTableBufferingEnv(leveldb::Env* base, bool direct_ingest = false,
                                                   std::shared_ptr<DirectFileCount> direct_files = nullptr);

// DBOptions::fail_writes_after_bytes: every file opened for writing
// through the returned environment draws on one byte budget, unlimited
// until ArmBudget gives it one.
std::unique_ptr<leveldb::Env> NewBudgetedEnv(leveldb::Env* base);
// `env` is one NewBudgetedEnv returned.
void ArmBudget(leveldb::Env& env, size_t budget);

// Every file `base` opens through the returned environment waits for one
// simulated device with the profile's rate and delays (storage_profile.h).
std::unique_ptr<leveldb::Env> NewThrottledEnv(leveldb::Env* base, const StorageProfile& profile);

#endif // COINSDB_DBWRAPPER_ENV_H
