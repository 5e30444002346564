#include <tools/chain_generator.h>

#include <kernel/chainparams.h>

#include <consensus/merkle.h>
#include <hash.h>
#include <rpc/json.h>
#include <script/script.h>
#include <tools/coin_shape.h>
#include <tools/gen_random.h>
#include <tools/output_file.h>
#include <util/strencodings.h>

#include <fmt/format.h>

#include <array>
#include <cassert>
#include <chrono>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace {

constexpr int32_t BLOCK_VERSION = 0x20000000; // BIP9's top bits, no deployment signalled
constexpr uint32_t REGTEST_BITS = 0x207fffff;
constexpr int REGTEST_HALVING_INTERVAL = 150;
constexpr int COINBASE_MATURITY = 100;
// A witness-free block weighs four times its size; the limit is 4,000,000.
constexpr size_t MAX_BLOCK_BYTES = 1'000'000;
// Legacy sigops cost four each (no witness discount); the limit is 80,000.
constexpr uint64_t MAX_BLOCK_SIGOPS = 20'000;
// The transaction count's CompactSize is at most 3 bytes: a full block holds
// fewer than 65,535 transactions of at least 83 bytes.
constexpr size_t TX_COUNT_BYTES = 3;

// Apart from gensnapshot's streams (gen_random.h), so that the two tools
// never share a sequence for the same seed.
constexpr uint64_t CHAIN_STREAM = 0x636861696e; // "chain"

constexpr uint32_t GENESIS_TIME = 1296688602;

// How many inputs (1-3) and outputs (1-4) transactions draw, by weight. The
// rates below are of the draws; small coins pay fewer outputs (see
// MIN_SPLIT_OUTPUT), so a chain grows a little slower: GROW measures +1.7.
struct ChurnMix {
    std::array<uint32_t, 3> inputs;
    std::array<uint32_t, 4> outputs;
};
// About +0.6 coins per transaction (1.6 in, 2.2 out): mainnet's set grows
// slowly, most transactions paying one or two outputs from one or two coins.
constexpr ChurnMix MAINNET_LIKE{{55, 30, 15}, {20, 50, 20, 10}};
// About +1.9 per transaction (1.2 in, 3.1 out): climbs to -target-utxos in
// few transactions, and so few bytes, while still drawing every shape.
constexpr ChurnMix GROW{{85, 10, 5}, {5, 20, 35, 40}};
// About -0.05 per transaction (1.95 in, 1.9 out), which the coinbases'
// outputs roughly offset: churn at a near-constant size.
constexpr ChurnMix HOLD{{35, 35, 30}, {45, 30, 15, 10}};

// How old a spent coin is, by weight: within about a block of outputs, a
// day (144 blocks) of them, or anywhere in the set. Most mainnet spends are
// of young coins; the uniform tail is what makes old coins leave the cache.
constexpr std::array<uint32_t, 3> AGE_WEIGHTS{40, 35, 25};
constexpr size_t DAY_BLOCKS = 144;

// Share of a transaction's later outputs paying another wallet type than the
// first; the rest are change of the same type (as in the snapshot generator).
constexpr uint32_t OTHER_TYPE_PER_10000 = 3000;

// Amounts. Regtest's 15,000 BTC can't pay mainnet-sized amounts (0.11 BTC
// a coin on average) to millions of coins, and paying them anyway, with the
// change taking the rest, concentrates the value in a few coins while the
// rest shrink to nothing. So a transaction pays the small amounts of the
// mainnet shape (DrawAmount below MIN_SPLIT_OUTPUT: dust, inscription and
// anchor outputs) as they are, and splits the rest of what it spends in
// random shares, the heaviest at most MAX_SHARE_WEIGHT times the lightest.
// A quarter of the larger shares are rounded to 1-3 significant digits, as
// people pay round sums; this also exercises CompressAmount's zero
// stripping.
//
// A transaction pays fewer outputs than drawn unless it can leave
// MIN_SPLIT_OUTPUT for each: splitting coins too small to split would breed
// worthless coins without end (a zero-value coin can only make zero-value
// coins).
constexpr CAmount MIN_SPLIT_OUTPUT = 1000;
constexpr uint64_t MAX_SHARE_WEIGHT = 8;
constexpr CAmount ROUND_FROM = 10'000;
constexpr uint32_t ROUND_PER_10000 = 2500;

