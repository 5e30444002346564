#include <dbwrapper/env.h>

#include <dbwrapper/codec.h>
#include <util/log.h>

#include <leveldb/env.h>
#include <leveldb/helpers/memenv.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

bool IsTableFile(std::string_view name)
{
    // LevelDB writes ".ldb"; ".sst" is the name older versions wrote.
    return name.ends_with(".ldb") || name.ends_with(".sst");
}

class BufferedTableFile final : public leveldb::WritableFile
{
public:
    explicit BufferedTableFile(leveldb::WritableFile* file) : m_file{file} { m_buffer.reserve(TABLE_WRITE_BYTES); }

    // LevelDB drops a table it did not close only after a failure, and
    // deletes it; what is still held back goes the same way.
    ~BufferedTableFile() override = default;

    leveldb::Status Append(const leveldb::Slice& data) override
    {
        if (m_buffer.size() + data.size() > TABLE_WRITE_BYTES) {
            if (auto status = Drain(); !status.ok()) return status;
            if (data.size() >= TABLE_WRITE_BYTES) return m_file->Append(data);
        }
        m_buffer.append(data.data(), data.size());
        return leveldb::Status::OK();
    }

    // The point of this class: a block's flush does not reach the kernel.
    leveldb::Status Flush() override { return leveldb::Status::OK(); }

    leveldb::Status Sync() override
    {
        if (auto status = Drain(); !status.ok()) return status;
        return m_file->Sync();
    }

    leveldb::Status Close() override
    {
        if (auto status = Drain(); !status.ok()) return status;
        return m_file->Close();
    }

private:
    leveldb::Status Drain()
    {
        if (m_buffer.empty()) return leveldb::Status::OK();
        auto status = m_file->Append(m_buffer);
        m_buffer.clear();
        return status;
    }

    std::unique_ptr<leveldb::WritableFile> m_file;
    std::string m_buffer;
};

// O_DIRECT wants the buffer, the offset and the size of each write aligned
// to the device's logical block; 4 KiB covers every block size in use.
constexpr size_t DIRECT_ALIGN = 4096;
constexpr size_t DIRECT_WRITE_BYTES = size_t{4} << 20;

leveldb::Status PosixError(const std::string& name, int error)
{
    return leveldb::Status::IOError(name, std::strerror(error));
}

// Aligned buffers for direct files, kept for the next file. A fresh one is
// a thousand pages for the kernel to fault in and zero, and a 60M-coin
// flush builds 260 files.
class DirectBufferPool
{
public:
    ~DirectBufferPool()
    {
        for (char* buffer : m_free) std::free(buffer);
    }

    // Null when no memory is left.
    char* Take()
    {
        {
            const std::lock_guard lock{m_mutex};
            if (!m_free.empty()) {
                char* buffer = m_free.back();
                m_free.pop_back();
                return buffer;
            }
        }
        void* buffer = nullptr;
        if (::posix_memalign(&buffer, DIRECT_ALIGN, DIRECT_WRITE_BYTES) != 0) return nullptr;
        return static_cast<char*>(buffer);
    }

    void Give(char* buffer)
    {
        {
            const std::lock_guard lock{m_mutex};
            if (m_free.size() < KEPT) {
                m_free.push_back(buffer);
                return;
            }
        }
        std::free(buffer);
    }

private:
    // One for each of the files a flush builds at once.
    static constexpr size_t KEPT = 2;

    std::mutex m_mutex;
    std::vector<char*> m_free;
};

