#include <node/blockstorage/record_file_writer.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

namespace node {
namespace {

// Record buffers kept for reuse: blocks are up to 4 MB, and a fresh buffer
// is pages for the kernel to fault in and zero.
constexpr size_t KEPT_BUFFERS{2};

std::string Failed(const std::string& what, const std::filesystem::path& path, int error_number)
{
    return what + " " + path.string() + " failed: " + std::strerror(error_number);
}

} // namespace

void RecordFileWriter::FreeAligned::operator()(std::byte* buffer) const { std::free(buffer); }

std::unique_ptr<RecordFileWriter> RecordFileWriter::Open(const std::filesystem::path& path, const BlockFileXorKey& key, std::string& error)
{
    void* buffer = nullptr;
    if (::posix_memalign(&buffer, ALIGN, BUFFER_BYTES) != 0) {
        error = "no memory for the write buffer of " + path.string();
        return nullptr;
    }
    // Read and write: a write in the middle of a 4 KiB block reads the
    // block's start first.
    constexpr int flags = O_RDWR | O_CREAT | O_CLOEXEC;
    bool direct = true;
    int fd = ::open(path.c_str(), flags | O_DIRECT, 0644);
    if (fd < 0 && errno == EINVAL) {
        direct = false;
        fd = ::open(path.c_str(), flags, 0644);
    }
    if (fd < 0) {
        error = "cannot open " + path.string() + " for writing: " + std::strerror(errno);
        std::free(buffer);
        return nullptr;
    }
    return std::unique_ptr<RecordFileWriter>{new RecordFileWriter{path, fd, direct, static_cast<std::byte*>(buffer), key}};
}

RecordFileWriter::RecordFileWriter(std::filesystem::path path, int fd, bool direct, std::byte* buffer, const BlockFileXorKey& key)
    : m_path{std::move(path)}, m_fd{fd}, m_direct{direct}, m_key{key}, m_buffer{buffer}, m_thread{[this] { Run(); }} {}

RecordFileWriter::~RecordFileWriter()
{
    {
        const std::lock_guard lock{m_mutex};
        m_stop = true;
    }
    m_work.notify_one();
    m_thread.join();
    if (m_error.empty()) {
        if (const std::string error = FlushBuffer(); !error.empty()) m_error = error;
    }
    ::close(m_fd);
}

std::string RecordFileWriter::WriteOut(size_t size)
{
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pwrite(m_fd, m_buffer.get() + done, size - done, static_cast<off_t>(m_base + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Failed("writing", m_path, n < 0 ? errno : EIO);
        done += static_cast<size_t>(n);
    }
    return {};
}

std::string RecordFileWriter::FlushBuffer()
{
    if (!m_dirty) return {};
    const size_t padded = (m_used + ALIGN - 1) / ALIGN * ALIGN;
    std::memset(m_buffer.get() + m_used, 0, padded - m_used);
    if (std::string error = WriteOut(padded); !error.empty()) return error;
    // The file ends where the records do, as if written through the page
    // cache: the padding goes (a crash before this leaves zeros there, which
    // block file readers skip).
    if (::ftruncate(m_fd, static_cast<off_t>(m_base + m_used)) != 0) return Failed("truncating", m_path, errno);
    // Keep the last, partial block: the next records go on in it.
    const size_t whole = m_used - m_used % ALIGN;
    std::memmove(m_buffer.get(), m_buffer.get() + whole, m_used - whole);
    m_base += whole;
    m_used -= whole;
    m_dirty = false;
    return {};
}

std::string RecordFileWriter::MoveTo(uint64_t pos)
{
    if (std::string error = FlushBuffer(); !error.empty()) return error;
    m_base = pos - pos % ALIGN;
    m_used = static_cast<size_t>(pos - m_base);
    m_placed = true;
    if (m_used == 0) return {};
    // The block's bytes before pos, as the file has them (zeros where it
    // ends sooner): a direct read takes the whole aligned block.
    std::memset(m_buffer.get(), 0, ALIGN);
    size_t got = 0;
    while (got < ALIGN) {
        const ssize_t n = ::pread(m_fd, m_buffer.get() + got, ALIGN - got, static_cast<off_t>(m_base + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Failed("reading", m_path, errno);
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    return {};
}

std::string RecordFileWriter::Append(uint64_t pos, std::span<const std::byte> bytes)
{
    if (!m_placed || pos != m_base + m_used) {
        if (std::string error = MoveTo(pos); !error.empty()) return error;
    }
    while (!bytes.empty()) {
        const size_t n = std::min(bytes.size(), BUFFER_BYTES - m_used);
        std::memcpy(m_buffer.get() + m_used, bytes.data(), n);
        m_used += n;
        m_dirty = true;
        bytes = bytes.subspan(n);
        if (m_used == BUFFER_BYTES) {
            if (std::string error = WriteOut(BUFFER_BYTES); !error.empty()) return error;
            m_base += BUFFER_BYTES;
            m_used = 0;
            m_dirty = false;
        }
    }
    return {};
}

void RecordFileWriter::Run()
{
    pthread_setname_np(pthread_self(), "b-blockwrite");
    std::unique_lock lock{m_mutex};
    while (true) {
        m_work.wait(lock, [&] { return !m_queue.empty() || m_stop; });
        if (m_queue.empty()) return; // stopping, and every record is taken
        Queued record = std::move(m_queue.front());
        m_queue.pop_front();
        m_busy = true;
        const bool failed = !m_error.empty();
        lock.unlock();

        std::string error;
        if (!failed) {
            XorAtOffset(record.bytes, record.pos, m_key);
            error = Append(record.pos, record.bytes);
        }

        lock.lock();
        if (!error.empty() && m_error.empty()) m_error = std::move(error);
        m_queued_bytes -= record.bytes.size();
        m_busy = false;
        if (m_free.size() < KEPT_BUFFERS) {
            record.bytes.clear();
            m_free.push_back(std::move(record.bytes));
        }
        m_idle.notify_all();
    }
}

bool RecordFileWriter::FailedLocked(std::string& error) const
{
    if (m_error.empty()) return false;
    error = m_error;
    return true;
}

std::vector<std::byte> RecordFileWriter::TakeBuffer()
{
    const std::lock_guard lock{m_mutex};
    if (m_free.empty()) return {};
    std::vector<std::byte> buffer = std::move(m_free.back());
    m_free.pop_back();
    return buffer;
}

bool RecordFileWriter::Write(uint64_t pos, std::vector<std::byte>&& record, std::string& error)
{
    std::unique_lock lock{m_mutex};
    m_idle.wait(lock, [&] { return m_queued_bytes == 0 || m_queued_bytes + record.size() <= MAX_QUEUED_BYTES || !m_error.empty(); });
    if (FailedLocked(error)) return false;
    m_queued_bytes += record.size();
    m_queue.push_back({pos, std::move(record)});
    lock.unlock();
    m_work.notify_one();
    return true;
}

bool RecordFileWriter::Flush(std::string& error)
{
    std::unique_lock lock{m_mutex};
    m_idle.wait(lock, [&] { return m_queue.empty() && !m_busy; });
    if (FailedLocked(error)) return false;
    // The thread is idle and needs the lock held here to take more work, so
    // the buffer is this caller's until it returns.
    if (std::string flush_error = FlushBuffer(); !flush_error.empty()) m_error = std::move(flush_error);
    return !FailedLocked(error);
}

bool RecordFileWriter::Sync(std::string& error)
{
    if (!Flush(error)) return false;
    if (::fdatasync(m_fd) != 0) {
        const std::lock_guard lock{m_mutex};
        if (m_error.empty()) m_error = Failed("syncing", m_path, errno);
        error = m_error;
        return false;
    }
    return true;
}

} // namespace node