// Coins below DUST_LIMIT are mostly left alone, as mainnet's dust is
// (spending one costs a good part of what it holds): a draw landing on one
// is redrawn with this chance, a few times at most. Without it, value-blind
// draws would spend small coins as often as anything and the set would grow
// slowly for want of coins worth splitting.
constexpr CAmount DUST_LIMIT = 10 * MIN_SPLIT_OUTPUT;
constexpr uint32_t DUST_REDRAW_PER_10000 = 9000;
constexpr int MAX_DUST_REDRAWS = 4;

// Coinbases pay 1-3 outputs.
constexpr std::array<uint32_t, 3> COINBASE_OUTPUT_WEIGHTS{70, 20, 10};

// Drop spent slots and unreferenced txids once the spent slots outnumber a
// quarter of the live coins (and this floor, so small sets don't compact on
// every block): the vector stays within 1.25x of the set.
constexpr size_t MIN_DEAD_TO_COMPACT = 4096;

// A spendable coin in 12 bytes, so that 20 million take 240 MB: the index of
// its transaction's txid, its vout (12 bits: the generator never creates
// more than 4 outputs) and its value (51 bits: MAX_MONEY < 2^51), and a
// spent flag, kept until the next compaction.
class PoolCoin
{
public:
    static constexpr uint32_t MAX_VOUT = (1 << 12) - 1;

    PoolCoin(uint32_t tx, uint32_t vout, CAmount value)
        : m_tx{tx}, m_value_low{static_cast<uint32_t>(value)},
          m_high{vout << 20 | static_cast<uint32_t>(static_cast<uint64_t>(value) >> 32)}
    {
        assert(vout <= MAX_VOUT && MoneyRange(value));
    }

    uint32_t Tx() const { return m_tx; }
    void SetTx(uint32_t tx) { m_tx = tx; }
    uint32_t Vout() const { return m_high >> 20; }
    CAmount Value() const { return static_cast<CAmount>(uint64_t{m_high & VALUE_HIGH_MASK} << 32 | m_value_low); }
    bool Spent() const { return m_high & SPENT_BIT; }
    void SetSpent(bool spent) { m_high = spent ? (m_high | SPENT_BIT) : (m_high & ~SPENT_BIT); }

private:
    static constexpr uint32_t SPENT_BIT = 1 << 19;
    static constexpr uint32_t VALUE_HIGH_MASK = SPENT_BIT - 1;

    uint32_t m_tx;
    uint32_t m_value_low;
    // vout (bits 20-31), spent (bit 19), value bits 32-50 (bits 0-18).
    uint32_t m_high;
};
static_assert(sizeof(PoolCoin) == 12);
static_assert(MAX_MONEY < (int64_t{1} << 51));

// The spendable coins in the order they became spendable, so that "a young
// coin" is "a coin near the end". Spending marks a slot; Compact() removes
// the marks, keeping the order.
class CoinPool
{
public:
    void Add(const PoolCoin& coin)
    {
        m_coins.push_back(coin);
        ++m_live;
    }
    uint64_t Live() const { return m_live; }
    size_t Dead() const { return m_coins.size() - m_live; }
    const PoolCoin& At(size_t pos) const { return m_coins[pos]; }
    std::vector<PoolCoin>& Coins() { return m_coins; }
    void Reserve(size_t coins) { m_coins.reserve(coins); }

    // Marks a live coin among the newest `window` slots spent and returns
    // its position; nullopt when no coin is left.
    std::optional<size_t> Take(GenRandom& rng, size_t window);
    // Undoes a Take() of this block whose transaction did not fit.
    void Restore(size_t pos)
    {
        assert(m_coins[pos].Spent());
        m_coins[pos].SetSpent(false);
        ++m_live;
    }
    void Compact();

private:
    // Draws per Take before falling back to a scan, and slots probed per
    // draw: the newest slots are the most often spent, so a draw there can
    // land on a run of dead ones.
    static constexpr int DRAWS = 8;
    static constexpr size_t PROBES = 16;

