#ifndef COINSDB_UTIL_XOR_H
#define COINSDB_UTIL_XOR_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

// XORs data with an 8-byte key repeated from its first byte: data[i] ^=
// key[i % 8]. The chainstate's values (Obfuscation) and the block files
// (XorAtOffset, with the key rotated to the file offset) are obfuscated
// this way; both are read and written by the million, so whole 64-bit
// words go at once and only the tail byte by byte.
inline void XorRepeatingKey(std::span<std::byte> data, std::span<const std::byte, 8> key)
{
    uint64_t word_key;
    std::memcpy(&word_key, key.data(), sizeof(word_key));
    size_t i = 0;
    for (; i + sizeof(word_key) <= data.size(); i += sizeof(word_key)) {
        uint64_t word;
        std::memcpy(&word, data.data() + i, sizeof(word));
        word ^= word_key;
        std::memcpy(data.data() + i, &word, sizeof(word));
    }
    for (; i < data.size(); ++i) data[i] ^= key[i % key.size()];
}

#endif // COINSDB_UTIL_XOR_H
