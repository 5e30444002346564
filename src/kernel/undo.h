#ifndef COINSDB_KERNEL_UNDO_H
#define COINSDB_KERNEL_UNDO_H

// Undo data: the coins a block spent, so that disconnecting it can put them
// back. Bitcoin Core's format, byte for byte (the payload of a rev?????.dat
// record; the record's framing belongs to block storage).
//
// Byte formats owned by this file:
//
// Undo coin (one spent output):
//   VARINT(height * 2 + coinbase)
//   VARINT(0)       only when height > 0: a dummy where versions before 0.15
//                   kept the transaction version. Written as the single byte
//                   00; read as any VARINT up to 2^32-1 and ignored, as
//                   upstream does. A height of 0 has no dummy: in the old
//                   format it meant "metadata kept with another output".
//   compressed TxOut (compressor.h)
// Example: a 50 BTC P2PKH coinbase output from height 1:
//   03 | 00 | 32 | 00 <20-byte key hash>
//
// CTxUndo (one non-coinbase transaction): CompactSize(number of inputs),
//   then one undo coin per input, in input order. A reader refuses more than
//   MAX_INPUTS_PER_BLOCK ("Too many input undo records").
//
// CBlockUndo: CompactSize(number of non-coinbase transactions), then one
//   CTxUndo each, in block order (the coinbase spends nothing and has none).
//
// Malformed bytes (truncation, a VARINT or count out of range, a bad
// compressed script) throw std::ios_base::failure.

#include <coins.h>
#include <compressor.h>
#include <serialize.h>

#include <cstdint>
#include <ios>
#include <vector>

// Upstream's bound on the coins of one CTxUndo: the block weight limit over
// the size of the smallest input (41 bytes: outpoint 36, empty scriptSig 1,
// sequence 4). Loose (non-witness bytes weigh 4 each, so a real block holds
// a quarter of that), but it is the number upstream enforces, so the same
// undo data is accepted or refused by both.
constexpr uint64_t MAX_INPUTS_PER_BLOCK = 4'000'000 / 41;

template <typename Stream>
void SerializeUndoCoin(Stream& s, const Coin& coin)
{
    WriteVarInt(s, uint64_t{coin.nHeight} * 2 + coin.fCoinBase);
    if (coin.nHeight > 0) WriteVarInt(s, 0);
    SerializeCompressedTxOut(s, coin.out);
}

template <typename Stream>
void UnserializeUndoCoin(Stream& s, Coin& coin)
{
    const uint64_t code = ReadVarInt(s);
    if (code > UINT32_MAX) throw std::ios_base::failure("ReadVarInt(): size too large");
    coin.nHeight = static_cast<uint32_t>(code >> 1);
    coin.fCoinBase = code & 1;
    if (coin.nHeight > 0) {
        if (ReadVarInt(s) > UINT32_MAX) throw std::ios_base::failure("ReadVarInt(): size too large");
    }
    UnserializeCompressedTxOut(s, coin.out);
}

// The coins one transaction spent, in the order of its inputs.
class CTxUndo
{
public:
    std::vector<Coin> vprevout;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteCompactSize(s, vprevout.size());
        for (const Coin& coin : vprevout) SerializeUndoCoin(s, coin);
    }

    template <typename Stream>
    void Unserialize(Stream& s)
    {
        const uint64_t count = ReadCompactSize(s);
        if (count > MAX_INPUTS_PER_BLOCK) throw std::ios_base::failure("Too many input undo records");
        vprevout.clear();
        // Grow as coins arrive instead of trusting the count with memory.
        for (uint64_t i = 0; i < count; ++i) UnserializeUndoCoin(s, vprevout.emplace_back());
    }
};

// The coins a block spent: one CTxUndo per transaction after the coinbase.
class CBlockUndo
{
public:
    std::vector<CTxUndo> vtxundo;

    template <typename Stream>
    void Serialize(Stream& s) const { ::Serialize(s, vtxundo); }
    template <typename Stream>
    void Unserialize(Stream& s) { ::Unserialize(s, vtxundo); }
};

#endif // COINSDB_KERNEL_UNDO_H