    size_t Kill(size_t pos)
    {
        m_coins[pos].SetSpent(true);
        --m_live;
        return pos;
    }

    std::vector<PoolCoin> m_coins;
    uint64_t m_live{0};
};

std::optional<size_t> CoinPool::Take(GenRandom& rng, size_t window)
{
    if (m_live == 0) return std::nullopt;
    const size_t size = m_coins.size();
    window = std::clamp<size_t>(window, 1, size);
    for (int draw = 0; draw < DRAWS; ++draw) {
        const size_t start = size - 1 - rng.Below(window);
        const size_t lowest = start >= PROBES ? start - PROBES + 1 : 0;
        for (size_t pos = start + 1; pos-- > lowest;) {
            if (!m_coins[pos].Spent()) return Kill(pos);
        }
    }
    // Rare: the window is nearly all spent. The newest live coin is at most
    // Dead() slots from the end, which compaction bounds.
    for (size_t pos = size; pos-- > 0;) {
        if (!m_coins[pos].Spent()) return Kill(pos);
    }
    assert(false && "m_live counts a coin that is not there");
    return std::nullopt;
}

void CoinPool::Compact()
{
    std::erase_if(m_coins, [](const PoolCoin& coin) { return coin.Spent(); });
    assert(m_coins.size() == m_live);
}

// A coinbase output waiting for its 100 confirmations.
struct ImmatureCoin {
    int height;
    PoolCoin coin;
};

// Counts sigops as consensus does for the legacy limit (GetLegacySigOpCount):
// 1 per OP_CHECKSIG(VERIFY), 20 per OP_CHECKMULTISIG(VERIFY) whatever the
// key count, skipping pushed data and stopping at a truncated push.
uint64_t LegacySigOps(const CScript& script)
{
    uint64_t count = 0;
    size_t pos = 0;
    while (pos < script.size()) {
        const unsigned char op = script[pos++];
        uint64_t push = 0;
        size_t length_bytes = 0;
        if (op < OP_PUSHDATA1) {
            push = op;
        } else if (op <= OP_PUSHDATA4) {
            length_bytes = op == OP_PUSHDATA1 ? 1 : op == OP_PUSHDATA2 ? 2 : 4;
            if (script.size() - pos < length_bytes) break;
            for (size_t i = 0; i < length_bytes; ++i) push |= uint64_t{script[pos + i]} << (8 * i);
        } else if (op == OP_CHECKSIG || op == OP_CHECKSIGVERIFY) {
            count += 1;
        } else if (op == OP_CHECKMULTISIG || op == OP_CHECKMULTISIGVERIFY) {
            count += 20;
        }
        pos += length_bytes;
        if (script.size() - pos < push) break;
        pos += push;
    }
    return count;
}

uint64_t LegacySigOps(const CMutableTransaction& tx)
{
    uint64_t count = 0;
    for (const CTxIn& in : tx.vin) count += LegacySigOps(in.scriptSig);
    for (const CTxOut& out : tx.vout) count += LegacySigOps(out.scriptPubKey);
    return count;
}

// The target nBits encodes, as 32 bytes in uint256's internal (least
// significant first) order: mantissa * 256^(exponent - 3). Only positive
// targets: the generator never uses the sign bit.
std::array<unsigned char, 32> TargetFromBits(uint32_t bits)
{
    std::array<unsigned char, 32> target{};
    const int exponent = static_cast<int>(bits >> 24);
    const uint32_t mantissa = bits & 0x007fffff;
    for (int i = 0; i < 3; ++i) {
        const int pos = exponent - 3 + i;
        if (pos >= 0 && pos < 32) target[pos] = static_cast<unsigned char>(mantissa >> (8 * i));
    }
    return target;
}

bool HashMeetsTarget(const uint256& hash, const std::array<unsigned char, 32>& target)
{
    for (size_t i = 32; i-- > 0;) {
        if (hash.data()[i] != target[i]) return hash.data()[i] < target[i];
    }
    return true;
}

