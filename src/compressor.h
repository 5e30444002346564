#ifndef COINSDB_COMPRESSOR_H
#define COINSDB_COMPRESSOR_H

// Amount and script compression of chainstate values and snapshot coins.
//
// Byte formats owned by this file:
//
// Compressed amount: VARINT(CompressAmount(value)).
//   CompressAmount(0) = 0. Otherwise strip up to 9 trailing decimal zeros
//   (e = how many). If e < 9, with d the last non-zero digit and n the rest:
//   1 + (n * 9 + d - 1) * 10 + e. If e == 9: 1 + (value - 1) * 10 + 9.
//   Example: 1 BTC = 100000000 -> e=8, d=1, n=0 -> 9 -> VARINT 09.
//
// Compressed script: VARINT(nSize), then a body.
//   nSize 0   P2PKH  76 a9 14 <h20> 88 ac          body: h20
//   nSize 1   P2SH   a9 14 <h20> 87                body: h20
//   nSize 2,3 P2PK   21 <02|03> <x32> ac           body: x32, nSize = prefix
//   nSize 4,5 P2PK   41 04 <x32> <y32> ac          body: x32, nSize = 4 | (y & 1)
//             (only when the key is a valid curve point; otherwise generic)
//   nSize>=6  any other script: body is the raw script, length nSize - 6.
//             A length above MAX_SCRIPT_SIZE is skipped and read back as the
//             one-byte script 6a (OP_RETURN): never allocated.
//
// Compressed TxOut: compressed amount, then compressed script.

#include <primitives/amount.h>
#include <primitives/transaction.h>
#include <script/script.h>
#include <serialize.h>

#include <array>
#include <cstdint>
#include <ios>
#include <optional>
#include <vector>

uint64_t CompressAmount(uint64_t value);
uint64_t DecompressAmount(uint64_t compressed);

// Number of special script shapes (nSize 0..5).
constexpr unsigned SPECIAL_SCRIPT_COUNT = 6;

// Body length of a special shape: 20 for nSize 0-1, 32 for 2-5.
constexpr size_t SpecialScriptBodySize(unsigned n_size) { return n_size < 2 ? 20 : 32; }

struct CompressedScript {
    unsigned n_size;
    std::vector<unsigned char> body; // empty for the generic form: the script itself is the body
};

// Returns the special form of a script, or nullopt when it has none.
std::optional<CompressedScript> CompressScript(const CScript& script);
// Rebuilds a special script. Returns nullopt for an uncompressed-key body
// whose x coordinate is not on the curve (no encoder produces one).
std::optional<CScript> DecompressScript(unsigned n_size, std::span<const unsigned char> body);

template <typename Stream>
void SerializeCompressedScript(Stream& s, const CScript& script)
{
    if (auto special = CompressScript(script)) {
        WriteVarInt(s, special->n_size);
        s.write(std::as_bytes(std::span{special->body}));
        return;
    }
    WriteVarInt(s, script.size() + SPECIAL_SCRIPT_COUNT);
    s.write(std::as_bytes(std::span{script}));
}

template <typename Stream>
void SkipBytes(Stream& s, uint64_t count)
{
    std::array<std::byte, 4096> scratch;
    while (count > 0) {
        const size_t now = std::min<uint64_t>(count, scratch.size());
        s.read(std::span{scratch}.first(now));
        count -= now;
    }
}

template <typename Stream>
void UnserializeCompressedScript(Stream& s, CScript& script)
{
    const uint64_t n_size = ReadVarInt(s);
    if (n_size > UINT32_MAX) throw std::ios_base::failure("ReadVarInt(): size too large");
    script.clear();
    if (n_size < SPECIAL_SCRIPT_COUNT) {
        std::array<unsigned char, 32> body;
        const auto body_span = std::span{body}.first(SpecialScriptBodySize(n_size));
        s.read(std::as_writable_bytes(body_span));
        auto decompressed = DecompressScript(n_size, body_span);
        if (!decompressed) throw std::ios_base::failure("compressed script holds a public key that is not on the curve");
        script = std::move(*decompressed);
        return;
    }
    const uint64_t length = n_size - SPECIAL_SCRIPT_COUNT;
    if (length > MAX_SCRIPT_SIZE) {
        script.push_back(OP_RETURN);
        SkipBytes(s, length);
        return;
    }
    script.resize(length);
    s.read(std::as_writable_bytes(std::span{script}));
}

template <typename Stream>
void SerializeCompressedTxOut(Stream& s, const CTxOut& out)
{
    WriteVarInt(s, CompressAmount(static_cast<uint64_t>(out.nValue)));
    SerializeCompressedScript(s, out.scriptPubKey);
}

template <typename Stream>
void UnserializeCompressedTxOut(Stream& s, CTxOut& out)
{
    out.nValue = static_cast<CAmount>(DecompressAmount(ReadVarInt(s)));
    UnserializeCompressedScript(s, out.scriptPubKey);
}

#endif // COINSDB_COMPRESSOR_H