// Writes whole DIRECT_WRITE_BYTES chunks from an aligned buffer with
// O_DIRECT; at Sync or Close, the rest's whole 4 KiB blocks the same way
// and its last partial block through the page cache, after which the
// file takes plain writes. A direct write returns once the disk
// has the data: the builder of the file waits for it, while the other
// builder and the flush's walk go on. (Writing each 1 MiB chunk on a
// thread of its own while the next one filled measured slower: 17.0 s
// against 13.1 s and 15.2 s for a 60M flush, alternating.)
class DirectTableFile final : public leveldb::WritableFile
{
public:
    // Null, with `error` set, when the file cannot be opened so.
    static leveldb::WritableFile* Open(const std::string& name, std::shared_ptr<DirectBufferPool> pool, int& error)
    {
        const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644);
        if (fd < 0) {
            error = errno;
            return nullptr;
        }
        char* buffer = pool->Take();
        if (buffer == nullptr) {
            error = ENOMEM;
            ::close(fd);
            ::unlink(name.c_str());
            return nullptr;
        }
        return new DirectTableFile{name, fd, buffer, std::move(pool)};
    }

    ~DirectTableFile() override
    {
        if (m_fd >= 0) ::close(m_fd);
        m_pool->Give(m_buffer);
    }

    leveldb::Status Append(const leveldb::Slice& data) override
    {
        const char* p = data.data();
        size_t left = data.size();
        while (left > 0) {
            const size_t n = std::min(left, DIRECT_WRITE_BYTES - m_used);
            std::memcpy(m_buffer + m_used, p, n);
            m_used += n;
            p += n;
            left -= n;
            if (m_used == DIRECT_WRITE_BYTES) {
                if (auto status = WriteBuffer(); !status.ok()) return status;
            }
        }
        return leveldb::Status::OK();
    }

    leveldb::Status Flush() override { return leveldb::Status::OK(); }

    leveldb::Status Sync() override
    {
        if (auto status = WriteTail(); !status.ok()) return status;
        if (::fdatasync(m_fd) != 0) return PosixError(m_name, errno);
        return leveldb::Status::OK();
    }

    leveldb::Status Close() override
    {
        leveldb::Status status = WriteTail();
        if (::close(m_fd) != 0 && status.ok()) status = PosixError(m_name, errno);
        m_fd = -1;
        return status;
    }

private:
    DirectTableFile(std::string name, int fd, char* buffer, std::shared_ptr<DirectBufferPool> pool)
        : m_name{std::move(name)}, m_fd{fd}, m_buffer{buffer}, m_pool{std::move(pool)} {}

    leveldb::Status WriteBuffer()
    {
        size_t done = 0;
        while (done < m_used) {
            const ssize_t n = ::write(m_fd, m_buffer + done, m_used - done);
            if (n < 0) {
                if (errno == EINTR) continue;
                return PosixError(m_name, errno);
            }
            done += static_cast<size_t>(n);
        }
        m_used = 0;
        return leveldb::Status::OK();
    }

    // What is left: its whole 4 KiB blocks directly too, the last partial
    // block through the page cache.
    leveldb::Status WriteTail()
    {
        if (!m_direct) return WriteBuffer();
        const size_t partial = m_used % DIRECT_ALIGN;
        const size_t whole = m_used - partial;
        m_used = whole;
        if (auto status = WriteBuffer(); !status.ok()) return status;
        std::memmove(m_buffer, m_buffer + whole, partial);
        m_used = partial;
        const int flags = ::fcntl(m_fd, F_GETFL);
        if (flags < 0 || ::fcntl(m_fd, F_SETFL, flags & ~O_DIRECT) != 0) return PosixError(m_name, errno);
        m_direct = false;
        return WriteBuffer();
    }

    std::string m_name;
    int m_fd;
    char* m_buffer;
    std::shared_ptr<DirectBufferPool> m_pool;
    size_t m_used{0};
    bool m_direct{true};
};

bool IsLogFile(std::string_view name) { return name.ends_with(".log"); }

// The log order layer. LevelDB writes to one log file at a time, and when
// its memtable is full it starts the next log without syncing the one it
// leaves (DBImpl::MakeRoomForWrite): that log's records become durable only
// once the memtable's table and the MANIFEST naming it are, which its
// compaction thread writes later, and then LevelDB deletes the log. Until
// then a write to the new log could reach the disk (by a sync, or because
// the kernel wrote it back first) while writes before it in the old log do
// not, and a power loss would leave later writes without earlier ones: a
// flush's last batch without its middle ones, or a flush without the one
// before it, which nothing at start-up can tell.
//
// So the new log's bytes stay in this process (held) until LevelDB deletes
// the log it left, that is until what that log holds is in a synced table,
// and then go to the kernel in order. A power loss loses at most a tail of
// the writes, as LevelDB's own tests assume (with each file reaching the
// disk in order). Where a write cannot wait for the table, the left log is
// synced instead and the held bytes handed on at once: a synced write to
// the new log, more than MAX_HELD_BYTES held, LevelDB leaving the new log
// too before the old one is gone (it leaves a log only once the memtable
// before was written, so this waits up to SWITCH_WAIT for the deletion
// that follows), closing it, and EnvStack::ReleaseHeldLog after its wait.
// Syncing every left log, as this layer did before, kept the order too,
// but put every log on the disk in full, where Core's are deleted before
// the kernel writes them back (doc/benchmarks/replay.md, round 26).
//
// The cost: an unsynced write that returned may sit here, not yet in the
// kernel, until the memtable before it is a table (one memtable's
// compaction), so a crash of the process alone could lose it too, as a
// power loss could; txdb ends each flush with
// CDBWrapper::ReleaseHeldWrites, so that a flush that returned survives
// such a crash as before, and one under way keeps a prefix. At most one
// log's bytes are held, bounded by MAX_HELD_BYTES: LevelDB does not fill a
// memtable while the one before it is being written.
class LogOrderEnv final : public leveldb::EnvWrapper
{
public:
    static constexpr size_t MAX_HELD_BYTES{size_t{64} << 20};
    static constexpr std::chrono::milliseconds SWITCH_WAIT{1000};

