#include <kernel/swiftsync/hints_file.h>

#include <kernel/swiftsync/elias_fano.h>
#include <util/strencodings.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kernel::swiftsync {
namespace {

using util::Unexpected;

constexpr std::array<uint8_t, 4> MAGIC{'U', 'T', 'X', 'O'};
constexpr uint8_t VERSION = 0;
constexpr std::array<uint8_t, 5> SNAPSHOT_MAGIC{'u', 't', 'x', 'o', 0xff};
// Bitcoin Core PR #34004's table entry: LE32 height, LE64 file offset.
constexpr size_t BITMAP_ENTRY_BYTES = 12;
constexpr size_t READ_CHUNK_BYTES = size_t{1} << 20;

uint64_t ReadLE(std::span<const uint8_t> bytes)
{
    uint64_t value = 0;
    for (size_t i = bytes.size(); i-- > 0;) value = (value << 8) | bytes[i];
    return value;
}

// What the first bytes say about a file that is not a BIP 456 file, or "".
std::string HeaderProblem(std::span<const uint8_t> start)
{
    const auto magic = start.first(std::min(start.size(), MAGIC.size()));
    if (!std::ranges::equal(magic, std::span{MAGIC}.first(magic.size()))) {
        if (start.size() >= SNAPSHOT_MAGIC.size() && std::ranges::equal(start.first(SNAPSHOT_MAGIC.size()), SNAPSHOT_MAGIC)) {
            return "looks like a UTXO snapshot (dumptxoutset), not a hints file";
        }
        return "not a SwiftSync hints file: it starts with " + HexStr(magic) + ", not 5554584f (\"UTXO\")";
    }
    if (start.size() < HINTS_HEADER_BYTES) {
        return "truncated header: the file is " + std::to_string(start.size()) + " bytes long, the header takes " + std::to_string(HINTS_HEADER_BYTES);
    }
    if (start[4] != VERSION) return "hints file version " + std::to_string(start[4]) + ", but coinsdb reads version 0 only";
    const uint64_t height = ReadLE(start.subspan(5, 4));
    // The bitmap file's first entry: a small height (0 or 1, or twice that
    // plus an encoding bit in later revisions) and the offset where the
    // table ends.
    if (height > 0 && start.size() >= HINTS_HEADER_BYTES + BITMAP_ENTRY_BYTES &&
        ReadLE(start.subspan(HINTS_HEADER_BYTES, 4)) <= 3 &&
        ReadLE(start.subspan(HINTS_HEADER_BYTES + 4, 8)) == HINTS_HEADER_BYTES + BITMAP_ENTRY_BYTES * height) {
        return "looks like a bitmap hints file (Bitcoin Core PR #34004), which coinsdb does not read: "
               "write a BIP 456 file with coinsdb-genhints";
    }
    return "";
}

} // namespace

util::Expected<HintsFileReader, std::string> HintsFileReader::Open(const std::filesystem::path& path)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) return Unexpected{std::string{"cannot open: "} + std::strerror(errno)};
    return Open(file);
}

util::Expected<HintsFileReader, std::string> HintsFileReader::Open(std::FILE* file)
{
    if (!file) return Unexpected{std::string{"cannot open: no file"}};
    HintsFileReader reader{file};
    reader.Fill(HINTS_HEADER_BYTES + BITMAP_ENTRY_BYTES);
    if (const std::string problem = HeaderProblem(reader.Available()); !problem.empty()) return Unexpected{problem};
    reader.m_height = ReadLE(reader.Available().subspan(5, 4));
    reader.m_pos = HINTS_HEADER_BYTES;
    return reader;
}

size_t HintsFileReader::Fill(size_t bytes)
{
    if (Available().size() >= bytes) return Available().size();
    // Keep only what is unread, then read at least what is missing.
    m_buffer.erase(m_buffer.begin(), m_buffer.begin() + m_pos);
    m_buffer_offset += m_pos;
    m_pos = 0;
    const size_t have = m_buffer.size();
    const size_t want = std::max(bytes - have, READ_CHUNK_BYTES);
    m_buffer.resize(have + want);
    const size_t got = std::fread(m_buffer.data() + have, 1, want, m_file->Get());
    m_buffer.resize(have + got);
    return m_buffer.size();
}