// The BIP34 height push, as `CScript() << height` writes it: OP_1..OP_16
// for small heights, else the minimal little-endian number with a sign byte
// when the top bit is set.
CScript HeightPush(int height)
{
    assert(height >= 1);
    if (height <= 16) return CScript{static_cast<unsigned char>(0x50 + height)};
    std::vector<unsigned char> number;
    for (uint32_t rest = static_cast<uint32_t>(height); rest != 0; rest >>= 8) number.push_back(rest & 0xff);
    if (number.back() & 0x80) number.push_back(0);
    CScript script{static_cast<unsigned char>(number.size())};
    script.insert(script.end(), number.begin(), number.end());
    return script;
}

size_t CompactSizeBytes(uint64_t n)
{
    SizeComputer sizer;
    WriteCompactSize(sizer, n);
    return sizer.size();
}

// Writes the blocks one at a time. Holds the coin pool, the txids its coins
// refer to and the block being built.
class ChainWriter
{
public:
    ChainWriter(AutoFile& file, const ChainGeneratorOptions& options);
    GeneratedChainInfo Run();

private:
    uint64_t Utxos() const { return m_pool.Live() + m_immature.size(); }
    const ChurnMix& Mix() const;
    size_t DrawAgeWindow();
    uint64_t DrawTxCount();

    void WriteGenesis();
    void WriteBlock(int height);
    // Grinds the nonce; returns the block hash.
    uint256 Mine(CBlockHeader& header) const;
    void WriteRecord(const CBlockHeader& header, uint64_t tx_count, std::span<const std::byte> first_tx);
    void MatureCoinbases(int height);
    CMutableTransaction MakeCoinbase(int height);
    void PayCoinbase(CMutableTransaction& coinbase, int height, CAmount value);
    // Adds one transaction to the block; false when no coin is left or the
    // block is full.
    bool AddTransaction();
    // Takes up to `wanted` coins into m_taken; returns their value.
    CAmount TakeInputs(size_t wanted);
    void FillInputs();
    // Adds m_tx to the block, or gives its coins back and returns false
    // when the block has no room for it.
    bool Commit(CAmount fee);
    // Takes a coin to spend, most often not dust; nullopt when none is left.
    std::optional<size_t> TakeInput();
    void FillScriptSig(CScript& script);
    CAmount DrawFee(size_t inputs, size_t outputs, CAmount in_value);
    // Draws `wanted` outputs' scripts and amounts adding up to budget (fewer
    // outputs when the budget is small).
    void FillOutputs(size_t wanted, CAmount budget);
    CAmount RoundDown(CAmount amount);
    uint256 HashBytes(const DataStream& bytes);
    uint32_t AddTxid(const uint256& txid);
    void MaybeCompact();

    AutoFile& m_file;
    const ChainGeneratorOptions m_options;
    const MessageStartChars m_magic;
    const std::array<unsigned char, 32> m_target;
    // Slots holding about a block's worth of new outputs.
    const size_t m_block_window;
    GenRandom m_rng;

    CoinPool m_pool;
    std::deque<ImmatureCoin> m_immature;
    // A deque, not a vector: growing it never copies (or holds twice) the
    // hundreds of MB a chain of millions of transactions needs.
    std::deque<uint256> m_txids;

    uint256 m_prev_hash;
    uint32_t m_prev_time{GENESIS_TIME};

    // The block being built, coinbase apart: it comes first but pays the
    // fees of the others.
    DataStream m_coinbase_bytes;
    DataStream m_body;
    std::vector<uint256> m_leaves;
    size_t m_block_bytes{0};
    uint64_t m_block_sigops{0};
    CAmount m_block_fees{0};
    // Scratch, reused to spare allocations.
    CMutableTransaction m_tx;
    DataStream m_tx_bytes;
    std::vector<size_t> m_taken;
    std::vector<uint64_t> m_share_weights;
    HashWriter m_hasher;

    GeneratedChainInfo m_info;
};

