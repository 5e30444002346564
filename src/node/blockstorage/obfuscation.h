#ifndef COINSDB_NODE_BLOCKSTORAGE_OBFUSCATION_H
#define COINSDB_NODE_BLOCKSTORAGE_OBFUSCATION_H

// Obfuscated block files, as Bitcoin Core (v28 and later) stores them.
//
// blocks/xor.dat holds exactly 8 bytes, the key. Every byte of every
// blk?????.dat and rev?????.dat is stored XORed with a key byte chosen by its
// offset in the file:
//   stored[i] = plain[i] ^ key[i % 8]      (i counted from the file's start)
// so the same operation obfuscates and de-obfuscates, and a record's bytes
// depend on where in the file it sits. An all-zero key stores files plain;
// no xor.dat means the same.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace node {

using BlockFileXorKey = std::array<std::byte, 8>;

inline constexpr const char* XOR_KEY_FILE{"xor.dat"};

bool IsNullXorKey(const BlockFileXorKey& key);

// XORs data, which sits at file_offset in its file, with the key.
void XorAtOffset(std::span<std::byte> data, uint64_t file_offset, const BlockFileXorKey& key);

// Reads out.size() bytes at pos of an obfuscated file, de-obfuscated. False
// when the file ends before or the seek fails.
bool ReadXored(std::FILE* file, uint64_t pos, std::span<std::byte> out, const BlockFileXorKey& key);

// The key in blocks_dir/xor.dat, all zeros when there is none. nullopt, with
// error set, when it cannot be read or is not 8 bytes long. Only reads.
std::optional<BlockFileXorKey> ReadXorKey(const std::filesystem::path& blocks_dir, std::string& error);

// The key for blocks_dir, chosen as Bitcoin Core chooses it: the one in
// xor.dat when there is one; otherwise a new key, written to xor.dat (and
// synced) before any block file: random when use_xor and blocks_dir is new
// or empty, all zeros when it already holds files (they are plain) or
// without use_xor. nullopt, with error set, when xor.dat cannot be read or
// written, or when use_xor is false but the stored key is not all zeros
// (the files written with it would become unreadable).
std::optional<BlockFileXorKey> LoadOrCreateXorKey(const std::filesystem::path& blocks_dir, bool use_xor, std::string& error);

} // namespace node

#endif // COINSDB_NODE_BLOCKSTORAGE_OBFUSCATION_H
