#ifndef COINSDB_KERNEL_SWIFTSYNC_HINTS_FILE_H
#define COINSDB_KERNEL_SWIFTSYNC_HINTS_FILE_H

// A SwiftSync hints file (BIP 456, version 0): for every block from height
// 1 to the file's height H, which of its outputs are still unspent at H.
//
//   file       55 54 58 4f ("UTXO") | 00 (version) | LE32 H | H objects, then nothing
//   object k   block k's hints, k = 1..H: an Elias-Fano object (elias_fano.h)
//              holding the hint indices (spendable.h) of its outputs unspent at H
//
// Heights 1..H, not 0..H: the genesis block's outputs are never in the UTXO
// set, so it has no object. The BIP's table does not say where the objects
// start; the reference code does (crate hintsfile's reader and builder
// count from height 1, Bitcoin Core's hintsfile-v1 branch appends the
// objects of blocks 1..H after the height), and Floresta's test file for
// mainnet blocks 1..175 is 532 bytes: 9 + 174 objects of 3 bytes + block 9's
// empty one (its coinbase is spent in block 170).
// The format carries no block hash: whoever uses a file must know which
// block is at H (coinsdb-genhints prints it).
//
// A file is recognised by its content, not its version byte, which others
// also set to 0. Refused by name:
//   - Bitcoin Core PR #34004's bitmap file: after the same 9 bytes, a table
//     of H entries (LE32 height, LE64 offset of the block's bitmap), so its
//     first offset is 9 + 12 H. A BIP 456 file cannot start that way unless
//     its blocks 1..4 all have no hints and block 5's object spells that
//     number, which no chain this reader is meant for has;
//   - crate hintsfile 0.2.0's file: the same bytes sizes, bits filled from
//     the least significant end (elias_fano.h): the first object that fails
//     is decoded in that order too, and named when it passes;
//   - a UTXO snapshot (dumptxoutset), which starts with "utxo" ff.
// Also refused: another magic or version, a header shorter than 9 bytes, a
// malformed object (which block, at which byte, and why), a file that ends
// before block H's object, and bytes after it.

#include <streams.h>
#include <util/expected.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kernel::swiftsync {

constexpr size_t HINTS_HEADER_BYTES = 9;

class HintsFileReader
{
public:
    // Opens the file and checks its header and what it looks like. The
    // error says what is wrong, without the path.
    static util::Expected<HintsFileReader, std::string> Open(const std::filesystem::path& path);
    // The same over an open file (fmemopen in the fuzz target), read from
    // its current position; the reader owns and closes it.
    static util::Expected<HintsFileReader, std::string> Open(std::FILE* file);

    uint32_t Height() const { return m_height; }
    // The height of the block Next() reads; Height() + 1 once all are read.
    uint32_t NextHeight() const { return m_next_height; }
    // The hints of block NextHeight(), strictly rising. The error names the
    // block and the byte offset of its object. Throws std::logic_error when
    // all H objects were read.
    util::Expected<std::vector<uint32_t>, std::string> Next();
    // After the H-th object: the file must end there. Returns its size.
    util::Expected<uint64_t, std::string> Finish();

private:
    explicit HintsFileReader(std::FILE* file) : m_file{std::make_unique<AutoFile>(file)} {}
    // Makes `bytes` bytes available unless the file ends first; returns
    // how many are.
    size_t Fill(size_t bytes);
    std::span<const uint8_t> Available() const { return std::span{m_buffer}.subspan(m_pos); }
    std::string ObjectError(uint64_t offset, const std::string& why) const;

    std::unique_ptr<AutoFile> m_file;
    std::vector<uint8_t> m_buffer;
    size_t m_pos{0};
    // File offset of m_buffer[0].
    uint64_t m_buffer_offset{0};
    uint32_t m_height{0};
    uint32_t m_next_height{1};
};

// Every block's hints, for tests and a tool's check; the error is the
// reader's.
util::Expected<std::vector<std::vector<uint32_t>>, std::string> ReadHintsFile(const std::filesystem::path& path);

// Writes a file: the header at construction, then one Append() per block
// from height 1, then Finish(). Write errors throw std::ios_base::failure
// (AutoFile). Appending more than `height` blocks, or finishing with fewer,
// throws std::logic_error; a list that is not strictly rising below
// MAX_BLOCK_OUTPUTS, std::invalid_argument.
class HintsFileWriter
{
public:
    HintsFileWriter(AutoFile& file, uint32_t height);
    void Append(std::span<const uint32_t> unspent);
    void Finish() const;
    uint64_t BytesWritten() const { return m_bytes; }

private:
    AutoFile& m_file;
    uint32_t m_height;
    uint32_t m_appended{0};
    uint64_t m_bytes{0};
};

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_HINTS_FILE_H