ChainWriter::ChainWriter(AutoFile& file, const ChainGeneratorOptions& options)
    : m_file{file},
      m_options{options},
      m_magic{CChainParams::ForChain(ChainType::REGTEST).MessageStart()},
      m_target{TargetFromBits(REGTEST_BITS)},
      m_block_window{std::max<size_t>(64, size_t{3} * options.txs_per_block)},
      m_rng{options.seed, CHAIN_STREAM}
{
    if (options.blocks < 0 || options.blocks > MAX_CHAIN_BLOCKS) {
        throw std::invalid_argument(fmt::format("blocks must be 0 to {}", MAX_CHAIN_BLOCKS));
    }
    if (options.txs_per_block > MAX_TXS_PER_BLOCK) {
        throw std::invalid_argument(fmt::format("txs_per_block must be at most {}", MAX_TXS_PER_BLOCK));
    }
    // Untouched capacity costs address space, not memory, and spares the
    // copies (and the doubled peak) of growing a vector of millions.
    if (options.target_utxos > 0) m_pool.Reserve(options.target_utxos + options.target_utxos / 4 + MIN_DEAD_TO_COMPACT);
}

const ChurnMix& ChainWriter::Mix() const
{
    if (m_options.target_utxos == 0) return MAINNET_LIKE;
    return Utxos() < m_options.target_utxos ? GROW : HOLD;
}

size_t ChainWriter::DrawAgeWindow()
{
    switch (m_rng.Pick(AGE_WEIGHTS)) {
    case 0: return m_block_window;
    case 1: return m_block_window * DAY_BLOCKS;
    default: return SIZE_MAX;
    }
}

uint64_t ChainWriter::DrawTxCount()
{
    const uint64_t average = m_options.txs_per_block;
    return average == 0 ? 0 : m_rng.Range(average - average / 2, average + average / 2);
}

GeneratedChainInfo ChainWriter::Run()
{
    WriteGenesis();
    for (int height = 1; height <= m_options.blocks; ++height) {
        WriteBlock(height);
        MaybeCompact();
        if (m_options.progress && height % 1000 == 0) m_options.progress(height, Utxos());
    }
    m_info.utxos = Utxos();
    return m_info;
}

void ChainWriter::WriteGenesis()
{
    const CBlock genesis = RegtestGenesisBlock();
    m_file.write(std::as_bytes(std::span{m_magic}));
    const size_t size = GetSerializeSize(genesis);
    WriteLE<AutoFile, uint32_t>(m_file, static_cast<uint32_t>(size));
    m_file << genesis;
    m_info.file_bytes += 8 + size;
    ++m_info.transactions;
    // Its output is not a coin: Bitcoin Core never adds it to the set.
    m_prev_hash = genesis.GetHash();
    m_prev_time = genesis.nTime;
    m_info.tip_hash = m_prev_hash;
}

void ChainWriter::MatureCoinbases(int height)
{
    while (!m_immature.empty() && height - m_immature.front().height >= COINBASE_MATURITY) {
        m_pool.Add(m_immature.front().coin);
        m_immature.pop_front();
    }
}

CMutableTransaction ChainWriter::MakeCoinbase(int height)
{
    CMutableTransaction coinbase;
    // OP_0 after the height keeps the scriptSig at the 2-byte minimum when
    // the height is a one-byte OP_1..OP_16, as Bitcoin Core's miner does.
    CScript script_sig = HeightPush(height);
    script_sig.push_back(0x00);
    coinbase.vin.emplace_back(COutPoint{}, std::move(script_sig));
    coinbase.vout.resize(1 + m_rng.Pick(COINBASE_OUTPUT_WEIGHTS));
    for (CTxOut& out : coinbase.vout) {
        out.scriptPubKey = MakeScript(DrawScriptType(m_rng), m_rng);
        out.nValue = 0;
    }
    return coinbase;
}

void ChainWriter::PayCoinbase(CMutableTransaction& coinbase, int height, CAmount value)
{
    const auto outputs = static_cast<CAmount>(coinbase.vout.size());
    for (CTxOut& out : coinbase.vout) out.nValue = value / outputs;
    coinbase.vout[0].nValue += value % outputs;

    m_coinbase_bytes.Clear();
    m_coinbase_bytes << coinbase;
    m_leaves[0] = HashBytes(m_coinbase_bytes);
    const uint32_t tx = AddTxid(m_leaves[0]);
    for (uint32_t vout = 0; vout < coinbase.vout.size(); ++vout) {
        m_immature.push_back({height, PoolCoin{tx, vout, coinbase.vout[vout].nValue}});
    }
    m_info.total_amount += value;
    ++m_info.transactions;
}

