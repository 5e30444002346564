#include <node/blockstorage_xor.h>

#include <streams.h>

#include <algorithm>
#include <system_error>

namespace node {

bool IsNullXorKey(const BlockFileXorKey& key)
{
    return std::ranges::all_of(key, [](std::byte b) { return b == std::byte{0}; });
}

void XorAtOffset(std::span<std::byte> data, uint64_t file_offset, const BlockFileXorKey& key)
{
    if (IsNullXorKey(key)) return;
    const size_t start = file_offset % key.size();
    for (size_t i = 0; i < data.size(); ++i) data[i] ^= key[(start + i) % key.size()];
}

bool ReadXored(std::FILE* file, uint64_t pos, std::span<std::byte> out, const BlockFileXorKey& key)
{
    if (fseeko(file, static_cast<off_t>(pos), SEEK_SET) != 0) return false;
    if (std::fread(out.data(), 1, out.size(), file) != out.size()) return false;
    XorAtOffset(out, pos, key);
    return true;
}

std::optional<BlockFileXorKey> ReadXorKey(const std::filesystem::path& blocks_dir, std::string& error)
{
    const auto path = blocks_dir / XOR_KEY_FILE;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec) return BlockFileXorKey{};
    const auto size = std::filesystem::file_size(path, ec);
    AutoFile file{ec ? nullptr : std::fopen(path.c_str(), "rb")};
    if (file.IsNull()) {
        error = "Cannot read the block file XOR key " + path.string();
        return std::nullopt;
    }
    BlockFileXorKey key;
    if (size != key.size()) {
        error = "The block file XOR key " + path.string() + " must be exactly 8 bytes, not " + std::to_string(size);
        return std::nullopt;
    }
    if (std::fread(key.data(), 1, key.size(), file.Get()) != key.size()) {
        error = "Cannot read the block file XOR key " + path.string();
        return std::nullopt;
    }
    return key;
}

} // namespace node
