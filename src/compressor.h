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

#include <prevector.h>
#include <primitives/amount.h>
#include <primitives/transaction.h>
#include <script/script.h>
#include <serialize.h>

#include <array>
#include <cstdint>
#include <ios>
#include <span>

uint64_t CompressAmount(uint64_t value);
uint64_t DecompressAmount(uint64_t compressed);

// Number of special script shapes (nSize 0..5).
constexpr unsigned SPECIAL_SCRIPT_COUNT = 6;

// Body length of a special shape (Core's GetSpecialScriptSize): 20 for
// nSize 0-1, 32 for 2-5, 0 for any other nSize, which has no special form.
constexpr unsigned GetSpecialScriptSize(unsigned n_size)
{
    if (n_size < 2) return 20;
    return n_size < SPECIAL_SCRIPT_COUNT ? 32 : 0;
}

// A special script's compressed form, Core's type: nSize (one byte, which
// is also its VARINT) then the body, 21 or 33 bytes, never on the heap.
using CompressedScript = prevector<33, unsigned char>;

// Writes the special form of `script` to `out` and returns true, or returns
// false, leaving `out` alone, when the script has none.
bool CompressScript(const CScript& script, CompressedScript& out);
// Rebuilds the special script of shape `n_size` from its body `in` (the
// body only, without nSize, as Core's) into `script`. Returns false, leaving
// `script` alone, for an uncompressed-key body whose x coordinate is not on
// the curve (no encoder produces one), for an `n_size` that is not special,
// or for a body shorter than GetSpecialScriptSize(n_size).
bool DecompressScript(CScript& script, unsigned n_size, const CompressedScript& in);

template <typename Stream>
void SerializeCompressedScript(Stream& s, const CScript& script)
{
    CompressedScript special;
    if (CompressScript(script, special)) {
        s.write(std::as_bytes(std::span{special}));
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
        CompressedScript body(GetSpecialScriptSize(n_size), 0);
        s.read(std::as_writable_bytes(std::span{body}));
        if (!DecompressScript(script, n_size, body)) throw std::ios_base::failure("compressed script holds a public key that is not on the curve");
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
