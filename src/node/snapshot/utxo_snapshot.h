#ifndef COINSDB_NODE_SNAPSHOT_UTXO_SNAPSHOT_H
#define COINSDB_NODE_SNAPSHOT_UTXO_SNAPSHOT_H

// UTXO snapshot file (dumptxoutset / loadtxoutset), version 2.
//
// Header (51 bytes):
//   75 74 78 6f ff          magic, "utxo" + 0xff
//   LE16 2                  version
//   4 bytes                 network magic (regtest fa bf b5 da)
//   32 bytes                base block hash, internal order
//   LE64                    number of coins
// Body: coins grouped by txid, groups in chainstate key order:
//   txid (32) | CompactSize(coins in group) | per coin: CompactSize(vout), Coin (coins.h)
// The file ends right after the last coin.

#include <coins.h>
#include <hash.h>
#include <kernel/chainparams.h>
#include <streams.h>
#include <uint256.h>

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

constexpr std::array<unsigned char, 5> SNAPSHOT_MAGIC_BYTES{'u', 't', 'x', 'o', 0xff};
constexpr uint16_t SNAPSHOT_VERSION = 2;

// A snapshot that cannot be used; what() says what is wrong and where.
class SnapshotError : public std::runtime_error
{
public:
    explicit SnapshotError(const std::string& msg) : std::runtime_error{msg} {}
};

struct SnapshotMetadata {
    MessageStartChars network_magic{};
    uint256 base_blockhash;
    uint64_t coins_count{0};

    void Write(AutoFile& file) const;
    // Reads and checks magic, version and network. Throws SnapshotError.
    static SnapshotMetadata Read(AutoFile& file, const MessageStartChars& expected_network);
};

// Checks that the chain trusts the snapshot's base block. Throws
// SnapshotError; returns the matching assumeutxo entry.
AssumeutxoData CheckSnapshotBase(const SnapshotMetadata& metadata, const CChainParams& params);

// Reads the body coin by coin, checking each one against the metadata and
// the base height.
class SnapshotCoinReader
{
public:
    SnapshotCoinReader(AutoFile& file, const SnapshotMetadata& metadata, int base_height);

    // Reads the next coin into outpoint/coin. Returns false once every coin
    // of the metadata was read and the file ends there. Throws SnapshotError.
    bool Next(COutPoint& outpoint, Coin& coin);
    uint64_t CoinsRead() const { return m_coins_read; }

private:
    [[noreturn]] void Fail(const std::string& what) const;

    // The coins are read through a buffer: the file's own position runs
    // ahead of the coin being read.
    BufferedFileReader m_file;
    uint64_t m_coins_count;
    int m_base_height;
    uint64_t m_coins_read{0};
    uint256 m_group_txid;
    uint64_t m_group_left{0};
};

// hash_serialized_3 of a snapshot's coins as they are read, valid while
// they arrive in chainstate key order (the order the hash is defined in,
// and the order dumptxoutset writes): the loaded set then needs no second
// pass over the database. Coins out of order fall back to that pass.
class SnapshotHasher
{
public:
    // coins_read counts this coin. Throws SnapshotError for a coin that
    // repeats the one before it.
    void Add(const COutPoint& outpoint, const Coin& coin, uint64_t coins_read);
    std::optional<uint256> Hash() { return m_in_order ? std::optional{m_writer.GetHash()} : std::nullopt; }
    bool InOrder() const { return m_in_order; }

private:
    HashWriter m_writer;
    COutPoint m_previous;
    uint64_t m_count{0};
    bool m_in_order{true};
};

// Writes a snapshot of every coin the cursor yields. coins_count must be the
// number the cursor will yield; a mismatch throws SnapshotError. Returns the
// coins written.
uint64_t WriteSnapshot(AutoFile& file, const MessageStartChars& network, const uint256& base_blockhash,
                       uint64_t coins_count, CCoinsViewCursor& cursor);

#endif // COINSDB_NODE_SNAPSHOT_UTXO_SNAPSHOT_H
