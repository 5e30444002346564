#ifndef COINSDB_TXDB_TXID_FILTER_H
#define COINSDB_TXDB_TXID_FILTER_H

#include <uint256.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

// Which txids may have a coin in the chainstate database: a Bloom filter in
// memory, no bytes on disk. A "no" is exact, so a lookup of a coin whose
// txid the filter never saw is answered without reading LevelDB.
//
// Why: replaying blocks, most lookups the database gets are misses. The
// BIP30 check asks, for every output a block creates, whether a coin of
// that outpoint exists already (Core's ConnectBlock does it on every block
// of a chain whose BIP34 activation block it does not know, regtest and
// generated chains included; on mainnet below BIP34's height 227,931 and
// again from 1,983,702). LevelDB answers a miss by probing the memtables
// and one table per level, each an index search and a filter check: at
// -dbcache=100 these misses were 3 in 4 of its reads. This filter answers
// one txid with one 64-bit word.
//
// Layout: 64-bit words; a txid sets K bits of one word, the word and the
// bits picked from a salted mix of its first 16 bytes. One word per txid
// keeps an Add to one atomic OR and a lookup to one load (one cache miss);
// at 10 bits per txid about 2% of absent txids still pass. The salt is
// secret to the process (random), so txids cannot be ground to crowd one
// word; a txid that passes only costs the LevelDB read it would have had.
//
// Threads: lookups and adds may run at once (the prevout fetch workers
// read while a flush adds). An add must come before the write that puts
// its coin in the database: LevelDB's write and read take one mutex, so a
// reader that can find the coin also sees the bits.
class TxidFilter
{
public:
    // Bits a txid sets in its word.
    static constexpr int K{4};

    // `bytes` rounded down to whole words, at least one.
    TxidFilter(size_t bytes, uint64_t salt);

    void Add(const uint256& txid);
    // False only for a txid never added.
    bool MayContain(const uint256& txid) const;
    size_t Bytes() const { return m_word_count * sizeof(uint64_t); }

private:
    struct Slot {
        size_t word;
        uint64_t mask;
    };
    Slot SlotOf(const uint256& txid) const;

    size_t m_word_count;
    std::unique_ptr<std::atomic<uint64_t>[]> m_words;
    uint64_t m_salt;
};

#endif // COINSDB_TXDB_TXID_FILTER_H