    explicit LogOrderEnv(leveldb::Env* base) : leveldb::EnvWrapper{base} {}

    leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        if (!IsLogFile(name)) return target()->NewWritableFile(name, result);
        std::unique_lock lock{m_mutex};
        if (m_left) {
            m_released.wait_for(lock, SWITCH_WAIT, [&] { return !m_left; });
            if (m_left) {
                if (leveldb::Status status = SyncLeftAndRelease(); !status.ok()) return status;
            }
        }
        leveldb::WritableFile* file = nullptr;
        leveldb::Status status = target()->NewWritableFile(name, &file);
        if (!status.ok()) return status;
        auto log = std::make_shared<Log>(name, file);
        // From here until the log left is gone or synced, the new one holds.
        m_left = std::move(m_current);
        m_current = log;
        *result = new LogFile{*this, std::move(log)};
        return status;
    }

    leveldb::Status RemoveFile(const std::string& name) override
    {
        // LevelDB deletes a log only once the MANIFEST no longer names it,
        // so the held bytes may go on already; and the left log is closed
        // here before it is gone, so that a sync cannot meet it half
        // deleted.
        {
            const std::lock_guard lock{m_mutex};
            if (m_left && m_left->name == name) {
                m_left->file.reset();
                m_left.reset();
                Release();
            }
        }
        return target()->RemoveFile(name);
    }

    // See EnvStack::ReleaseHeldLog.
    leveldb::Status ReleaseHeld(std::chrono::milliseconds wait)
    {
        std::unique_lock lock{m_mutex};
        // The log written to now; LevelDB may start another meanwhile,
        // which it does only once this one is released.
        const std::shared_ptr<Log> log = m_current;
        if (!log) return {};
        m_released.wait_for(lock, wait, [&] { return !Holding(*log); });
        if (Holding(*log)) return SyncLeftAndRelease();
        return log->error;
    }

