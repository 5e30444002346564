#include <node/snapshot/utxo_snapshot.h>

#include <kernel/coinstats.h>
#include <primitives/amount.h>
#include <txdb.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <fmt/format.h>

#include <vector>

namespace {


std::string NetworkName(const MessageStartChars& magic)
{
    if (auto chain = ChainTypeFromMessageStart(magic)) return ChainTypeToString(*chain);
    return "unknown network magic " + HexStr(magic);
}

} // namespace

void SnapshotMetadata::Write(AutoFile& file) const
{
    file << SNAPSHOT_MAGIC_BYTES;
    WriteLE(file, SNAPSHOT_VERSION);
    file << network_magic;
    file << base_blockhash;
    WriteLE(file, coins_count);
}

SnapshotMetadata SnapshotMetadata::Read(AutoFile& file, const MessageStartChars& expected_network)
{
    SnapshotMetadata metadata;
    try {
        std::array<unsigned char, SNAPSHOT_MAGIC_BYTES.size()> magic;
        file >> magic;
        if (magic != SNAPSHOT_MAGIC_BYTES) {
            throw SnapshotError("Invalid UTXO set snapshot magic bytes: this is not a snapshot file, or one in an "
                                "outdated format");
        }
        const uint16_t version = ReadLE<uint16_t>(file);
        if (version != SNAPSHOT_VERSION) {
            throw SnapshotError(fmt::format("Unsupported snapshot version {}: this node reads version {}", version,
                                            SNAPSHOT_VERSION));
        }
        file >> metadata.network_magic;
        if (metadata.network_magic != expected_network) {
            throw SnapshotError(fmt::format("The snapshot is for {} but this node runs on {}",
                                            NetworkName(metadata.network_magic), NetworkName(expected_network)));
        }
        file >> metadata.base_blockhash;
        metadata.coins_count = ReadLE<uint64_t>(file);
    } catch (const std::ios_base::failure& e) {
        throw SnapshotError(fmt::format("Truncated snapshot header: {}", e.what()));
    }
    return metadata;
}

AssumeutxoData CheckSnapshotBase(const SnapshotMetadata& metadata, const CChainParams& params)
{
    auto entry = params.AssumeutxoForBlockhash(metadata.base_blockhash);
    if (!entry) {
        throw SnapshotError(fmt::format("Assumeutxo height in snapshot metadata not recognized for base block {}: "
                                        "this chain has no assumeutxo entry for it",
                                        metadata.base_blockhash.GetHex()));
    }
    return *entry;
}

SnapshotCoinReader::SnapshotCoinReader(AutoFile& file, const SnapshotMetadata& metadata, int base_height)
    : m_file{file}, m_coins_count{metadata.coins_count}, m_base_height{base_height}
{
}

void SnapshotCoinReader::Fail(const std::string& what) const
{
    throw SnapshotError(fmt::format("Bad snapshot data after deserializing {} coins (file offset {}): {}",
                                    m_coins_read, m_file.Tell(), what));
}

bool SnapshotCoinReader::Next(COutPoint& outpoint, Coin& coin)
{
    if (m_coins_read == m_coins_count) {
        if (!m_file.AtEnd()) Fail("coins left over after the last coin the metadata announced");
        return false;
    }
    try {
        if (m_group_left == 0) {
            m_file >> m_group_txid;
            m_group_left = ReadCompactSize(m_file);
            if (m_group_left == 0) Fail(fmt::format("empty coin group for txid {}", m_group_txid.GetHex()));
            if (m_group_left > m_coins_count - m_coins_read) {
                Fail(fmt::format("group of {} coins for txid {} exceeds the {} coins the metadata has left",
                                 m_group_left, m_group_txid.GetHex(), m_coins_count - m_coins_read));
            }
        }
        const uint64_t vout = ReadCompactSize(m_file, /*range_check=*/false);
        if (vout >= COutPoint::NULL_INDEX) Fail(fmt::format("output index {} out of range", vout));
        m_file >> coin;
        outpoint = COutPoint{m_group_txid, static_cast<uint32_t>(vout)};
    } catch (const std::ios_base::failure& e) {
        Fail(fmt::format("bad format or truncated snapshot: {}", e.what()));
    }
    if (coin.nHeight > static_cast<uint32_t>(m_base_height)) {
        Fail(fmt::format("coin {} has height {} above the snapshot base height {}", outpoint.ToString(), uint32_t{coin.nHeight},
                         m_base_height));
    }
    if (!MoneyRange(coin.out.nValue)) {
        Fail(fmt::format("coin {} has amount {} outside the valid money range", outpoint.ToString(), coin.out.nValue));
    }
    --m_group_left;
    ++m_coins_read;
    return true;
}

uint64_t WriteSnapshot(AutoFile& file, const MessageStartChars& network, const uint256& base_blockhash,
                       uint64_t coins_count, CCoinsViewCursor& cursor)
{
    SnapshotMetadata{network, base_blockhash, coins_count}.Write(file);

    uint64_t written = 0;
    uint256 group_txid;
    std::vector<std::pair<uint32_t, Coin>> group;
    auto write_group = [&] {
        if (group.empty()) return;
        file << group_txid;
        WriteCompactSize(file, group.size());
        for (const auto& [vout, coin] : group) {
            WriteCompactSize(file, vout);
            file << coin;
        }
        written += group.size();
        group.clear();
    };

    for (; cursor.Valid(); cursor.Next()) {
        COutPoint outpoint;
        Coin coin;
        if (!cursor.GetKey(outpoint) || !cursor.GetValue(coin)) {
            throw SnapshotError(fmt::format("Unable to read coin {} from the database", written + group.size()));
        }
        if (outpoint.hash != group_txid) write_group();
        group_txid = outpoint.hash;
        group.emplace_back(outpoint.n, std::move(coin));
    }
    write_group();
    if (written != coins_count) {
        throw SnapshotError(fmt::format("Wrote {} coins but the snapshot header announced {}", written, coins_count));
    }
    return written;
}

void SnapshotHasher::Add(const COutPoint& outpoint, const Coin& coin, uint64_t coins_read)
{
    if (!m_in_order) return;
    if (m_count > 0 && !CoinKeyLess(m_previous, outpoint)) {
        // Equal keys in a row: a second coin for one outpoint, which
        // would silently replace the first.
        if (!CoinKeyLess(outpoint, m_previous)) {
            throw SnapshotError(fmt::format("Bad snapshot data after deserializing {} coins: coin {}:{} appears twice",
                                            coins_read, outpoint.hash.GetHex(), outpoint.n));
        }
        LogInfo("[snapshot] coin {} is out of chainstate key order; the loaded set will be hashed from disk", outpoint.ToString());
        m_in_order = false;
        return;
    }
    kernel::ApplyCoinHash(m_writer, outpoint, coin);
    m_previous = outpoint;
    ++m_count;
}
