#include <kernel/swiftsync/hinted_connect.h>

#include <kernel/swiftsync/spendable.h>

namespace kernel::swiftsync {

int CoinbaseHistory::HeightOf(const uint256& txid) const
{
    const auto it = m_heights.find(txid);
    return it == m_heights.end() ? -1 : it->second;
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
        const int coinbase_height = m_coinbases.HeightOf(prevout.hash);
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
