#ifndef COINSDB_SERIALIZE_H
#define COINSDB_SERIALIZE_H

// Bitcoin Core's wire and disk encodings of integers and containers.
//
// Byte formats owned by this file:
// - Fixed-width integers: little-endian, exactly sizeof(T) bytes.
// - CompactSize (lengths and counts):
//     n < 0xfd        -> 1 byte n
//     n <= 0xffff     -> 0xfd, then LE16
//     n <= 0xffffffff -> 0xfe, then LE32
//     otherwise       -> 0xff, then LE64
//   A reader rejects an encoding that a smaller form could have held
//   ("non-canonical ReadCompactSize()"), and, where the value is a length,
//   anything above MAX_SIZE.
// - Strings and byte vectors: CompactSize length, then the bytes. Pairs:
//   first, then second. Vectors of other types: CompactSize count, then
//   each element.
// - VARINT (chainstate values and keys): base-128, most significant group
//   first, 0x80 set on every byte but the last. Each continuation also means
//   "+1", which makes every value's encoding unique. Byte order follows
//   numeric order only among encodings of the same length (and one-byte
//   encodings sort first): 16511 = ff 7f sorts after 16512 = 80 80 00.
//   0 -> 00, 127 -> 7f, 128 -> 80 00, 255 -> 80 7f, 16511 -> ff 7f,
//   16512 -> 80 80 00. A reader rejects values above 2^64-1.
//
// Streams are any type with write(std::span<const std::byte>) and
// read(std::span<std::byte>); read throws std::ios_base::failure at the end
// of the data.

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <ios>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <prevector.h>

static_assert(std::endian::native == std::endian::little, "coinsdb assumes a little-endian host");

constexpr uint64_t MAX_SIZE = 0x02000000;

template <typename Stream, std::integral Int>
void WriteLE(Stream& s, Int value)
{
    s.write(std::as_bytes(std::span{&value, 1}));
}

template <std::integral Int, typename Stream>
Int ReadLE(Stream& s)
{
    Int value;
    s.read(std::as_writable_bytes(std::span{&value, 1}));
    return value;
}

template <typename Stream>
void WriteCompactSize(Stream& s, uint64_t n)
{
    if (n < 0xfd) {
        WriteLE<Stream, uint8_t>(s, static_cast<uint8_t>(n));
    } else if (n <= 0xffff) {
        WriteLE<Stream, uint8_t>(s, 0xfd);
        WriteLE<Stream, uint16_t>(s, static_cast<uint16_t>(n));
    } else if (n <= 0xffffffff) {
        WriteLE<Stream, uint8_t>(s, 0xfe);
        WriteLE<Stream, uint32_t>(s, static_cast<uint32_t>(n));
    } else {
        WriteLE<Stream, uint8_t>(s, 0xff);
        WriteLE<Stream, uint64_t>(s, n);
    }
}

template <typename Stream>
uint64_t ReadCompactSize(Stream& s, bool range_check = true)
{
    const uint8_t first = ReadLE<uint8_t>(s);
    uint64_t n;
    uint64_t smallest_for_width;
    if (first < 0xfd) {
        n = first;
        smallest_for_width = 0;
    } else if (first == 0xfd) {
        n = ReadLE<uint16_t>(s);
        smallest_for_width = 0xfd;
    } else if (first == 0xfe) {
        n = ReadLE<uint32_t>(s);
        smallest_for_width = 0x10000;
    } else {
        n = ReadLE<uint64_t>(s);
        smallest_for_width = 0x100000000ULL;
    }
    if (n < smallest_for_width) throw std::ios_base::failure("non-canonical ReadCompactSize()");
    if (range_check && n > MAX_SIZE) throw std::ios_base::failure("ReadCompactSize(): size too large");
    return n;
}

constexpr unsigned GetCompactSizeLength(uint64_t n)
{
    if (n < 0xfd) return 1;
    if (n <= 0xffff) return 3;
    if (n <= 0xffffffff) return 5;
    return 9;
}

template <typename Stream>
void WriteVarInt(Stream& s, uint64_t n)
{
    // Groups come least significant first and go out most significant
    // first: fill the buffer from its end, then write it in one call (a
    // flush writes three VARINTs per coin).
    std::array<std::byte, 10> groups;
    size_t first = groups.size();
    uint8_t continuation = 0x00;
    while (true) {
        groups[--first] = std::byte(static_cast<uint8_t>((n & 0x7f) | continuation));
        if (n <= 0x7f) break;
        n = (n >> 7) - 1;
        continuation = 0x80;
    }
    s.write(std::span{groups}.subspan(first));
}

