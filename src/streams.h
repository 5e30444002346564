#ifndef COINSDB_STREAMS_H
#define COINSDB_STREAMS_H

#include <serialize.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ios>
#include <span>
#include <string>
#include <vector>

// An in-memory byte buffer that serializes into its end and reads from a
// cursor at the front.
//
// The buffer is sized to what it has allocated and m_end marks the bytes
// written: a write that fits is a memcpy and an add, inline. Serializing a
// coin is a dozen writes of one to 32 bytes, and growing a std::vector by
// each of them (resize: an out-of-line call that zero-fills first) cost
// more than the bytes themselves when a flush serializes millions of coins.
class DataStream
{
public:
    DataStream() = default;
    explicit DataStream(std::span<const std::byte> bytes) : m_data(bytes.begin(), bytes.end()), m_end{bytes.size()} {}
    explicit DataStream(std::span<const unsigned char> bytes)
        : DataStream(std::as_bytes(bytes)) {}

    void write(std::span<const std::byte> bytes)
    {
        // memcpy takes no null pointer, not even for zero bytes.
        if (bytes.empty()) return;
        if (m_data.size() - m_end < bytes.size()) Grow(bytes.size());
        std::memcpy(m_data.data() + m_end, bytes.data(), bytes.size());
        m_end += bytes.size();
    }

    void read(std::span<std::byte> out)
    {
        if (out.size() > size()) throw std::ios_base::failure("DataStream::read(): end of data");
        // memcpy and fread/fwrite take no null pointer, not even for zero
        // bytes, and an empty span or vector may hand one over.
        if (out.empty()) return;
        std::memcpy(out.data(), m_data.data() + m_read_pos, out.size());
        m_read_pos += out.size();
        if (m_read_pos == m_end) Clear();
    }

    // Bytes not yet read.
    std::span<const std::byte> Unread() const { return std::span{m_data}.subspan(m_read_pos, size()); }
    std::span<std::byte> MutableUnread() { return std::span{m_data}.subspan(m_read_pos, size()); }
    size_t size() const { return m_end - m_read_pos; }
    bool empty() const { return size() == 0; }
    // The unread bytes as a range, as Core's DataStream (std::span{stream},
    // HexStr(stream)). Invalidated by any write or read.
    std::byte* data() { return m_data.data() + m_read_pos; }
    const std::byte* data() const { return m_data.data() + m_read_pos; }
    std::byte* begin() { return data(); }
    std::byte* end() { return data() + size(); }
    const std::byte* begin() const { return data(); }
    const std::byte* end() const { return data() + size(); }
    // Empties the stream; it keeps its buffer.
    void Clear()
    {
        m_end = 0;
        m_read_pos = 0;
    }
    void reserve(size_t n)
    {
        if (n > m_data.size()) m_data.resize(n);
    }
    size_t capacity() const { return m_data.size(); }

    template <typename T>
    DataStream& operator<<(const T& obj)
    {
        Serialize(*this, obj);
        return *this;
    }
    template <typename T>
    DataStream& operator>>(T&& obj)
    {
        Unserialize(*this, obj);
        return *this;
    }

private:
    // Room for `more` bytes past m_end, at least doubling, so that n bytes
    // written one at a time cost O(n).
    void Grow(size_t more) { m_data.resize(std::max(m_end + more, 2 * m_data.size())); }

    // The buffer: [m_read_pos, m_end) is unread, what follows m_end is room.
    std::vector<std::byte> m_data;
    size_t m_end{0};
    size_t m_read_pos{0};
};

// Reads from borrowed memory without copying it.
class SpanReader
{
public:
    explicit SpanReader(std::span<const std::byte> bytes) : m_data{bytes} {}
    explicit SpanReader(std::span<const unsigned char> bytes) : m_data{std::as_bytes(bytes)} {}

    void read(std::span<std::byte> out)
    {
        if (out.size() > m_data.size()) throw std::ios_base::failure("SpanReader::read(): end of data");
        if (out.empty()) return;
        std::memcpy(out.data(), m_data.data(), out.size());
        m_data = m_data.subspan(out.size());
    }
    size_t size() const { return m_data.size(); }
    bool empty() const { return m_data.empty(); }
    // The bytes not read yet.
    std::span<const std::byte> remaining() const { return m_data; }

    template <typename T>
    SpanReader& operator>>(T&& obj)
    {
        Unserialize(*this, obj);
        return *this;
    }

private:
    std::span<const std::byte> m_data;
};

// Counts the bytes an object would serialize to.
class SizeComputer
{
public:
    void write(std::span<const std::byte> bytes) { m_size += bytes.size(); }
    size_t size() const { return m_size; }

    template <typename T>
    SizeComputer& operator<<(const T& obj)
    {
        Serialize(*this, obj);
        return *this;
    }

private:
    size_t m_size{0};
};

template <typename T>
size_t GetSerializeSize(const T& obj)
{
    SizeComputer sizer;
    sizer << obj;
    return sizer.size();
}

