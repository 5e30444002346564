#include <kernel/connect.h>

#include <consensus/merkle.h>
#include <kernel/pow.h>
#include <streams.h>

#include <array>
#include <cassert>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

namespace kernel {
namespace {

struct KnownBlock {
    int height;
    std::string_view hash;
};

// Mainnet blocks whose coinbase has the txid of an earlier, still unspent
// coinbase (possible before BIP30): connecting them must overwrite the coin.
constexpr std::array BIP30_OVERWRITING_BLOCKS{
    KnownBlock{91842, "00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec"},
    KnownBlock{91880, "00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721"},
};
// The blocks those two overwrote. Their coinbase coin is gone for good once
// the later block is connected, so disconnecting them can't find it.
constexpr std::array BIP30_OVERWRITTEN_BLOCKS{
    KnownBlock{91722, "00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e"},
    KnownBlock{91812, "00000000000af0aed4792b1acee3d966af36cf5def14935db8de83d6f9306f2f"},
};

template <size_t N>
bool IsKnownBlock(const std::array<KnownBlock, N>& blocks, std::optional<int> height, const uint256& hash)
{
    for (const KnownBlock& known : blocks) {
        if ((!height || *height == known.height) && uint256::FromHex(known.hash) == hash) return true;
    }
    return false;
}

// Bytes of the block without witness data: what the 1,000,000-byte limit
// that predates segwit counts.
size_t StrippedSize(const CBlock& block)
{
    SizeComputer sizer;
    static_cast<const CBlockHeader&>(block).Serialize(sizer);
    WriteCompactSize(sizer, block.vtx.size());
    for (const CTransactionRef& tx : block.vtx) SerializeTransaction(*tx, sizer, /*with_witness=*/false);
    return sizer.size();
}

// Upstream's CheckTransaction minus "bad-txns-oversize", which a block that
// passed the size limits can't reach. Returns the reject reason, or nullptr
// when the transaction passes.
const char* CheckTransaction(const CTransaction& tx)
{
    if (tx.vin.empty()) return "bad-txns-vin-empty";
    if (tx.vout.empty()) return "bad-txns-vout-empty";
    CAmount total = 0;
    for (const CTxOut& out : tx.vout) {
        if (out.nValue < 0) return "bad-txns-vout-negative";
        if (out.nValue > MAX_MONEY) return "bad-txns-vout-toolarge";
        // Both terms are at most MAX_MONEY here: no overflow.
        total += out.nValue;
        if (!MoneyRange(total)) return "bad-txns-txouttotal-toolarge";
    }
    // Spending a coin twice in one transaction would mint money
    // (CVE-2018-17144): the second spend must not go unnoticed.
    std::set<COutPoint> seen;
    for (const CTxIn& in : tx.vin) {
        if (!seen.insert(in.prevout).second) return "bad-txns-inputs-duplicate";
    }
    if (tx.IsCoinBase()) {
        const size_t size = tx.vin[0].scriptSig.size();
        if (size < 2 || size > 100) return "bad-cb-length";
    } else {
        for (const CTxIn& in : tx.vin) {
            if (in.prevout.IsNull()) return "bad-txns-prevout-null";
        }
    }
    return nullptr;
}

// Upstream's CheckTxInputs: every input unspent in `view`, coinbases mature,
// amounts in range and covering the outputs. Sets the fee on success.
bool CheckTxInputs(const CTransaction& tx, const CCoinsViewCache& view, int height, CAmount& fee, BlockValidationState& state)
{
    // Only a failure needs the txid's hex: formatting it for every valid
    // transaction of a replay would be 64 characters of garbage apiece.
    const auto in_tx = [&tx] { return " in transaction " + tx.GetHash().GetHex(); };
    // All inputs are looked for before any other input error is reported.
    for (const CTxIn& in : tx.vin) {
        if (!view.HaveCoin(in.prevout)) return state.Invalid("bad-txns-inputs-missingorspent", "CheckTxInputs: inputs missing/spent" + in_tx());
    }
    CAmount value_in = 0;
    for (const CTxIn& in : tx.vin) {
        const Coin& coin = view.AccessCoin(in.prevout);
        const int depth = height - static_cast<int>(coin.nHeight);
        if (coin.IsCoinBase() && depth < COINBASE_MATURITY) {
            return state.Invalid("bad-txns-premature-spend-of-coinbase", "tried to spend coinbase at depth " + std::to_string(depth) + in_tx());
        }
        // Range-check the coin before adding it, so the sum can't overflow.
        if (!MoneyRange(coin.out.nValue) || !MoneyRange(value_in + coin.out.nValue)) {
            return state.Invalid("bad-txns-inputvalues-outofrange", "CheckTxInputs: input values out of range" + in_tx());
        }
        value_in += coin.out.nValue;
    }
    // CheckTransaction has bounded every output and their sum.
    const CAmount value_out = tx.GetValueOut();
    if (value_in < value_out) {
        return state.Invalid("bad-txns-in-belowout", "value in (" + std::to_string(value_in) + ") < value out (" + std::to_string(value_out) + ")" + in_tx());
    }
    // In range (both sums are, and in >= out): upstream's
    // "bad-txns-fee-outofrange" can't happen here.
    fee = value_in - value_out;
    return true;
}

} // namespace

bool BlockValidationState::Invalid(BlockValidationResult result, std::string reason, std::string debug)
{
    m_result = result;
    m_reject_reason = std::move(reason);
    m_debug_message = std::move(debug);
    return false;
}

std::string BlockValidationState::ToString() const
{
    if (IsValid()) return "Valid";
    if (m_debug_message.empty()) return m_reject_reason;
    return m_reject_reason + ", " + m_debug_message;
}

bool IsBip30OverwritingBlock(int height, const uint256& hash) { return IsKnownBlock(BIP30_OVERWRITING_BLOCKS, height, hash); }

bool IsBip30OverwrittenBlock(const uint256& hash) { return IsKnownBlock(BIP30_OVERWRITTEN_BLOCKS, std::nullopt, hash); }

CAmount GetBlockSubsidy(int height, const CChainParams& params)
{
    if (height < 0) throw std::invalid_argument("GetBlockSubsidy: negative height");
    const int halvings = height / params.SubsidyHalvingInterval();
    if (halvings >= 64) return 0;
    return (50 * COIN) >> halvings;
}

bool CheckBlockHeader(const CBlockHeader& header, const CChainParams& params, BlockValidationState& state)
{
    if (!CheckProofOfWork(header.GetHash(), header.nBits, params.PowLimit())) {
        return state.Invalid(BlockValidationResult::INVALID_HEADER, "high-hash", "proof of work failed");
    }
    return true;
}

bool CheckBlock(const CBlock& block, const CChainParams& params, BlockValidationState& state)
{
    if (block.m_checked) return true;
    if (!CheckBlockHeader(block, params, state)) return false;
    bool mutated = false;
    if (BlockMerkleRoot(block, &mutated) != block.hashMerkleRoot) {
        return state.Invalid(BlockValidationResult::MUTATED, "bad-txnmrklroot", "hashMerkleRoot mismatch");
    }
    if (mutated) return state.Invalid(BlockValidationResult::MUTATED, "bad-txns-duplicate", "duplicate transaction");
    // The count is bounded first so the size isn't computed over an absurd list.
    if (block.vtx.empty() || block.vtx.size() * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT ||
        StrippedSize(block) * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) {
        return state.Invalid("bad-blk-length", "size limits failed");
    }
    if (!block.vtx[0]->IsCoinBase()) return state.Invalid("bad-cb-missing", "first tx is not coinbase");
    for (size_t i = 1; i < block.vtx.size(); ++i) {
        if (block.vtx[i]->IsCoinBase()) return state.Invalid("bad-cb-multiple", "more than one coinbase");
    }
    for (const CTransactionRef& tx : block.vtx) {
        if (const char* reason = CheckTransaction(*tx)) {
            return state.Invalid(reason, "Transaction check failed (tx hash " + tx->GetHash().GetHex() + ")");
        }
    }
    block.m_checked = true;
    return true;
}

namespace {

// ConnectBlockCoins in `scratch`, an empty cache over the view to connect
// onto: every change is made there first, and the view sees them only
// when `scratch` is flushed into it, once every check has passed.
bool ConnectBlockIn(const CBlock& block, int height, const CChainParams& params, CCoinsViewCache& scratch,
                    CBlockUndo& undo, BlockValidationState& state)
{
    if (!CheckBlock(block, params, state)) return false;
    if (block.hashPrevBlock != scratch.GetBestBlock()) {
        throw std::logic_error("ConnectBlockCoins: the block does not build on the view's best block");
    }
    const uint256 hash = block.GetHash();
    if (hash == params.GenesisHash()) {
        undo.vtxundo.clear();
        scratch.SetBestBlock(hash);
        scratch.Flush();
        return true;
    }

    if (!IsBip30OverwritingBlock(height, hash)) {
        for (const CTransactionRef& tx : block.vtx) {
            for (uint32_t n = 0; n < tx->vout.size(); ++n) {
                if (scratch.HaveCoin(COutPoint{tx->GetHash(), n})) return state.Invalid("bad-txns-BIP30", "tried to overwrite transaction");
            }
        }
    }

    CBlockUndo block_undo;
    block_undo.vtxundo.reserve(block.vtx.size() - 1);
    CAmount fees = 0;
    // A coinbase spends nothing; its undo record is dropped, as Core does.
    CTxUndo coinbase_undo;
    for (const CTransactionRef& tx : block.vtx) {
        if (tx->IsCoinBase()) {
            // It may repeat an earlier coinbase's txid where BIP30 allowed
            // it (AddCoins lets a coinbase overwrite); any other output was
            // shown above to be new.
            UpdateCoins(*tx, scratch, coinbase_undo, height);
            continue;
        }
        CAmount fee = 0;
        if (!CheckTxInputs(*tx, scratch, height, fee, state)) return false;
        // Each fee is at most MAX_MONEY, so the sum can't overflow first.
        fees += fee;
        if (!MoneyRange(fees)) return state.Invalid("bad-txns-accumulated-fee-outofrange", "accumulated fee in the block out of range");
        // CheckTxInputs found each input, and CheckBlock ruled out a second
        // spend within the transaction: UpdateCoins finds every coin.
        UpdateCoins(*tx, scratch, block_undo.vtxundo.emplace_back(), height);
    }

    const CAmount limit = fees + GetBlockSubsidy(height, params);
    const CAmount coinbase_value = block.vtx[0]->GetValueOut();
    if (coinbase_value > limit) {
        return state.Invalid("bad-cb-amount", "coinbase pays too much (actual=" + std::to_string(coinbase_value) + " vs limit=" + std::to_string(limit) + ")");
    }

    scratch.SetBestBlock(hash);
    scratch.Flush();
    undo = std::move(block_undo);
    return true;
}

} // namespace

bool ConnectBlockCoins(const CBlock& block, int height, const CChainParams& params, CCoinsViewCache& view,
                       CBlockUndo& undo, BlockValidationState& state)
{
    CCoinsViewCache scratch{&view};
    return ConnectBlockIn(block, height, params, scratch, undo, state);
}

bool ConnectBlockCoins(const CBlock& block, int height, const CChainParams& params, CoinsViewOverlay& overlay,
                       CBlockUndo& undo, BlockValidationState& state)
{
    if (overlay.GetCacheSize() != 0) throw std::logic_error("ConnectBlockCoins: the overlay must be empty");
    // A block that fails on its own starts no fetch; one that passed is
    // marked, so ConnectBlockIn does not check it again.
    if (!CheckBlock(block, params, state)) return false;
    // The workers look up the outputs too wherever ConnectBlockIn makes the
    // BIP30 check, in its order.
    const bool bip30 = !IsBip30OverwritingBlock(height, block.GetHash());
    const auto reset = overlay.StartFetching(block, /*outputs=*/bip30);
    return ConnectBlockIn(block, height, params, overlay, undo, state);
}

DisconnectResult DisconnectBlockCoins(const CBlock& block, const CBlockUndo& undo, CCoinsViewCache& view)
{
    if (block.vtx.empty() || undo.vtxundo.size() + 1 != block.vtx.size()) return DisconnectResult::FAILED;

    // As in ConnectBlockCoins: a FAILED result must leave `view` alone.
    CCoinsViewCache scratch{&view};
    bool clean = true;
    const bool coinbase_overwritten = IsBip30OverwrittenBlock(block.GetHash());
    std::optional<uint32_t> block_height;

    for (size_t i = block.vtx.size(); i-- > 0;) {
        const CTransaction& tx = *block.vtx[i];
        for (uint32_t n = 0; n < tx.vout.size(); ++n) {
            if (tx.vout[n].scriptPubKey.IsUnspendable()) continue;
            Coin coin;
            // SpendCoin reports an entry already spent in the cache as found:
            // the moved-out coin being spent says it wasn't there.
            bool matches = scratch.SpendCoin(COutPoint{tx.GetHash(), n}, &coin) && !coin.IsSpent() &&
                           coin.out == tx.vout[n] && coin.IsCoinBase() == tx.IsCoinBase();
            if (matches) {
                if (!block_height) block_height = uint32_t{coin.nHeight};
                matches = *block_height == coin.nHeight;
            }
            if (!matches && !(tx.IsCoinBase() && coinbase_overwritten)) clean = false;
        }
        // Position, not IsCoinBase(): nothing re-checked this block's shape,
        // and only position 0 has no undo record.
        if (i == 0) continue;

        const CTxUndo& tx_undo = undo.vtxundo[i - 1];
        if (tx_undo.vprevout.size() != tx.vin.size()) return DisconnectResult::FAILED;
        for (size_t j = tx.vin.size(); j-- > 0;) {
            const auto result = static_cast<DisconnectResult>(ApplyTxInUndo(Coin{tx_undo.vprevout[j]}, scratch, tx.vin[j].prevout));
            if (result == DisconnectResult::FAILED) return DisconnectResult::FAILED;
            if (result == DisconnectResult::UNCLEAN) clean = false;
        }
    }

    scratch.SetBestBlock(block.hashPrevBlock);
    scratch.Flush();
    return clean ? DisconnectResult::OK : DisconnectResult::UNCLEAN;
}

void RollforwardBlockCoins(const CBlock& block, int height, CCoinsViewCache& view)
{
    for (const CTransactionRef& tx : block.vtx) {
        if (!tx->IsCoinBase()) {
            for (const CTxIn& in : tx->vin) view.SpendCoin(in.prevout);
        }
        // The block may already be partly here: any output may exist.
        AddCoins(view, *tx, height, /*check_for_overwrite=*/true);
    }
}

} // namespace kernel

