#include <kernel/swiftsync/spendable.h>

namespace kernel::swiftsync {

bool IsSpendableScript(const CScript& script) { return !script.IsUnspendable(); }

bool IsOverwrittenCoinbase(int height, const CChainParams& params)
{
    return params.GetChainType() == ChainType::MAIN && (height == 91722 || height == 91812);
}

std::vector<COutPoint> SpendableOutputs(const CBlock& block, int height, const CChainParams& params)
{
    std::vector<COutPoint> outputs;
    const bool skip_coinbase = IsOverwrittenCoinbase(height, params);
    for (size_t t = 0; t < block.vtx.size(); ++t) {
        if (t == 0 && skip_coinbase) continue;
        const CTransaction& tx = *block.vtx[t];
        for (uint32_t n = 0; n < tx.vout.size(); ++n) {
            if (IsSpendableScript(tx.vout[n].scriptPubKey)) outputs.emplace_back(tx.GetHash(), n);
        }
    }
    return outputs;
}

} // namespace kernel::swiftsync
