#ifndef COINSDB_DBWRAPPER_TABLEFILES_H
#define COINSDB_DBWRAPPER_TABLEFILES_H

// For dbwrapper.cpp only: the LevelDB environment every database on disk
// writes through.

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
std::unique_ptr<leveldb::Env> NewTableBufferingEnv(leveldb::Env* base);

#endif // COINSDB_DBWRAPPER_TABLEFILES_H