void UpdateCoins(const CTransaction& tx, CCoinsViewCache& inputs, CTxUndo& txundo, int height)
{
    if (!tx.IsCoinBase()) {
        txundo.vprevout.reserve(txundo.vprevout.size() + tx.vin.size());
        for (const CTxIn& in : tx.vin) {
            // SpendCoin also reports an entry already spent in the cache as
            // found; the coin it moves out then is spent, and undo data
            // holding it could not put the coin back.
            const bool spent = inputs.SpendCoin(in.prevout, &txundo.vprevout.emplace_back());
            assert(spent && !txundo.vprevout.back().IsSpent());
        }
    }
    AddCoins(inputs, tx, height);
}

int ApplyTxInUndo(Coin&& undo, CCoinsViewCache& view, const COutPoint& out)
{
    // AddCoin can't take a spent coin; only corrupt undo data holds one.
    if (undo.IsSpent()) return DISCONNECT_FAILED;
    // Height 0 is the pre-0.15 format, which kept height and coinbase flag
    // only with a transaction's last spent output. Nobody writes it any more
    // and restoring a coin without them would be wrong.
    if (undo.nHeight == 0) return DISCONNECT_FAILED;
    const bool clean = !view.HaveCoin(out);
    view.AddCoin(out, std::move(undo), /*possible_overwrite=*/!clean);
    return clean ? DISCONNECT_OK : DISCONNECT_UNCLEAN;
}