std::string HintsFileReader::ObjectError(uint64_t offset, const std::string& why) const
{
    return "block " + std::to_string(m_next_height) + "'s hints (byte " + std::to_string(offset) + "): " + why;
}

util::Expected<std::vector<uint32_t>, std::string> HintsFileReader::Next()
{
    if (m_next_height > m_height) throw std::logic_error("HintsFileReader::Next: every block's hints were read");
    const uint64_t offset = m_buffer_offset + m_pos;
    if (Fill(MAX_HEADER_BYTES) == 0) {
        return Unexpected{"the file ends after block " + std::to_string(m_next_height - 1) + "'s hints, but its header says H=" +
                          std::to_string(m_height) + ": the header's height or the file is wrong"};
    }
    const auto available = Available();
    const auto shape = ReadEliasFanoShape(available.first(std::min(available.size(), MAX_HEADER_BYTES)));
    if (!shape) return Unexpected{ObjectError(offset, shape.error())};
    if (Fill(shape->TotalBytes()) < shape->TotalBytes()) {
        return Unexpected{ObjectError(offset, "truncated: the object takes " + std::to_string(shape->TotalBytes()) +
                                                  " bytes, the file ends after " + std::to_string(Available().size()))};
    }
    const auto parts = Available().subspan(shape->header_bytes, shape->PartBytes());
    auto indices = DecodeEliasFanoParts(*shape, parts);
    if (!indices) {
        if (DecodeEliasFanoParts(*shape, parts, BitOrder::LEAST_SIGNIFICANT_FIRST)) {
            return Unexpected{ObjectError(offset, "looks like a hints file of crate hintsfile 0.2.0 (bits filled from the least "
                                                  "significant end), which coinsdb does not read")};
        }
        return Unexpected{ObjectError(offset, indices.error())};
    }
    m_pos += shape->TotalBytes();
    ++m_next_height;
    return indices;
}

util::Expected<uint64_t, std::string> HintsFileReader::Finish()
{
    if (m_next_height <= m_height) throw std::logic_error("HintsFileReader::Finish: blocks left to read");
    const uint64_t end = m_buffer_offset + m_pos;
    uint64_t extra = 0;
    while (Fill(1) > 0) {
        extra += Available().size();
        m_pos = m_buffer.size();
    }
    if (extra > 0) {
        return Unexpected{std::to_string(extra) + " bytes follow block " + std::to_string(m_height) +
                          "'s hints, the last the header announces: the header's height or the file is wrong"};
    }
    return end;
}

util::Expected<std::vector<std::vector<uint32_t>>, std::string> ReadHintsFile(const std::filesystem::path& path)
{
    auto reader = HintsFileReader::Open(path);
    if (!reader) return Unexpected{reader.error()};
    std::vector<std::vector<uint32_t>> blocks;
    while (reader->NextHeight() <= reader->Height()) {
        auto hints = reader->Next();
        if (!hints) return Unexpected{hints.error()};
        blocks.push_back(std::move(*hints));
    }
    if (const auto end = reader->Finish(); !end) return Unexpected{end.error()};
    return blocks;
}

HintsFileWriter::HintsFileWriter(AutoFile& file, uint32_t height) : m_file{file}, m_height{height}
{
    std::array<uint8_t, HINTS_HEADER_BYTES> header{};
    std::ranges::copy(MAGIC, header.begin());
    header[4] = VERSION;
    for (int i = 0; i < 4; ++i) header[5 + i] = (height >> (8 * i)) & 0xff;
    m_file.write(std::as_bytes(std::span{header}));
    m_bytes = header.size();
}

void HintsFileWriter::Append(std::span<const uint32_t> unspent)
{
    if (m_appended == m_height) throw std::logic_error("HintsFileWriter::Append: more blocks than the header's height");
    std::vector<uint8_t> object;
    EncodeEliasFano(unspent, object);
    m_file.write(std::as_bytes(std::span{object}));
    m_bytes += object.size();
    ++m_appended;
}

void HintsFileWriter::Finish() const
{
    if (m_appended != m_height) {
        throw std::logic_error("HintsFileWriter::Finish: " + std::to_string(m_appended) + " blocks written, the header says " +
                               std::to_string(m_height));
    }
}

} // namespace kernel::swiftsync
