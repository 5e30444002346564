#include <dbwrapper/codec.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace dbwrapper_ingest {
namespace {

constexpr uint32_t CRC32C_POLY_REFLECTED = 0x82f63b78;
constexpr uint32_t CRC_MASK_DELTA = 0xa282ead8;

enum Tag : uint32_t {
    COMPARATOR = 1,
    LOG_NUMBER = 2,
    NEXT_FILE = 3,
    LAST_SEQUENCE = 4,
    COMPACT_POINTER = 5,
    DELETED_FILE = 6,
    NEW_FILE = 7,
    PREV_LOG_NUMBER = 9,
};

enum FragmentType : uint8_t { FULL = 1, FIRST = 2, MIDDLE = 3, LAST = 4 };

std::array<uint32_t, 256> MakeCrcTable()
{
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? CRC32C_POLY_REFLECTED : 0);
        table[i] = crc;
    }
    return table;
}

// The running (inverted) CRC over `data`, a byte at a time.
uint32_t Crc32cPortable(uint32_t crc, std::string_view data)
{
    static const std::array<uint32_t, 256> table = MakeCrcTable();
    for (const char c : data) crc = table[(crc ^ static_cast<unsigned char>(c)) & 0xff] ^ (crc >> 8);
    return crc;
}

// The same with SSE 4.2's crc32 instruction, which computes CRC-32C: a
// table file's checksums cover every byte of it, and the table takes about
// a byte per cycle where the instruction takes eight.
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cHardware(uint32_t crc, std::string_view data)
{
    uint64_t crc64 = crc;
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= data.size(); i += sizeof(uint64_t)) {
        uint64_t word;
        std::memcpy(&word, data.data() + i, sizeof(word));
        crc64 = _mm_crc32_u64(crc64, word);
    }
    crc = static_cast<uint32_t>(crc64);
    for (; i < data.size(); ++i) crc = _mm_crc32_u8(crc, static_cast<unsigned char>(data[i]));
    return crc;
}
#endif

void PutBytes(std::string& out, std::string_view bytes)
{
    PutVarint(out, bytes.size());
    out.append(bytes);
}

uint64_t GetFixed(std::string_view in, size_t bytes)
{
    uint64_t n = 0;
    for (size_t i = 0; i < bytes; ++i) n |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
    return n;
}

bool GetVarint(std::string_view& in, uint64_t& n, int max_bits = 64)
{
    const char* next = DecodeVarint(in.data(), in.data() + in.size(), n, max_bits);
    if (!next) return false;
    in.remove_prefix(next - in.data());
    return true;
}

bool GetBytes(std::string_view& in, std::string& bytes)
{
    uint64_t size;
    if (!GetVarint(in, size, 32) || size > in.size()) return false;
    bytes.assign(in.substr(0, size));
    in.remove_prefix(size);
    return true;
}

bool GetLevel(std::string_view& in, int& level)
{
    uint64_t n;
    if (!GetVarint(in, n, 32) || n >= NUM_LEVELS) return false;
    level = static_cast<int>(n);
    return true;
}

std::string NumberedName(const char* format, uint64_t number)
{
    char name[64];
    std::snprintf(name, sizeof(name), format, static_cast<unsigned long long>(number));
    return name;
}

} // namespace

void PutVarint(std::string& out, uint64_t n)
{
    std::array<char, MAX_VARINT64_BYTES> bytes;
    out.append(bytes.data(), EncodeVarint(bytes.data(), n) - bytes.data());
}

void PutFixed(std::string& out, uint64_t n, size_t bytes)
{
    if constexpr (std::endian::native == std::endian::little) {
        out.append(reinterpret_cast<const char*>(&n), bytes);
        return;
    }
    for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<char>(n >> (8 * i)));
}

uint64_t GetFixed64(std::string_view in) { return GetFixed(in, sizeof(uint64_t)); }

uint32_t Crc32cExtend(uint32_t crc, std::string_view data)
{
    crc = ~crc;
#if defined(__x86_64__)
    static const bool hardware = __builtin_cpu_supports("sse4.2");
    crc = hardware ? Crc32cHardware(crc, data) : Crc32cPortable(crc, data);
#else
    crc = Crc32cPortable(crc, data);
#endif
    return ~crc;
}

uint32_t Crc32c(std::string_view data) { return Crc32cExtend(0, data); }

uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + CRC_MASK_DELTA; }

std::string InternalKey(std::string_view user_key, uint8_t type)
{
    std::string key{user_key};
    PutFixed(key, type, TAG_BYTES);
    return key;
}

std::string_view UserKeyOf(std::string_view internal_key) { return internal_key.substr(0, internal_key.size() - TAG_BYTES); }

bool ApplyEdit(std::string_view edit, Descriptor& into)
{
    while (!edit.empty()) {
        uint64_t tag;
        uint64_t number;
        int level;
        if (!GetVarint(edit, tag, 32)) return false;
        switch (tag) {
        case COMPARATOR:
            if (!GetBytes(edit, into.comparator.emplace())) return false;
            break;
        case LOG_NUMBER:
            if (!GetVarint(edit, into.log_number.emplace())) return false;
            break;
        case PREV_LOG_NUMBER:
            if (!GetVarint(edit, into.prev_log_number.emplace())) return false;
            break;
        case NEXT_FILE:
            if (!GetVarint(edit, into.next_file.emplace())) return false;
            break;
        case LAST_SEQUENCE:
            if (!GetVarint(edit, into.last_sequence.emplace())) return false;
            break;
        case COMPACT_POINTER:
            if (!GetLevel(edit, level) || !GetBytes(edit, into.compact_pointers[level])) return false;
            break;
        case DELETED_FILE:
            if (!GetLevel(edit, level) || !GetVarint(edit, number)) return false;
            into.levels[level].erase(number);
            break;
        case NEW_FILE: {
            FileMeta file;
            if (!GetLevel(edit, level) || !GetVarint(edit, file.number) || !GetVarint(edit, file.size) ||
                !GetBytes(edit, file.smallest) || !GetBytes(edit, file.largest)) {
                return false;
            }
            if (file.smallest.size() < TAG_BYTES || file.largest.size() < TAG_BYTES) return false;
            into.levels[level][file.number] = std::move(file);
            break;
        }
        default:
            return false;
        }
    }
    return true;
}

