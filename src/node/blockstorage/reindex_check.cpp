#include <node/blockstorage/reindex_check.h>

#include <node/blockstorage/blockstorage.h>
#include <node/blockstorage/obfuscation.h>
#include <streams.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

namespace node {

std::optional<std::string> CheckFirstBlockFile(const std::filesystem::path& blocks_dir, const CChainParams& params)
{
    std::string error;
    const auto key = ReadXorKey(blocks_dir, error);
    if (!key) return error;
    const auto path = blocks_dir / "blk00000.dat";
    AutoFile file{std::fopen(path.c_str(), "rb")};
    if (file.IsNull()) return fmt::format("{} cannot be opened", path.string());
    const std::string where = path.string() + ":0";
    const std::string how = IsNullXorKey(*key) ? "read as plain bytes: no key in xor.dat" : "de-obfuscated with the key in xor.dat";

    std::array<std::byte, STORAGE_HEADER_BYTES> header;
    if (!ReadXored(file.Get(), 0, header, *key)) return fmt::format("{}: the file ends before the first record", where);
    const auto& magic = params.MessageStart();
    if (!std::ranges::equal(std::span{header}.first(magic.size()), std::as_bytes(std::span{magic}))) {
        return fmt::format("{}: wrong network magic ({})", where, how);
    }
    SpanReader size_reader{std::span{header}.subspan(magic.size())};
    const uint32_t size = ReadLE<uint32_t>(size_reader);
    if (size < CBlockHeader::SIZE || size > MAX_BLOCK_SERIALIZED_SIZE) {
        return fmt::format("{}: a record of {} bytes cannot hold a block ({})", where, size, how);
    }
    std::vector<std::byte> payload(size);
    if (!ReadXored(file.Get(), STORAGE_HEADER_BYTES, payload, *key)) return fmt::format("{}: the first record is cut short", where);
    CBlock block;
    try {
        SpanReader reader{payload};
        reader >> block;
    } catch (const std::exception& e) {
        return fmt::format("{}: the first block does not parse: {}", where, e.what());
    }
    if (block.GetHash() != params.GenesisHash()) {
        return fmt::format("{}: the first block is {}, not the genesis block {}", where, block.GetHash().GetHex(), params.GenesisHash().GetHex());
    }
    return std::nullopt;
}

} // namespace node