private:
    struct Log {
        Log(std::string log_name, leveldb::WritableFile* log_file) : name{std::move(log_name)}, file{log_file} {}
        const std::string name;
        // Null once closed here.
        std::unique_ptr<leveldb::WritableFile> file;
        // While the log before this one is not yet in a table (Holding),
        // this log's bytes are kept here rather than handed on.
        std::string held;
        // A failed hand-on of held bytes, returned by every later call.
        leveldb::Status error;
    };

    // What LevelDB writes to: a log, held or not.
    class LogFile final : public leveldb::WritableFile
    {
    public:
        LogFile(LogOrderEnv& env, std::shared_ptr<Log> log) : m_env{env}, m_log{std::move(log)} {}
        ~LogFile() override
        {
            const std::lock_guard lock{m_env.m_mutex};
            // Dropped without Close (LevelDB's destructor drops its last
            // log so): what is held goes on first.
            if (m_env.Holding(*m_log)) (void)m_env.SyncLeftAndRelease();
            if (m_env.m_current == m_log) m_env.m_current.reset();
        }

        leveldb::Status Append(const leveldb::Slice& data) override
        {
            const std::lock_guard lock{m_env.m_mutex};
            if (!m_log->error.ok()) return m_log->error;
            if (!m_env.Holding(*m_log)) return m_log->file->Append(data);
            m_log->held.append(data.data(), data.size());
            if (m_log->held.size() <= MAX_HELD_BYTES) return {};
            return m_env.SyncLeftAndRelease();
        }
        leveldb::Status Flush() override
        {
            const std::lock_guard lock{m_env.m_mutex};
            if (!m_log->error.ok()) return m_log->error;
            return m_env.Holding(*m_log) ? leveldb::Status{} : m_log->file->Flush();
        }
        leveldb::Status Sync() override
        {
            const std::lock_guard lock{m_env.m_mutex};
            if (m_env.Holding(*m_log)) {
                if (leveldb::Status status = m_env.SyncLeftAndRelease(); !status.ok()) return status;
            }
            if (!m_log->error.ok()) return m_log->error;
            return m_log->file->Sync();
        }
        leveldb::Status Close() override
        {
            const std::lock_guard lock{m_env.m_mutex};
            // The log LevelDB left stays open here until it is deleted, in
            // case it has to be synced; its records are in the kernel.
            if (m_env.m_left == m_log || !m_log->file) return {};
            if (m_env.Holding(*m_log)) {
                if (leveldb::Status status = m_env.SyncLeftAndRelease(); !status.ok()) return status;
            }
            leveldb::Status status = m_log->file->Close();
            m_log->file.reset();
            return m_log->error.ok() ? status : m_log->error;
        }

    private:
        LogOrderEnv& m_env;
        const std::shared_ptr<Log> m_log;
    };

    // Whether `log` holds its bytes: it is the current log, and the one
    // LevelDB left for it is neither deleted nor synced. Called with
    // m_mutex held.
    bool Holding(const Log& log) const { return m_left && m_current.get() == &log; }

    // The current log's held bytes go on to the kernel, the left log being
    // gone or synced (m_left already reset). Called with m_mutex held.
    void Release()
    {
        if (m_current && !m_current->held.empty()) {
            leveldb::Status status = m_current->file->Append(m_current->held);
            if (status.ok()) status = m_current->file->Flush();
            std::string{}.swap(m_current->held);
            if (!status.ok()) m_current->error = status;
        }
        m_released.notify_all();
    }

    // Where the current log cannot wait for the one LevelDB left to become
    // a table: that log is synced, and the held bytes go on. Called with
    // m_mutex held.
    leveldb::Status SyncLeftAndRelease()
    {
        if (m_left) {
            if (leveldb::Status status = m_left->file->Sync(); !status.ok()) return status;
            m_left->file.reset();
            m_left.reset();
        }
        Release();
        return m_current ? m_current->error : leveldb::Status{};
    }

    std::mutex m_mutex;
    std::condition_variable m_released;
    // The log LevelDB writes to now, and the one it left for it, until that
    // one is deleted or synced here.
    std::shared_ptr<Log> m_current;
    std::shared_ptr<Log> m_left;
};

// The table buffering layer: `base`, except that table files (".ldb")
// collect their bytes and hand them on TABLE_WRITE_BYTES at a time, and at
// Sync and Close.
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
class TableBufferingEnv final : public leveldb::EnvWrapper
{
public:
    TableBufferingEnv(leveldb::Env* base, bool direct_ingest) : leveldb::EnvWrapper{base}, m_direct_ingest{direct_ingest} {}

    size_t DirectFiles() const { return m_direct_files; }

    leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        // A file system without O_DIRECT (tmpfs on older kernels) gets
        // the buffered file.
        if (m_direct_ingest && dbwrapper_ingest::IsIngestFileName(name)) {
            int error = 0;
            if (leveldb::WritableFile* direct = DirectTableFile::Open(name, m_buffers, error)) {
                ++m_direct_files;
                *result = direct;
                return leveldb::Status::OK();
            }
            if (!m_said_refused.exchange(true)) {
                LogInfo("Table files of bulk loads go through the page cache: O_DIRECT refused for {} ({})", name, std::strerror(error));
            }
        }
        auto status = target()->NewWritableFile(name, result);
        if (status.ok() && IsTableFile(name)) *result = new BufferedTableFile{*result};
        return status;
    }

private:
    const bool m_direct_ingest;
    std::atomic<size_t> m_direct_files{0};
    std::atomic<bool> m_said_refused{false};
    // Shared with the files, which may outlive the environment.
    const std::shared_ptr<DirectBufferPool> m_buffers{std::make_shared<DirectBufferPool>()};
};