template <typename Stream>
uint64_t ReadVarInt(Stream& s)
{
    uint64_t n = 0;
    while (true) {
        const uint8_t byte = ReadLE<uint8_t>(s);
        if (n > (UINT64_MAX >> 7)) throw std::ios_base::failure("ReadVarInt(): size too large");
        n = (n << 7) | (byte & 0x7f);
        if (!(byte & 0x80)) return n;
        if (n == UINT64_MAX) throw std::ios_base::failure("ReadVarInt(): size too large");
        ++n;
    }
}

// Generic entry points, so that stream << value works for every type below
// and for any class with Serialize/Unserialize members.
template <typename Stream, std::integral Int>
void Serialize(Stream& s, Int value) { WriteLE(s, value); }
template <typename Stream, std::integral Int>
void Unserialize(Stream& s, Int& value) { value = ReadLE<Int>(s); }

template <typename Stream, typename T>
    requires requires(const T& t, Stream& s) { t.Serialize(s); }
void Serialize(Stream& s, const T& obj) { obj.Serialize(s); }
template <typename Stream, typename T>
    requires requires(T& t, Stream& s) { t.Unserialize(s); }
void Unserialize(Stream& s, T& obj) { obj.Unserialize(s); }

template <typename Stream, size_t N>
void Serialize(Stream& s, const std::array<unsigned char, N>& bytes) { s.write(std::as_bytes(std::span{bytes})); }
template <typename Stream, size_t N>
void Unserialize(Stream& s, std::array<unsigned char, N>& bytes) { s.read(std::as_writable_bytes(std::span{bytes})); }

// Reads `count` bytes into `bytes` (a vector, string or prevector of
// bytes), replacing its contents. It grows one chunk at a time so that a
// corrupt count costs at most one chunk of memory before the stream runs dry.
template <typename Stream, typename Bytes>
void ReadBytesInChunks(Stream& s, Bytes& bytes, uint64_t count)
{
    constexpr uint64_t CHUNK = 1 << 20;
    bytes.clear();
    for (uint64_t done = 0; done < count;) {
        const uint64_t now = std::min(count - done, CHUNK);
        bytes.resize(static_cast<typename Bytes::size_type>(done + now));
        s.read(std::as_writable_bytes(std::span{bytes.data() + done, static_cast<size_t>(now)}));
        done += now;
    }
}

// Vectors are a CompactSize count followed by the elements.
template <typename Stream, typename T>
void Serialize(Stream& s, const std::vector<T>& items)
{
    WriteCompactSize(s, items.size());
    if constexpr (std::is_same_v<T, unsigned char>) {
        s.write(std::as_bytes(std::span{items}));
    } else {
        for (const auto& item : items) Serialize(s, item);
    }
}

template <typename Stream, typename T>
void Unserialize(Stream& s, std::vector<T>& items)
{
    const uint64_t count = ReadCompactSize(s);
    if constexpr (std::is_same_v<T, unsigned char>) {
        ReadBytesInChunks(s, items, count);
    } else {
        items.clear();
        // Reserve for the count, up to 64 KiB of elements: a block's inputs
        // and outputs then take one allocation each instead of a growth
        // series, and a count that lies about the bytes behind it costs at
        // most that much before the read fails. Past it, grow as elements
        // arrive.
        constexpr uint64_t max_reserved = std::max<uint64_t>(1, (64 << 10) / sizeof(T));
        items.reserve(std::min(count, max_reserved));
        for (uint64_t i = 0; i < count; ++i) Unserialize(s, items.emplace_back());
    }
}

// A string is written as a byte vector: CompactSize length, then its bytes
// ("abc" -> 03 61 62 63). Core's dbwrapper keys use it.
template <typename Stream>
void Serialize(Stream& s, const std::string& text)
{
    WriteCompactSize(s, text.size());
    s.write(std::as_bytes(std::span{text.data(), text.size()}));
}

template <typename Stream>
void Unserialize(Stream& s, std::string& text)
{
    ReadBytesInChunks(s, text, ReadCompactSize(s));
}

// A pair is its first member, then its second, with nothing between.
template <typename Stream, typename A, typename B>
void Serialize(Stream& s, const std::pair<A, B>& pair)
{
    Serialize(s, pair.first);
    Serialize(s, pair.second);
}

template <typename Stream, typename A, typename B>
void Unserialize(Stream& s, std::pair<A, B>& pair)
{
    Unserialize(s, pair.first);
    Unserialize(s, pair.second);
}

// A prevector of bytes is written exactly as a byte vector.
template <typename Stream, unsigned int N>
void Serialize(Stream& s, const prevector<N, unsigned char>& bytes)
{
    WriteCompactSize(s, bytes.size());
    s.write(std::as_bytes(std::span{bytes.data(), bytes.size()}));
}

template <typename Stream, unsigned int N>
void Unserialize(Stream& s, prevector<N, unsigned char>& bytes)
{
    ReadBytesInChunks(s, bytes, ReadCompactSize(s));
}

#endif // COINSDB_SERIALIZE_H
