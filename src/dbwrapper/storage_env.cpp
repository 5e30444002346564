#include <dbwrapper/storage_env.h>

#include <leveldb/env.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

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

std::unique_ptr<leveldb::Env> NewThrottledEnv(leveldb::Env* base, const StorageProfile& profile)
{
    return std::make_unique<ThrottledEnv>(base, profile);
}