// Owns a FILE* and closes it. Reads and writes throw std::ios_base::failure,
// which keeps a truncated file from ever looking like a short valid one.
class AutoFile
{
public:
    explicit AutoFile(std::FILE* file) : m_file{file} {}
    ~AutoFile() { fclose(); }
    AutoFile(const AutoFile&) = delete;
    AutoFile& operator=(const AutoFile&) = delete;

    bool IsNull() const { return m_file == nullptr; }
    std::FILE* Get() const { return m_file; }

    // Returns 0 on success, like std::fclose. A failed close of a written
    // file means data may not have reached the disk.
    int fclose()
    {
        int result = 0;
        if (m_file) result = std::fclose(m_file);
        m_file = nullptr;
        return result;
    }

    void read(std::span<std::byte> out)
    {
        if (!m_file) throw std::ios_base::failure("AutoFile::read: file handle is null");
        if (out.empty()) return;
        if (std::fread(out.data(), 1, out.size(), m_file) != out.size()) {
            throw std::ios_base::failure(std::feof(m_file) ? "AutoFile::read: end of file" : "AutoFile::read: fread failed");
        }
    }

    void write(std::span<const std::byte> bytes)
    {
        if (!m_file) throw std::ios_base::failure("AutoFile::write: file handle is null");
        if (bytes.empty()) return;
        if (std::fwrite(bytes.data(), 1, bytes.size(), m_file) != bytes.size()) {
            throw std::ios_base::failure("AutoFile::write: write failed");
        }
    }

    // True when no byte is left to read.
    bool AtEnd()
    {
        const int c = std::fgetc(m_file);
        if (c == EOF) return true;
        std::ungetc(c, m_file);
        return false;
    }

    template <typename T>
    AutoFile& operator<<(const T& obj)
    {
        Serialize(*this, obj);
        return *this;
    }
    template <typename T>
    AutoFile& operator>>(T&& obj)
    {
        Unserialize(*this, obj);
        return *this;
    }

private:
    std::FILE* m_file;
};

// Reads an AutoFile through a buffer of its own, for a reader that takes
// the file a few bytes at a time. A snapshot's coin is a dozen reads of 1
// to 32 bytes (a VARINT is read a byte per call), and each std::fread takes
// the FILE's lock and goes two calls deep into stdio: a snapshot load's
// reader thread spent close to a third of its time in fread's own code.
// Here a read the buffer holds is a memcpy, and the file is read
// `buffer_bytes` at a time.
//
// It throws what AutoFile::read throws, with the same messages, so a
// truncated file reads as it did. The file's own position runs ahead of
// what was read: Tell() is the offset of the next byte read() returns, and
// nobody else should read the file while this reader is in use.
class BufferedFileReader
{
public:
    static constexpr size_t DEFAULT_BUFFER_BYTES = size_t{1} << 20;

    explicit BufferedFileReader(AutoFile& file, size_t buffer_bytes = DEFAULT_BUFFER_BYTES)
        : m_file{file}, m_buffer(std::max<size_t>(buffer_bytes, 1)) {}

    void read(std::span<std::byte> out)
    {
        if (out.size() <= m_end - m_pos) {
            if (!out.empty()) std::memcpy(out.data(), m_buffer.data() + m_pos, out.size());
            m_pos += out.size();
            return;
        }
        ReadAcrossRefills(out);
    }

    // True when no byte is left to read, in the buffer or the file. As for
    // AutoFile::AtEnd, a read error counts as the end.
    bool AtEnd()
    {
        if (m_pos < m_end) return false;
        if (m_file.IsNull()) return true;
        m_pos = 0;
        m_end = std::fread(m_buffer.data(), 1, m_buffer.size(), m_file.Get());
        return m_end == 0;
    }

    // The file offset of the next byte read() returns; -1 without a file.
    long Tell() const
    {
        if (m_file.IsNull()) return -1;
        const long position = std::ftell(m_file.Get());
        return position < 0 ? position : position - static_cast<long>(m_end - m_pos);
    }

    template <typename T>
    BufferedFileReader& operator>>(T&& obj)
    {
        Unserialize(*this, obj);
        return *this;
    }

private:
    // What the buffer holds, then refills until `out` is full. At the end
    // of the file everything read is consumed, as by a short fread.
    void ReadAcrossRefills(std::span<std::byte> out)
    {
        if (m_file.IsNull()) throw std::ios_base::failure("AutoFile::read: file handle is null");
        while (!out.empty()) {
            if (m_pos == m_end) {
                m_pos = 0;
                m_end = std::fread(m_buffer.data(), 1, m_buffer.size(), m_file.Get());
                if (m_end == 0) {
                    throw std::ios_base::failure(std::feof(m_file.Get()) ? "AutoFile::read: end of file" : "AutoFile::read: fread failed");
                }
            }
            const size_t n = std::min(out.size(), m_end - m_pos);
            std::memcpy(out.data(), m_buffer.data() + m_pos, n);
            m_pos += n;
            out = out.subspan(n);
        }
    }

    AutoFile& m_file;
    std::vector<std::byte> m_buffer;
    // The unread bytes are m_buffer[m_pos, m_end).
    size_t m_pos{0};
    size_t m_end{0};
};

#endif // COINSDB_STREAMS_H