// A file that stops taking bytes once the environment's budget is spent,
// as a file on a full disk does.
class BudgetedFile final : public leveldb::WritableFile
{
public:
    BudgetedFile(std::unique_ptr<leveldb::WritableFile> file, std::atomic<size_t>& budget)
        : m_file{std::move(file)}, m_budget{budget} {}

    leveldb::Status Append(const leveldb::Slice& data) override
    {
        const size_t granted = Take(data.size());
        if (granted == data.size()) return m_file->Append(data);
        // Write what fits, as write(2) does before it fails with ENOSPC.
        if (granted > 0) m_file->Append(leveldb::Slice{data.data(), granted});
        return leveldb::Status::IOError("simulated full disk", std::strerror(ENOSPC));
    }
    leveldb::Status Close() override { return m_file->Close(); }
    leveldb::Status Flush() override { return m_file->Flush(); }
    leveldb::Status Sync() override { return m_file->Sync(); }

private:
    // Takes up to `wanted` bytes from the budget; LevelDB's compaction
    // thread draws on it too.
    size_t Take(size_t wanted)
    {
        size_t left = m_budget.load();
        while (!m_budget.compare_exchange_weak(left, left - std::min(left, wanted))) {
        }
        return std::min(left, wanted);
    }

    std::unique_ptr<leveldb::WritableFile> m_file;
    std::atomic<size_t>& m_budget;
};

// DBOptions::fail_writes_after_bytes: every file LevelDB writes after the
// database is open draws on one byte budget.
class BudgetedEnv final : public leveldb::EnvWrapper
{
public:
    // Unlimited until Arm(): opening a database writes too.
    explicit BudgetedEnv(leveldb::Env* base) : leveldb::EnvWrapper{base} {}

    void Arm(size_t budget) { m_budget = budget; }

    leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        return Wrap(target()->NewWritableFile(name, result), result);
    }
    leveldb::Status NewAppendableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        return Wrap(target()->NewAppendableFile(name, result), result);
    }

private:
    leveldb::Status Wrap(leveldb::Status status, leveldb::WritableFile** result)
    {
        if (status.ok()) *result = new BudgetedFile{std::unique_ptr<leveldb::WritableFile>{*result}, m_budget};
        return status;
    }

    std::atomic<size_t> m_budget{std::numeric_limits<size_t>::max()};
};

using Clock = std::chrono::steady_clock;

// The slower device layer (-debugstorage): every file opened through it
// waits for one simulated device with the profile's rate and delays
// (storage_profile.h).

// One device queue. A request occupies the device after everything queued
// before it, and its caller waits until its request is done; LevelDB's
// compaction thread and the writer share the queue as they would share a
// disk.
class Device
{
public:
    explicit Device(const StorageProfile& profile) : m_profile{profile} {}

    void Transfer(size_t bytes, bool seek)
    {
        const auto moving = std::chrono::duration<double>(bytes / m_profile.bytes_per_second);
        Occupy(std::chrono::duration_cast<Clock::duration>(moving) + (seek ? m_profile.seek_delay : Clock::duration{}));
    }
    void Sync() { Occupy(m_profile.sync_delay); }

private:
    // Sleeping costs tens of microseconds of its own; a shorter wait is
    // left on the queue, where the next request pays for it.
    static constexpr auto MIN_SLEEP = std::chrono::microseconds{200};

    void Occupy(Clock::duration busy)
    {
        Clock::time_point done;
        const auto now = Clock::now();
        {
            std::lock_guard lock{m_mutex};
            m_free = std::max(m_free, now) + busy;
            done = m_free;
        }
        if (done - now >= MIN_SLEEP) std::this_thread::sleep_until(done);
    }

    const StorageProfile m_profile;
    std::mutex m_mutex;
    Clock::time_point m_free{};
};

class ThrottledSequentialFile final : public leveldb::SequentialFile
{
public:
    ThrottledSequentialFile(leveldb::SequentialFile* file, Device& device) : m_file{file}, m_device{device} {}

    leveldb::Status Read(size_t n, leveldb::Slice* result, char* scratch) override
    {
        const leveldb::Status status = m_file->Read(n, result, scratch);
        if (status.ok()) m_device.Transfer(result->size(), /*seek=*/false);
        return status;
    }
    leveldb::Status Skip(uint64_t n) override { return m_file->Skip(n); }

private:
    std::unique_ptr<leveldb::SequentialFile> m_file;
    Device& m_device;
};