void ChainWriter::WriteBlock(int height)
{
    MatureCoinbases(height);
    CMutableTransaction coinbase = MakeCoinbase(height);
    // Its size and sigops don't depend on the amounts paid: reserve them now.
    m_block_bytes = CBlockHeader::SIZE + TX_COUNT_BYTES + GetSerializeSize(coinbase);
    m_block_sigops = LegacySigOps(coinbase);
    m_block_fees = 0;
    m_body.Clear();
    m_leaves.assign(1, uint256{});

    const uint64_t wanted = DrawTxCount();
    for (uint64_t i = 0; i < wanted && AddTransaction(); ++i) {}
    PayCoinbase(coinbase, height, RegtestSubsidy(height) + m_block_fees);

    CBlockHeader header;
    header.nVersion = BLOCK_VERSION;
    header.hashPrevBlock = m_prev_hash;
    header.hashMerkleRoot = ComputeMerkleRoot(m_leaves);
    // 600 s apart on average, always later than the block before.
    header.nTime = m_prev_time + static_cast<uint32_t>(m_rng.Range(1, 1199));
    header.nBits = REGTEST_BITS;
    const uint256 hash = Mine(header);
    WriteRecord(header, m_leaves.size(), m_coinbase_bytes.Unread());

    m_prev_hash = hash;
    m_prev_time = header.nTime;
    m_info.tip_hash = hash;
    m_info.tip_height = height;
}

uint256 ChainWriter::Mine(CBlockHeader& header) const
{
    // About two tries at regtest's target of almost 2^255.
    uint256 hash;
    for (header.nNonce = 0; !HashMeetsTarget(hash = header.GetHash(), m_target);) {
        if (++header.nNonce == 0) ++header.nTime;
    }
    return hash;
}

void ChainWriter::WriteRecord(const CBlockHeader& header, uint64_t tx_count, std::span<const std::byte> first_tx)
{
    const size_t size = CBlockHeader::SIZE + CompactSizeBytes(tx_count) + first_tx.size() + m_body.size();
    assert(size <= MAX_BLOCK_BYTES);
    m_file.write(std::as_bytes(std::span{m_magic}));
    WriteLE<AutoFile, uint32_t>(m_file, static_cast<uint32_t>(size));
    m_file << header;
    WriteCompactSize(m_file, tx_count);
    m_file.write(first_tx);
    m_file.write(m_body.Unread());
    m_info.file_bytes += 8 + size;
}

bool ChainWriter::AddTransaction()
{
    const ChurnMix& mix = Mix();
    const CAmount in_value = TakeInputs(1 + m_rng.Pick(mix.inputs));
    if (m_taken.empty()) return false;
    m_tx.version = m_rng.Chance(1500) ? 1 : 2;
    m_tx.nLockTime = 0;
    FillInputs();
    const size_t outputs = 1 + m_rng.Pick(mix.outputs);
    const CAmount fee = DrawFee(m_taken.size(), outputs, in_value);
    FillOutputs(outputs, in_value - fee);
    return Commit(fee);
}

CAmount ChainWriter::TakeInputs(size_t wanted)
{
    m_taken.clear();
    CAmount value = 0;
    for (size_t i = 0; i < wanted; ++i) {
        const auto pos = TakeInput();
        if (!pos) break;
        m_taken.push_back(*pos);
        value += m_pool.At(*pos).Value();
    }
    return value;
}

void ChainWriter::FillInputs()
{
    m_tx.vin.resize(m_taken.size());
    for (size_t i = 0; i < m_taken.size(); ++i) {
        const PoolCoin& coin = m_pool.At(m_taken[i]);
        CTxIn& in = m_tx.vin[i];
        in.prevout = COutPoint{m_txids[coin.Tx()], coin.Vout()};
        FillScriptSig(in.scriptSig);
        // Mostly final; some signal replaceability (BIP125) as wallets do.
        in.nSequence = m_rng.Chance(3000) ? 0xfffffffd : CTxIn::SEQUENCE_FINAL;
    }
}

