#include <kernel/swiftsync/hinted_connect.h>

#include <kernel/swiftsync/spendable.h>

#include <crypto/random.h>

#include <algorithm>

namespace kernel::swiftsync {

namespace {
// 128 words for about COINBASE_MATURITY txids: about 1 in 10,000
// txids that are not there still pass (then the map answers).
constexpr size_t RECENT_FILTER_BYTES{1024};
} // namespace

CoinbaseHistory::CoinbaseHistory()
    : m_recent_salt{GetRandUint64()}, m_recent_filter{RECENT_FILTER_BYTES, m_recent_salt}
{
}

int CoinbaseHistory::HeightOf(const uint256& txid) const
{
    const auto it = m_heights.find(txid);
    return it == m_heights.end() ? -1 : it->second;
}

int CoinbaseHistory::MaybeImmatureHeightOf(const uint256& txid, int height) const
{
    // A coinbase immature at `height` is above height - COINBASE_MATURITY,
    // so above m_highest - COINBASE_MATURITY when height > m_highest: it is
    // in the window. A block at or below m_highest asks the map.
    if (height > m_highest && !m_recent_filter.MayContain(txid)) return -1;
    return HeightOf(txid);
}

void CoinbaseHistory::Add(const uint256& txid, int height)
{
    m_heights[txid] = height;
    m_highest = std::max(m_highest, height);
    m_recent.emplace_back(txid, height);
    const size_t erased = std::erase_if(m_recent, [&](const auto& entry) { return entry.second <= m_highest - COINBASE_MATURITY; });
    if (erased == 0) {
        m_recent_filter.Add(txid);
        return;
    }
    // A Bloom filter forgets nothing: the window's txids go into a new one.
    m_recent_filter = TxidFilter{RECENT_FILTER_BYTES, m_recent_salt};
    for (const auto& [recent, _] : m_recent) m_recent_filter.Add(recent);
}

namespace {

// The block's own txids by position, and the checks on each input that
// need no coin.
class BlockInputChecks
{
public:
    BlockInputChecks(const CBlock& block, int height, const CoinbaseHistory& coinbases, BlockTables& tables)
        : m_block{block}, m_height{height}, m_coinbases{coinbases}, m_tables{tables}
    {
        size_t inputs = 0;
        for (const CTransactionRef& tx : block.vtx) inputs += tx->vin.size();
        m_tables.Start(block.vtx.size(), inputs);
        for (size_t i = 0; i < block.vtx.size(); ++i) m_tables.AddTxid(block.vtx[i]->GetHash(), static_cast<uint32_t>(i));
    }

    bool Check(const COutPoint& prevout, size_t spender, BlockValidationState& state)
    {
        if (!m_tables.AddSpent(prevout)) {
            return state.Invalid("bad-txns-inputs-missingorspent", "a coin spent twice in one block");
        }
        if (const auto creator = m_tables.PositionOf(prevout.hash)) {
            if (*creator >= spender || prevout.n >= m_block.vtx[*creator]->vout.size()) {
                return state.Invalid("bad-txns-inputs-missingorspent", "spends an output its block has not created before it");
            }
            if (*creator == 0) return state.Invalid("bad-txns-premature-spend-of-coinbase", "tried to spend coinbase at depth 0");
            return true;
        }
        const int coinbase_height = m_coinbases.MaybeImmatureHeightOf(prevout.hash, m_height);
        if (coinbase_height >= 0 && m_height - coinbase_height < COINBASE_MATURITY) {
            return state.Invalid("bad-txns-premature-spend-of-coinbase", "tried to spend coinbase at depth " + std::to_string(m_height - coinbase_height));
        }
        return true;
    }

private:
    const CBlock& m_block;
    const int m_height;
    const CoinbaseHistory& m_coinbases;
    BlockTables& m_tables;
};

} // namespace

bool ConnectBlockHinted(const CBlock& block, int height, const CChainParams& params, std::span<const uint32_t> unspent,
                        CoinbaseHistory& coinbases, BlockTables& tables, HintedBlock& out, BlockValidationState& state)
{
    out = HintedBlock{};
    if (block.vtx.empty()) return state.Invalid("bad-blk-length", "no transactions");
    const uint256 hash = block.GetHash();
    const uint256& coinbase_txid = block.vtx[0]->GetHash();
    if (coinbases.HeightOf(coinbase_txid) >= 0 && !IsBip30OverwritingBlock(height, hash)) {
        return state.Invalid("bad-txns-BIP30", "tried to overwrite transaction");
    }
    const bool coinbase_overwritten = IsOverwrittenCoinbase(height, params);

    BlockInputChecks inputs{block, height, coinbases, tables};
    auto hint = unspent.begin();
    uint32_t index = 0;
    CAmount block_outputs = 0;
    for (size_t t = 0; t < block.vtx.size(); ++t) {
        const CTransaction& tx = *block.vtx[t];
        if (t > 0) {
            for (const CTxIn& in : tx.vin) {
                if (!inputs.Check(in.prevout, t, state)) return false;
                out.spent.push_back(in.prevout);
            }
        }
        for (uint32_t n = 0; n < tx.vout.size(); ++n) {
            const CTxOut& txout = tx.vout[n];
            block_outputs += txout.nValue;
            if (!MoneyRange(block_outputs)) return state.Invalid("bad-txns-txouttotal-toolarge", "the block's outputs exceed the money supply");
            if ((coinbase_overwritten && t == 0) || !IsSpendableScript(txout.scriptPubKey)) {
                out.unspendable_value += txout.nValue;
                continue;
            }
            const COutPoint outpoint{tx.GetHash(), n};
            if (hint != unspent.end() && *hint == index) {
                out.kept.emplace_back(outpoint, Coin{txout, height, t == 0});
                out.kept_value += txout.nValue;
                ++hint;
            } else {
                out.created.push_back(outpoint);
            }
            ++index;
        }
    }
    if (hint != unspent.end()) {
        return state.Invalid("swiftsync-hint-out-of-range",
                             "hint " + std::to_string(*hint) + " beyond the block's " + std::to_string(index) + " spendable outputs");
    }
    coinbases.Add(coinbase_txid, height);
    return true;
}

} // namespace kernel::swiftsync
