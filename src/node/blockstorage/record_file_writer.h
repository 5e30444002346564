#ifndef COINSDB_NODE_BLOCKSTORAGE_RECORD_FILE_WRITER_H
#define COINSDB_NODE_BLOCKSTORAGE_RECORD_FILE_WRITER_H

#include <node/blockstorage/obfuscation.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace node {

// Writes the records of one blk or rev file on a thread of its own, with
// O_DIRECT where the file system allows it (the records' bytes are
// node/blockstorage's to define; this obfuscates them by their offset and
// places them).
//
// Why: a block replay stores every block it connects. Storing them cost the
// thread that connects blocks (the replay's critical path) their
// obfuscation and a copy into the page cache, and the machine the kernel's
// writeback of them: a build that stored no block (tag
// explore/round23-skip-block-write) replayed the 6.0M chain with hints in
// 7.18 s against 8.21 s. O_DIRECT alone (each write waiting for the disk,
// tag explore/round23-direct-blocks) or a thread alone (through the page
// cache) each gained nothing there; together, alternated with the parent
// (contrib/bench/alternate_replay.py, medians): hinted replays 8.17 -> 7.59 s
// (6.0M chain, -dbcache=100, 6 runs) and 2.65 -> 2.48 s (1000 blocks,
// -dbcache=450, 8 runs), the normal replay of the 1000 blocks 5.32 -> 4.97 s
// (6 runs); the normal 6.0M replay within its noise (25.71 -> 24.76 s, 3
// runs of 23.5-27.3 s). Peak RSS: up to 25 MiB more.
//
// How: the thread appends each record to an aligned buffer that holds the
// file's bytes from the 4 KiB block where the unwritten part begins, and
// writes whole buffers as they fill. Flush writes the rest, its last block
// padded with zeros, trims the file to the records' end, and keeps that
// block, which the next write rewrites with more records in it. A write at
// another offset than the end of the last (a file reopened after a
// restart) first reads its block's bytes before it.
//
// So a record is in the file after Flush (readers of the file flush first)
// and on the disk after Sync; a crash of the process loses what was not
// flushed, as a power loss loses what was not synced. At most
// MAX_QUEUED_BYTES of records wait for the thread: Write waits for room
// beyond that (one record of any size is always taken). A write that fails
// fails every later call, since records queued before it may be lost with
// it. A file system that refuses O_DIRECT (tmpfs) gets the same writes
// through the page cache.
class RecordFileWriter
{
public:
    // 4 KiB covers the logical block size of every device O_DIRECT meets.
    static constexpr size_t ALIGN{4096};
    static constexpr size_t BUFFER_BYTES{size_t{1} << 20};
    static constexpr size_t MAX_QUEUED_BYTES{size_t{8} << 20};

    // Null, with `error` set, when the file cannot be opened for writing.
    // Creates the file if it does not exist and keeps what it holds; Flush
    // later trims whatever lies past the last record written (records go at
    // the end of the file's known records, so only bytes no index names).
    static std::unique_ptr<RecordFileWriter> Open(const std::filesystem::path& path, const BlockFileXorKey& key, std::string& error);
    // Writes what is queued, then closes the file (without a sync).
    ~RecordFileWriter();
    RecordFileWriter(const RecordFileWriter&) = delete;
    RecordFileWriter& operator=(const RecordFileWriter&) = delete;

    // A buffer for the next record, reused from written ones.
    std::vector<std::byte> TakeBuffer();
    // Queues `record` (plain bytes) for file offset `pos`.
    bool Write(uint64_t pos, std::vector<std::byte>&& record, std::string& error);
    // Waits until every queued record is in the file.
    bool Flush(std::string& error);
    // Flush, then fdatasync.
    bool Sync(std::string& error);

    bool Direct() const { return m_direct; }
    const std::filesystem::path& Path() const { return m_path; }

private:
    RecordFileWriter(std::filesystem::path path, int fd, bool direct, std::byte* buffer, const BlockFileXorKey& key);
    void Run();
    bool FailedLocked(std::string& error) const;

    // The aligned buffer's side; only the thread, or a caller holding
    // m_mutex while the thread is idle, touches it. Each returns an error
    // message, empty on success.
    std::string Append(uint64_t pos, std::span<const std::byte> bytes);
    std::string MoveTo(uint64_t pos);
    std::string WriteOut(size_t size);
    std::string FlushBuffer();

    struct Queued {
        uint64_t pos;
        std::vector<std::byte> bytes;
    };
    struct FreeAligned {
        void operator()(std::byte* buffer) const;
    };

    const std::filesystem::path m_path;
    const int m_fd;
    const bool m_direct;
    const BlockFileXorKey m_key;

    // The file's bytes from m_base (a multiple of ALIGN) on, m_used of them;
    // m_placed once the first write set m_base; m_dirty while the file
    // lacks some of them.
    std::unique_ptr<std::byte, FreeAligned> m_buffer;
    uint64_t m_base{0};
    size_t m_used{0};
    bool m_placed{false};
    bool m_dirty{false};

    std::mutex m_mutex;
    std::condition_variable m_work; // the thread: a record queued, or stop
    std::condition_variable m_idle; // callers: a record written
    std::deque<Queued> m_queue;
    size_t m_queued_bytes{0};
    bool m_busy{false}; // the thread holds a record off the queue
    bool m_stop{false};
    std::string m_error;
    std::vector<std::vector<std::byte>> m_free;
    std::thread m_thread;
};

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_RECORD_FILE_WRITER_H