bool ChainWriter::Commit(CAmount fee)
{
    m_tx_bytes.Clear();
    m_tx_bytes << m_tx;
    const uint64_t sigops = LegacySigOps(m_tx);
    if (m_block_bytes + m_tx_bytes.size() > MAX_BLOCK_BYTES || m_block_sigops + sigops > MAX_BLOCK_SIGOPS) {
        for (const size_t pos : m_taken) m_pool.Restore(pos);
        return false;
    }
    m_block_bytes += m_tx_bytes.size();
    m_block_sigops += sigops;
    m_block_fees += fee;
    m_body.write(m_tx_bytes.Unread());
    m_leaves.push_back(HashBytes(m_tx_bytes));
    const uint32_t tx = AddTxid(m_leaves.back());
    // Appended after the spends: a later transaction of this block may spend
    // them, an earlier one can't.
    for (uint32_t vout = 0; vout < m_tx.vout.size(); ++vout) m_pool.Add(PoolCoin{tx, vout, m_tx.vout[vout].nValue});
    m_info.total_amount -= fee;
    ++m_info.transactions;
    return true;
}

std::optional<size_t> ChainWriter::TakeInput()
{
    for (int redraws = 0;; ++redraws) {
        const auto pos = m_pool.Take(m_rng, DrawAgeWindow());
        if (!pos || m_pool.At(*pos).Value() >= DUST_LIMIT || redraws == MAX_DUST_REDRAWS ||
            !m_rng.Chance(DUST_REDRAW_PER_10000)) {
            return pos;
        }
        m_pool.Restore(*pos);
    }
}

void ChainWriter::FillScriptSig(CScript& script)
{
    // Signature-shaped filler in the two common legacy sizes: nothing in
    // coinsdb runs scripts, but block sizes should look like spends.
    if (m_rng.Chance(7000)) {
        // P2PKH: <DER signature + SIGHASH_ALL, 71 or 72 bytes> <compressed key>
        const size_t sig = 71 + m_rng.Below(2);
        script.resize(1 + sig + 1 + 33);
        m_rng.Fill(script);
        script[0] = static_cast<unsigned char>(sig);
        script[1] = 0x30;
        script[sig] = 0x01;
        script[sig + 1] = 33;
        script[sig + 2] = 0x02 | (script[sig + 2] & 1);
    } else {
        // P2SH-wrapped P2WPKH: the push of the 22-byte witness program.
        script.resize(23);
        m_rng.Fill(script);
        script[0] = 22;
        script[1] = 0x00;
        script[2] = 20;
    }
}

CAmount ChainWriter::DrawFee(size_t inputs, size_t outputs, CAmount in_value)
{
    // sat/vB: mostly quiet mempools, sometimes busy ones.
    static constexpr std::array<std::pair<uint64_t, uint64_t>, 3> RATES{{{1, 3}, {3, 10}, {10, 50}}};
    const auto [low, high] = RATES[m_rng.Pick(std::array<uint32_t, 3>{70, 25, 5})];
    const uint64_t rate = m_rng.Range(low, high);
    const uint64_t vsize = 10 + 148 * inputs + 34 * outputs;
    // Never more than a quarter of what is spent, so outputs keep value.
    return std::min(static_cast<CAmount>(rate * vsize), in_value / 4);
}

void ChainWriter::FillOutputs(size_t wanted, CAmount budget)
{
    const size_t count = std::clamp<size_t>(budget / MIN_SPLIT_OUTPUT, 1, wanted);
    m_tx.vout.resize(count);
    m_share_weights.assign(count, 0);
    const ScriptType first = DrawScriptType(m_rng);
    const size_t change = m_rng.Below(count);
    CAmount left = budget;
    uint64_t total_weight = 0;
    // Scripts first, and the small payments of the mainnet shape as they
    // are: each is below MIN_SPLIT_OUTPUT, so `left` keeps that much for
    // every output still to be paid.
    for (size_t i = 0; i < count; ++i) {
        const ScriptType type = i > 0 && m_rng.Chance(OTHER_TYPE_PER_10000) ? DrawScriptType(m_rng) : first;
        CTxOut& out = m_tx.vout[i];
        out.scriptPubKey = MakeScript(type, m_rng);
        if (i != change) {
            const CAmount amount = DrawAmount(type, out.scriptPubKey, m_rng);
            if (amount < MIN_SPLIT_OUTPUT) {
                out.nValue = amount;
                left -= amount;
                continue;
            }
        }
        m_share_weights[i] = m_rng.Range(1, MAX_SHARE_WEIGHT);
        total_weight += m_share_weights[i];
    }
    // Then random shares of the rest; the change takes what rounding leaves.
    const CAmount shared = left;
    for (size_t i = 0; i < count; ++i) {
        if (i == change || m_share_weights[i] == 0) continue;
        CAmount amount = shared * static_cast<CAmount>(m_share_weights[i]) / static_cast<CAmount>(total_weight);
        if (amount >= ROUND_FROM && m_rng.Chance(ROUND_PER_10000)) amount = RoundDown(amount);
        m_tx.vout[i].nValue = amount;
        left -= amount;
    }
    m_tx.vout[change].nValue = left;
}

