#include <node/blockstorage/obfuscation.h>

#include <crypto/random.h>
#include <streams.h>
#include <util/log.h>
#include <util/strencodings.h>
#include <util/xor.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace node {

bool IsNullXorKey(const BlockFileXorKey& key)
{
    return std::ranges::all_of(key, [](std::byte b) { return b == std::byte{0}; });
}

void XorAtOffset(std::span<std::byte> data, uint64_t file_offset, const BlockFileXorKey& key)
{
    if (IsNullXorKey(key)) return;
    // The key rotated to start with data[0]'s byte.
    BlockFileXorKey rotated;
    const size_t start = file_offset % key.size();
    for (size_t i = 0; i < key.size(); ++i) rotated[i] = key[(start + i) % key.size()];
    XorRepeatingKey(data, rotated);
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

namespace {

bool FsyncPath(const std::filesystem::path& path, int flags)
{
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

bool IsNewOrEmptyDir(const std::filesystem::path& dir)
{
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) return !ec;
    const bool empty = std::filesystem::is_empty(dir, ec);
    return empty && !ec;
}

// Exclusive create: a key that is already there is never overwritten.
bool WriteNewXorKey(const std::filesystem::path& blocks_dir, const BlockFileXorKey& key, std::string& error)
{
    const auto path = blocks_dir / XOR_KEY_FILE;
    AutoFile file{std::fopen(path.c_str(), "wbx")};
    bool ok = !file.IsNull() && std::fwrite(key.data(), 1, key.size(), file.Get()) == key.size() &&
              std::fflush(file.Get()) == 0 && ::fsync(fileno(file.Get())) == 0;
    ok = file.fclose() == 0 && ok;
    // The key must outlive a crash as surely as the blocks written with it.
    if (!ok || !FsyncPath(blocks_dir, O_RDONLY | O_DIRECTORY)) {
        error = "Cannot write the block file XOR key " + path.string() + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

} // namespace

std::optional<BlockFileXorKey> LoadOrCreateXorKey(const std::filesystem::path& blocks_dir, bool use_xor, std::string& error)
{
    std::error_code ec;
    const bool have_key = std::filesystem::exists(blocks_dir / XOR_KEY_FILE, ec) || ec;
    std::optional<BlockFileXorKey> key;
    if (have_key) {
        key = ReadXorKey(blocks_dir, error);
        if (!key) return std::nullopt;
    } else {
        key.emplace();
        // Files already in the directory were written plain.
        if (use_xor && IsNewOrEmptyDir(blocks_dir)) GetRandBytes(std::span{reinterpret_cast<unsigned char*>(key->data()), key->size()});
        std::filesystem::create_directories(blocks_dir, ec);
        if (!WriteNewXorKey(blocks_dir, *key, error)) return std::nullopt;
    }
    if (!use_xor && !IsNullXorKey(*key)) {
        error = "The blocksdir XOR-key can not be disabled when a random key was already stored! Stored key: '" + HexStr(*key) +
                "', stored path: '" + (blocks_dir / XOR_KEY_FILE).string() + "'.";
        return std::nullopt;
    }
    LogInfo("Using obfuscation key for blocksdir *.dat files ({}): '{}'", blocks_dir.string(), HexStr(*key));
    return key;
}

} // namespace node
