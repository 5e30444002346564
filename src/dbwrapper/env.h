#ifndef COINSDB_DBWRAPPER_ENV_H
#define COINSDB_DBWRAPPER_ENV_H

// For dbwrapper.cpp only: the LevelDB environments a database writes
// through, and the one order they are stacked in.
//
// From LevelDB down, each layer wrapping the one below it:
//
//   layer            present when                            what it does
//   log order        the database is on disk                 a new log's bytes are held in the process until
//                                                            the log before it is a table: a power loss loses
//                                                            a tail of the writes
//   table buffering  the database is on disk                 table files reach the kernel in 1 MiB writes;
//                                                            a bulk load's with O_DIRECT
//   write budget     DBOptions::fail_writes_after_bytes      writes fail as on a full disk once a budget is spent
//   slower device    DBOptions::storage (-debugstorage)      every file waits for one simulated device
//   base             always                                  the file system (leveldb::Env::Default()), a test's
//                                                            (DBOptions::base_env_for_tests), or memory
//                                                            (DBParams::memory_only)
//
// The order rule: each layer stands where what it simulates or replaces
// stands on a real machine. The log order and the table buffering are the
// process's own, so they are nearest LevelDB (the log order's sync goes
// down through every layer, as LevelDB's own syncs do). The write budget
// and the slower device stand for the disk, so they get what a disk would
// get: the buffering's 1 MiB writes rather than LevelDB's 4 KiB blocks, so
// that a full disk fails one of those large writes as it would for real,
// and the device is charged for the writes it would see. The device is below the budget: a write the
// full disk refused never reaches it. O_DIRECT files are opened with
// open(2), around every layer below the buffering, so a bulk load's tables
// take that path only when nothing stands between the buffering and the
// file system (no budget, no device, no test's base).

#include <storage_profile.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

namespace leveldb {
class Env;
class Status;
}

// The size of the writes a table file reaches the kernel in.
constexpr size_t TABLE_WRITE_BYTES = size_t{1} << 20;

class EnvStack
{
public:
    struct Layers {
        // Memory in place of the file system; no table buffering.
        bool memory_only{false};
        // The file system's stand-in for tests, when not in memory; null
        // for the file system itself. Not owned.
        leveldb::Env* base_for_tests{nullptr};
        std::optional<StorageProfile> storage{};
        bool write_budget{false};
    };

    explicit EnvStack(const Layers& layers);
    ~EnvStack();
    EnvStack(const EnvStack&) = delete;
    EnvStack& operator=(const EnvStack&) = delete;

    // What LevelDB writes through.
    leveldb::Env* Top() const { return m_top; }
    // The bottom layer alone.
    leveldb::Env* Base() const { return m_base; }
    // Gives the write budget its bytes; until then it is unlimited, since
    // opening a database writes too. Without a budget layer, a no-op.
    void ArmBudget(size_t bytes);
    // Hands the log order layer's held bytes to the kernel: waits up to
    // `wait` for LevelDB to make the log before them a table, then syncs
    // that log instead. Afterwards every write that returned survives a
    // crash of the process. Without that layer, a no-op.
    leveldb::Status ReleaseHeldLog(std::chrono::milliseconds wait);
    // Table files of bulk loads written with O_DIRECT so far, so that a test
    // or a benchmark can tell that path ran: where the file system refuses
    // O_DIRECT, the files silently take the buffered one (logged once).
    size_t DirectIngestFiles() const;

private:
    std::unique_ptr<leveldb::Env> m_memory;
    std::unique_ptr<leveldb::Env> m_device;
    std::unique_ptr<leveldb::Env> m_budget;
    std::unique_ptr<leveldb::Env> m_table_buffering;
    std::unique_ptr<leveldb::Env> m_log_order;
    leveldb::Env* m_base{nullptr};
    leveldb::Env* m_top{nullptr};
};

#endif // COINSDB_DBWRAPPER_ENV_H