CAmount ChainWriter::RoundDown(CAmount amount)
{
    CAmount step = 1;
    while (step <= amount / 10) step *= 10;
    // Keep 1-3 significant digits.
    for (uint64_t digits = m_rng.Range(1, 3); digits > 1 && step >= 10; --digits) step /= 10;
    return amount - amount % step;
}

uint256 ChainWriter::HashBytes(const DataStream& bytes)
{
    m_hasher.write(bytes.Unread());
    return m_hasher.GetHash();
}

uint32_t ChainWriter::AddTxid(const uint256& txid)
{
    assert(m_txids.size() < UINT32_MAX);
    m_txids.push_back(txid);
    return static_cast<uint32_t>(m_txids.size() - 1);
}

void ChainWriter::MaybeCompact()
{
    if (m_pool.Dead() <= m_pool.Live() / 4 + MIN_DEAD_TO_COMPACT) return;
    m_pool.Compact();
    // Keep only the txids a coin still refers to, in their order, and
    // renumber the coins' references.
    constexpr uint32_t UNUSED = UINT32_MAX;
    std::vector<uint32_t> renumber(m_txids.size(), UNUSED);
    for (const PoolCoin& coin : m_pool.Coins()) renumber[coin.Tx()] = 0;
    for (const ImmatureCoin& immature : m_immature) renumber[immature.coin.Tx()] = 0;
    uint32_t kept = 0;
    for (size_t i = 0; i < m_txids.size(); ++i) {
        if (renumber[i] == UNUSED) continue;
        m_txids[kept] = m_txids[i];
        renumber[i] = kept++;
    }
    m_txids.resize(kept);
    for (PoolCoin& coin : m_pool.Coins()) coin.SetTx(renumber[coin.Tx()]);
    for (ImmatureCoin& immature : m_immature) immature.coin.SetTx(renumber[immature.coin.Tx()]);
}

} // namespace

CBlock RegtestGenesisBlock()
{
    // The chain parameters already build (and check) Bitcoin Core's genesis.
    return CChainParams::ForChain(ChainType::REGTEST).GenesisBlock();
}

CAmount RegtestSubsidy(int height)
{
    const int halvings = height / REGTEST_HALVING_INTERVAL;
    // A shift by 64 or more is undefined; the subsidy is long zero by then.
    return halvings >= 64 ? 0 : (50 * COIN) >> halvings;
}

GeneratedChainInfo WriteGeneratedChain(AutoFile& file, const ChainGeneratorOptions& options)
{
    return ChainWriter{file, options}.Run();
}

GeneratedChainInfo GenerateChainFile(const std::filesystem::path& path, const ChainGeneratorOptions& options)
{
    const auto start = std::chrono::steady_clock::now();
    GeneratedChainInfo info;
    WriteOutputFile(path, [&](AutoFile& file) { info = WriteGeneratedChain(file, options); });
    info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return info;
}

std::string ChainInfoJson(const GeneratedChainInfo& info, const std::filesystem::path& path)
{
    return fmt::format(R"({{"path": {}, "blocks": {}, "tip_hash": "{}", "tip_height": {}, "utxos": {}, )"
                       R"("transactions": {}, "total_amount": {}, "seconds": {:.3f}}})",
                       WriteJSON(nlohmann::json(path.string())), info.tip_height, info.tip_hash.GetHex(),
                       info.tip_height, info.utxos, info.transactions, WriteJSON(ValueFromAmount(info.total_amount)),
                       info.seconds);
}