class ThrottledRandomAccessFile final : public leveldb::RandomAccessFile
{
public:
    ThrottledRandomAccessFile(leveldb::RandomAccessFile* file, Device& device) : m_file{file}, m_device{device} {}

    leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result, char* scratch) const override
    {
        const leveldb::Status status = m_file->Read(offset, n, result, scratch);
        if (status.ok()) {
            // A compaction reads a table front to back: no seek between
            // its blocks. A lookup lands anywhere.
            const bool seek = m_next_offset.exchange(offset + result->size()) != offset;
            m_device.Transfer(result->size(), seek);
        }
        return status;
    }

private:
    std::unique_ptr<leveldb::RandomAccessFile> m_file;
    Device& m_device;
    mutable std::atomic<uint64_t> m_next_offset{UINT64_MAX};
};

class ThrottledWritableFile final : public leveldb::WritableFile
{
public:
    ThrottledWritableFile(leveldb::WritableFile* file, Device& device) : m_file{file}, m_device{device} {}

    leveldb::Status Append(const leveldb::Slice& data) override
    {
        m_device.Transfer(data.size(), /*seek=*/false);
        return m_file->Append(data);
    }
    leveldb::Status Close() override { return m_file->Close(); }
    leveldb::Status Flush() override { return m_file->Flush(); }
    leveldb::Status Sync() override
    {
        const leveldb::Status status = m_file->Sync();
        m_device.Sync();
        return status;
    }

private:
    std::unique_ptr<leveldb::WritableFile> m_file;
    Device& m_device;
};

class ThrottledEnv final : public leveldb::EnvWrapper
{
public:
    ThrottledEnv(leveldb::Env* base, const StorageProfile& profile) : leveldb::EnvWrapper{base}, m_device{profile} {}

    leveldb::Status NewSequentialFile(const std::string& name, leveldb::SequentialFile** result) override
    {
        return Wrap<ThrottledSequentialFile>(target()->NewSequentialFile(name, result), result);
    }
    leveldb::Status NewRandomAccessFile(const std::string& name, leveldb::RandomAccessFile** result) override
    {
        return Wrap<ThrottledRandomAccessFile>(target()->NewRandomAccessFile(name, result), result);
    }
    leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        return Wrap<ThrottledWritableFile>(target()->NewWritableFile(name, result), result);
    }
    leveldb::Status NewAppendableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        return Wrap<ThrottledWritableFile>(target()->NewAppendableFile(name, result), result);
    }

private:
    template <typename Throttled, typename File>
    leveldb::Status Wrap(leveldb::Status status, File** result)
    {
        if (status.ok()) *result = new Throttled{*result, m_device};
        return status;
    }

    Device m_device;
};

} // namespace

EnvStack::EnvStack(const Layers& layers)
{
    if (layers.memory_only) {
        m_memory.reset(leveldb::NewMemEnv(leveldb::Env::Default()));
        m_base = m_memory.get();
    } else {
        m_base = layers.base_for_tests ? layers.base_for_tests : leveldb::Env::Default();
    }
    m_top = m_base;
    if (layers.storage) {
        m_device = std::make_unique<ThrottledEnv>(m_top, *layers.storage);
        m_top = m_device.get();
    }
    if (layers.write_budget) {
        m_budget = std::make_unique<BudgetedEnv>(m_top);
        m_top = m_budget.get();
    }
    if (!layers.memory_only) {
        const bool direct_ingest = !layers.base_for_tests && !m_device && !m_budget;
        m_table_buffering = std::make_unique<TableBufferingEnv>(m_top, direct_ingest);
        m_log_order = std::make_unique<LogOrderEnv>(m_table_buffering.get());
        m_top = m_log_order.get();
    }
}

EnvStack::~EnvStack() = default;

void EnvStack::ArmBudget(size_t bytes)
{
    if (m_budget) static_cast<BudgetedEnv&>(*m_budget).Arm(bytes);
}

leveldb::Status EnvStack::ReleaseHeldLog(std::chrono::milliseconds wait)
{
    return m_log_order ? static_cast<LogOrderEnv&>(*m_log_order).ReleaseHeld(wait) : leveldb::Status{};
}

size_t EnvStack::DirectIngestFiles() const
{
    return m_table_buffering ? static_cast<const TableBufferingEnv&>(*m_table_buffering).DirectFiles() : 0;
}
