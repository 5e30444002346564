#include <tools/snapshot_generator.h>

#include <kernel/coinstats.h>
#include <node/snapshot/utxo_snapshot.h>
#include <tools/output_file.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace {

// Share of a non-coinbase transaction's later outputs that pay someone
// with another kind of wallet than the first output; the rest are change
// of the same type.
constexpr uint32_t OTHER_TYPE_PER_10000 = 3000;

// How far below its drawn height a coinbase looks for a block without one.
constexpr int MAX_COINBASE_HEIGHT_PROBE = 64;

std::string JsonString(std::string_view text)
{
    std::string out{"\""};
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
            out += c;
        }
    }
    return out + '"';
}

} // namespace

uint256 BaseBlockhashFor(const SnapshotGeneratorOptions& options)
{
    if (!options.base_blockhash.IsNull()) return options.base_blockhash;
    HashWriter writer;
    constexpr std::string_view TAG{"coinsdb-gensnapshot base block"};
    writer.write(std::as_bytes(std::span{TAG}));
    writer << options.seed << options.coins << static_cast<int64_t>(options.base_height);
    return writer.GetHash();
}

GeneratedCoinsCursor::GeneratedCoinsCursor(const SnapshotGeneratorOptions& options)
    : CCoinsViewCursor{BaseBlockhashFor(options)},
      m_options{options},
      m_count{CountTransactions(options.seed, options.coins)},
      m_shapes{options.seed},
      m_txids{options.seed, m_count.transactions},
      m_content{options.seed, gen_stream::CONTENT},
      m_budget_left{options.max_total},
      m_coinbase_heights(static_cast<size_t>(options.base_height) + 1, false)
{
    m_info.base_blockhash = GetBestBlock();
    m_info.base_height = options.base_height;
    LoadNextTransaction();
}

bool GeneratedCoinsCursor::GetKey(COutPoint& key) const
{
    if (!Valid()) return false;
    key = COutPoint{m_txid, m_group[m_pos].first};
    return true;
}

bool GeneratedCoinsCursor::GetValue(Coin& coin) const
{
    if (!Valid()) return false;
    coin = m_group[m_pos].second;
    return true;
}

void GeneratedCoinsCursor::Next()
{
    if (++m_pos == m_group.size()) LoadNextTransaction();
}

std::optional<int> GeneratedCoinsCursor::ClaimCoinbaseHeight(int height, ScriptType type)
{
    // Two coinbases cannot share a block: take the nearest free height at or
    // below the drawn one where the type existed. The walk is bounded so
    // that a chain with fewer blocks than coinbases (a low -height) costs
    // only a few steps per coin; such a transaction becomes a regular one.
    const int lowest = std::max(1, height - MAX_COINBASE_HEIGHT_PROBE);
    for (int h = height; h >= lowest && TypeExistsAt(type, h, m_options.base_height); --h) {
        if (m_coinbase_heights[h]) continue;
        m_coinbase_heights[h] = true;
        return h;
    }
    return std::nullopt;
}

void GeneratedCoinsCursor::Record(const COutPoint& outpoint, const Coin& coin)
{
    kernel::ApplyCoinHash(m_hasher, outpoint, coin);
    ++m_info.coins;
    m_info.total_amount += coin.out.nValue;
    m_info.bogosize += kernel::GetBogoSize(coin.out.scriptPubKey);
}

GeneratedCoinsCursor::TxContext GeneratedCoinsCursor::DrawTxContext()
{
    TxContext tx;
    tx.first_type = DrawScriptType(m_content);
    tx.height = DrawHeight(tx.first_type, m_options.base_height, m_content);
    if (m_shape.coinbase) {
        if (const auto claimed = ClaimCoinbaseHeight(tx.height, tx.first_type)) {
            tx.height = *claimed;
            tx.coinbase = true;
        }
    }
    return tx;
}

Coin GeneratedCoinsCursor::MakeCoin(const TxContext& tx, bool first_output)
{
    ScriptType type = tx.first_type;
    if (!tx.coinbase && !first_output && m_content.Chance(OTHER_TYPE_PER_10000)) {
        const ScriptType other = DrawScriptType(m_content);
        if (TypeExistsAt(other, tx.height, m_options.base_height)) type = other;
    }
    CScript script = MakeScript(type, m_content);
    CAmount amount = tx.coinbase ? CoinbaseOutputAmount(tx.height, m_shape.outputs, m_content)
                                 : DrawAmount(type, script, m_content);
    amount = std::min(amount, m_budget_left);
    m_budget_left -= amount;
    return Coin{CTxOut{amount, std::move(script)}, tx.height, tx.coinbase};
}

void GeneratedCoinsCursor::LoadNextTransaction()
{
    m_group.clear();
    m_pos = 0;
    if (m_tx_index == m_count.transactions) {
        m_info.hash_serialized = m_hasher.GetHash();
        m_info.chain_tx_count = static_cast<uint64_t>(m_options.base_height) + 1 + m_info.transactions -
                                m_info.coinbase_transactions;
        return;
    }
    // Layout first: the shape stream must stay in step with the counting pass.
    m_shapes.Next(m_shape);
    if (++m_tx_index == m_count.transactions) m_shape.unspent.resize(m_count.last_tx_coins);
    m_txid = m_txids.Next();

    const TxContext tx = DrawTxContext();
    ++m_info.transactions;
    m_info.coinbase_transactions += tx.coinbase;
    for (const uint32_t vout : m_shape.unspent) {
        Coin coin = MakeCoin(tx, /*first_output=*/vout == m_shape.unspent.front());
        Record(COutPoint{m_txid, vout}, coin);
        m_group.emplace_back(vout, std::move(coin));
    }
}

GeneratedSnapshotInfo WriteGeneratedSnapshot(AutoFile& file, const MessageStartChars& network,
                                             const SnapshotGeneratorOptions& options)
{
    GeneratedCoinsCursor cursor{options};
    WriteSnapshot(file, network, cursor.GetBestBlock(), options.coins, cursor);
    return cursor.Info();
}

GeneratedSnapshotInfo GenerateSnapshotFile(const std::filesystem::path& path, const CChainParams& params,
                                           const SnapshotGeneratorOptions& options)
{
    GeneratedSnapshotInfo info;
    WriteOutputFile(path, [&](AutoFile& file) { info = WriteGeneratedSnapshot(file, params.MessageStart(), options); });
    return info;
}

std::string SnapshotInfoJson(const GeneratedSnapshotInfo& info, const std::filesystem::path& path, const std::string& chain)
{
    const std::string blockhash = info.base_blockhash.GetHex();
    const std::string hash = info.hash_serialized.GetHex();
    return fmt::format(
        R"({{"path": {}, "chain": {}, "base_blockhash": "{}", "base_height": {}, "coins": {}, "transactions": {}, )"
        R"("hash_serialized_3": "{}", "total_amount": {}.{:08d}, "nchaintx": {}, "assumeutxo": "{}:{}:{}"}})",
        JsonString(path.string()), JsonString(chain), blockhash, info.base_height, info.coins, info.transactions, hash,
        info.total_amount / COIN, info.total_amount % COIN, info.chain_tx_count, info.base_height, blockhash, hash);
}