std::string EncodeEdit(const Descriptor& descriptor)
{
    std::string edit;
    const auto put_number = [&](Tag tag, const std::optional<uint64_t>& n) {
        if (!n) return;
        PutVarint(edit, tag);
        PutVarint(edit, *n);
    };
    if (descriptor.comparator) {
        PutVarint(edit, COMPARATOR);
        PutBytes(edit, *descriptor.comparator);
    }
    put_number(LOG_NUMBER, descriptor.log_number);
    put_number(PREV_LOG_NUMBER, descriptor.prev_log_number);
    put_number(NEXT_FILE, descriptor.next_file);
    put_number(LAST_SEQUENCE, descriptor.last_sequence);
    for (const auto& [level, key] : descriptor.compact_pointers) {
        PutVarint(edit, COMPACT_POINTER);
        PutVarint(edit, level);
        PutBytes(edit, key);
    }
    for (int level = 0; level < NUM_LEVELS; ++level) {
        for (const auto& [number, file] : descriptor.levels[level]) {
            PutVarint(edit, NEW_FILE);
            PutVarint(edit, level);
            PutVarint(edit, file.number);
            PutVarint(edit, file.size);
            PutBytes(edit, file.smallest);
            PutBytes(edit, file.largest);
        }
    }
    return edit;
}

std::optional<std::vector<std::string>> ReadLogRecords(std::string_view file)
{
    std::vector<std::string> records;
    std::string pending;
    bool in_record = false;
    size_t pos = 0;
    while (pos < file.size()) {
        const size_t block_left = LOG_BLOCK_BYTES - pos % LOG_BLOCK_BYTES;
        if (block_left < LOG_HEADER_BYTES) {
            pos += block_left;
            continue;
        }
        if (file.size() - pos < LOG_HEADER_BYTES) return std::nullopt;
        const std::string_view header = file.substr(pos, LOG_HEADER_BYTES);
        const uint32_t stored_crc = static_cast<uint32_t>(GetFixed(header, 4));
        const size_t length = GetFixed(header.substr(4), 2);
        const auto type = static_cast<uint8_t>(header[6]);
        if (length > block_left - LOG_HEADER_BYTES || length > file.size() - pos - LOG_HEADER_BYTES) return std::nullopt;
        // The checksum covers the type byte and the payload.
        const std::string_view typed = file.substr(pos + LOG_HEADER_BYTES - 1, length + 1);
        if (MaskCrc(Crc32c(typed)) != stored_crc) return std::nullopt;
        const std::string_view payload = typed.substr(1);
        pos += LOG_HEADER_BYTES + length;
        if ((type == FULL || type == FIRST) == in_record) return std::nullopt;
        switch (type) {
        case FULL:
            records.emplace_back(payload);
            break;
        case FIRST:
            pending.assign(payload);
            in_record = true;
            break;
        case MIDDLE:
            pending.append(payload);
            break;
        case LAST:
            pending.append(payload);
            records.push_back(std::move(pending));
            pending.clear();
            in_record = false;
            break;
        default:
            return std::nullopt;
        }
    }
    if (in_record) return std::nullopt;
    return records;
}

std::string FrameLogRecord(std::string_view record)
{
    std::string file;
    bool first = true;
    do {
        size_t block_left = LOG_BLOCK_BYTES - file.size() % LOG_BLOCK_BYTES;
        if (block_left < LOG_HEADER_BYTES) {
            file.append(block_left, '\0');
            block_left = LOG_BLOCK_BYTES;
        }
        const size_t fragment = std::min(record.size(), block_left - LOG_HEADER_BYTES);
        const bool last = fragment == record.size();
        const uint8_t type = first ? (last ? FULL : FIRST) : (last ? LAST : MIDDLE);
        std::string typed(1, static_cast<char>(type));
        typed.append(record.substr(0, fragment));
        PutFixed(file, MaskCrc(Crc32c(typed)), 4);
        PutFixed(file, fragment, 2);
        file.append(typed);
        record.remove_prefix(fragment);
        first = false;
    } while (!record.empty());
    return file;
}

std::string TableFileName(uint64_t number) { return NumberedName("%06llu.ldb", number); }
std::string ManifestFileName(uint64_t number) { return NumberedName("MANIFEST-%06llu", number); }
std::string TempFileName(uint64_t number) { return NumberedName("%06llu.dbtmp", number); }
std::string IngestFileName(uint64_t n) { return "ingest-" + std::to_string(n) + ".ldb"; }

bool IsIngestFileName(std::string_view name)
{
    const size_t slash = name.rfind('/');
    return name.substr(slash == std::string_view::npos ? 0 : slash + 1).starts_with("ingest-") && name.ends_with(".ldb");
}

} // namespace dbwrapper_ingest
