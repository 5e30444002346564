// The chain generator behind coinsdb-genchain: the file is a valid regtest
// chain in block-file format, an independent replay over a std::map reaches
// exactly the UTXO set it reported, and the bytes depend on the options alone.
//
// Everything here is checked from the bytes, without the generator's code:
// the records are parsed by hand, the target is decoded here, and the
// subsidy and BIP34 push are recomputed.

#include <consensus/merkle.h>
#include <kernel/chainparams.h>
#include <primitives/block.h>
#include <streams.h>
#include <test/util/setup.h>
#include <tools/chain_generator.h>
#include <tools/coin_shape.h>

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace {

const CChainParams REGTEST{CChainParams::ForChain(ChainType::REGTEST)};
constexpr const char* REGTEST_GENESIS_HASH = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";
constexpr const char* GENESIS_MERKLE_ROOT = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
constexpr uint32_t REGTEST_BITS = 0x207fffff;
constexpr size_t MAX_BLOCK_BYTES = 1'000'000;

ChainGeneratorOptions Options(uint64_t seed, int blocks, uint32_t txs_per_block, uint64_t target_utxos = 0)
{
    ChainGeneratorOptions options;
    options.seed = seed;
    options.blocks = blocks;
    options.txs_per_block = txs_per_block;
    options.target_utxos = target_utxos;
    return options;
}

struct Record {
    CBlock block;
    size_t size;
};

// Splits a block file into its records: magic, LE32 size, block.
std::vector<Record> ReadRecords(const std::filesystem::path& path)
{
    const std::string bytes = ReadFileToString(path);
    SpanReader file{std::as_bytes(std::span{bytes})};
    std::vector<Record> records;
    while (!file.empty()) {
        std::array<unsigned char, 4> magic;
        file.read(std::as_writable_bytes(std::span{magic}));
        BOOST_REQUIRE(magic == REGTEST.MessageStart());
        const auto size = ReadLE<uint32_t>(file);
        BOOST_REQUIRE(size <= file.size());
        std::vector<std::byte> body(size);
        file.read(body);
        SpanReader reader{body};
        Record record{CBlock{}, size};
        reader >> record.block;
        // The size field covers the block exactly.
        BOOST_REQUIRE(reader.empty());
        records.push_back(std::move(record));
    }
    return records;
}

// mantissa * 256^(exponent - 3), written out as 64 hex digits, most
// significant first, so that comparing GetHex() strings compares numbers.
std::string GenchainTargetHex(uint32_t bits)
{
    const int exponent = bits >> 24;
    std::string hex = fmt::format("{:06x}", bits & 0x7fffff);
    hex += std::string(2 * (exponent - 3), '0');
    return std::string(64 - hex.size(), '0') + hex;
}

CAmount Subsidy(int height) { return (50 * COIN) >> (height / 150); }

// `CScript() << height`: OP_1..OP_16, or a minimal signed little-endian push.
std::vector<unsigned char> Bip34Prefix(int height)
{
    if (height <= 16) return {static_cast<unsigned char>(0x50 + height)};
    std::vector<unsigned char> number;
    for (int rest = height; rest > 0; rest >>= 8) number.push_back(rest & 0xff);
    if (number.back() & 0x80) number.push_back(0);
    number.insert(number.begin(), static_cast<unsigned char>(number.size()));
    return number;
}

struct ModelCoin {
    CAmount value;
    int height;
    bool coinbase;
};

// The chain as a node would replay it, into a trivially correct UTXO model.
struct Replay {
    std::map<COutPoint, ModelCoin> utxos;
    uint64_t transactions{0};
    uint64_t same_block_spends{0};
    uint64_t coinbase_spends{0};
    uint64_t old_spends{0};
    uint64_t outputs{0};
    uint64_t zero_value_outputs{0};
    std::array<uint64_t, SCRIPT_TYPE_COUNT> output_types{};
    size_t largest_block{0};

    // Spends and creates one transaction's coins; returns its fee.
    CAmount Apply(const CTransaction& tx, int height)
    {
        CAmount in = 0;
        if (!tx.IsCoinBase()) {
            for (const CTxIn& input : tx.vin) {
                const auto it = utxos.find(input.prevout);
                // Missing, spent before, or spent twice in this transaction.
                BOOST_REQUIRE_MESSAGE(it != utxos.end(), "missing input at height " << height);
                const ModelCoin& coin = it->second;
                if (coin.coinbase) {
                    BOOST_REQUIRE_MESSAGE(height - coin.height >= 100, "immature coinbase spend at height " << height);
                    ++coinbase_spends;
                }
                same_block_spends += coin.height == height;
                old_spends += height - coin.height > 144;
                in += coin.value;
                utxos.erase(it);
            }
        }
        CAmount out = 0;
        for (uint32_t n = 0; n < tx.vout.size(); ++n) {
            const CTxOut& output = tx.vout[n];
            BOOST_REQUIRE(MoneyRange(output.nValue));
            BOOST_CHECK(!output.scriptPubKey.IsUnspendable());
            out += output.nValue;
            ++outputs;
            zero_value_outputs += output.nValue == 0;
            ++output_types[static_cast<size_t>(ClassifyScript(output.scriptPubKey))];
            const ModelCoin coin{output.nValue, height, tx.IsCoinBase()};
            BOOST_REQUIRE(utxos.emplace(COutPoint{tx.GetHash(), n}, coin).second);
        }
        ++transactions;
        if (tx.IsCoinBase()) return -out;
        BOOST_REQUIRE(out <= in);
        return in - out;
    }

    void CheckTransactionShape(const CTransaction& tx)
    {
        BOOST_CHECK(!tx.IsCoinBase());
        BOOST_CHECK(!tx.HasWitness());
        BOOST_CHECK(tx.vin.size() >= 1 && tx.vin.size() <= 3);
        BOOST_CHECK(tx.vout.size() >= 1 && tx.vout.size() <= 4);
    }

    void ApplyBlock(const Record& record, int height, const uint256& prev_hash, uint32_t prev_time)
    {
        const CBlock& block = record.block;
        BOOST_TEST_CONTEXT("height " << height)
        {
            BOOST_CHECK_EQUAL(block.nVersion, 0x20000000);
            BOOST_CHECK(block.hashPrevBlock == prev_hash);
            BOOST_CHECK(block.nTime > prev_time);
            BOOST_CHECK_EQUAL(block.nBits, REGTEST_BITS);
            BOOST_CHECK(block.GetHash().GetHex() <= GenchainTargetHex(block.nBits));
            bool mutated = true;
            BOOST_CHECK(BlockMerkleRoot(block, &mutated) == block.hashMerkleRoot);
            BOOST_CHECK(!mutated);
            BOOST_CHECK(record.size <= MAX_BLOCK_BYTES);
            largest_block = std::max(largest_block, record.size);

            BOOST_REQUIRE(!block.vtx.empty());
            const CTransaction& coinbase = *block.vtx[0];
            BOOST_REQUIRE(coinbase.IsCoinBase());
            const CScript& script_sig = coinbase.vin[0].scriptSig;
            const auto prefix = Bip34Prefix(height);
            BOOST_CHECK(script_sig.size() >= 2 && script_sig.size() <= 100);
            BOOST_CHECK(std::equal(prefix.begin(), prefix.end(), script_sig.begin()));

            CAmount fees = 0;
            for (size_t i = 1; i < block.vtx.size(); ++i) {
                CheckTransactionShape(*block.vtx[i]);
                fees += Apply(*block.vtx[i], height);
            }
            const CAmount paid = -Apply(coinbase, height);
            BOOST_CHECK(paid <= Subsidy(height) + fees);
        }
    }
};

// Reads the whole file back and replays it, checking every block.
Replay ReplayChain(const std::filesystem::path& path, int blocks)
{
    const std::vector<Record> records = ReadRecords(path);
    BOOST_REQUIRE_EQUAL(records.size(), size_t(blocks) + 1);
    const CBlock& genesis = records[0].block;
    BOOST_REQUIRE_EQUAL(genesis.GetHash().GetHex(), REGTEST_GENESIS_HASH);
    Replay replay;
    // The genesis output is not a coin: Bitcoin Core never adds it.
    replay.transactions = 1;
    for (int height = 1; height <= blocks; ++height) {
        const CBlock& prev = records[height - 1].block;
        replay.ApplyBlock(records[height], height, prev.GetHash(), prev.nTime);
    }
    return replay;
}

CAmount Total(const Replay& replay)
{
    CAmount total = 0;
    for (const auto& [outpoint, coin] : replay.utxos) total += coin.value;
    return total;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(genchain_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(genesis_is_bitcoin_cores)
{
    const CBlock genesis = RegtestGenesisBlock();
    BOOST_CHECK_EQUAL(genesis.GetHash().GetHex(), REGTEST_GENESIS_HASH);
    BOOST_CHECK(genesis.GetHash() == REGTEST.GenesisHash());
    BOOST_CHECK_EQUAL(genesis.hashMerkleRoot.GetHex(), GENESIS_MERKLE_ROOT);
    BOOST_CHECK_EQUAL(genesis.nVersion, 1);
    BOOST_CHECK_EQUAL(genesis.nTime, 1296688602U);
    BOOST_CHECK_EQUAL(genesis.nBits, REGTEST_BITS);
    BOOST_CHECK_EQUAL(genesis.nNonce, 2U);
    BOOST_REQUIRE_EQUAL(genesis.vtx.size(), 1U);
    BOOST_CHECK_EQUAL(genesis.vtx[0]->vout[0].nValue, 50 * COIN);
    BOOST_CHECK_EQUAL(GenchainTargetHex(REGTEST_BITS), "7fffff" + std::string(58, '0'));

    // It is the file's first record, byte for byte.
    GenerateChainFile(m_path / "g.dat", Options(1, 1, 0));
    const auto records = ReadRecords(m_path / "g.dat");
    BOOST_REQUIRE_EQUAL(records.size(), 2U);
    DataStream expected, written;
    expected << genesis;
    written << records[0].block;
    BOOST_CHECK(std::ranges::equal(expected.Unread(), written.Unread()));
}

BOOST_AUTO_TEST_CASE(replay_is_valid_and_matches_the_report)
{
    const int blocks = 300;
    const auto path = m_path / "chain.dat";
    const auto info = GenerateChainFile(path, Options(/*seed=*/1, blocks, /*txs_per_block=*/30));
    BOOST_CHECK(!std::filesystem::exists(m_path / "chain.dat.incomplete"));
    BOOST_CHECK_EQUAL(info.file_bytes, std::filesystem::file_size(path));

    const Replay replay = ReplayChain(path, blocks);
    BOOST_CHECK_EQUAL(info.tip_height, blocks);
    BOOST_CHECK_EQUAL(info.utxos, replay.utxos.size());
    BOOST_CHECK_EQUAL(info.total_amount, Total(replay));
    BOOST_CHECK_EQUAL(info.transactions, replay.transactions);
    const auto records = ReadRecords(path);
    BOOST_CHECK(info.tip_hash == records.back().block.GetHash());

    // Fees go back to the coinbases, so the set holds every subsidy paid.
    CAmount subsidies = 0;
    for (int height = 1; height <= blocks; ++height) subsidies += Subsidy(height);
    BOOST_CHECK_EQUAL(Total(replay), subsidies);

    // Churn of every kind happened: chains inside a block, matured
    // coinbases, coins older than a day, and every script type.
    BOOST_CHECK(replay.same_block_spends > 0);
    BOOST_CHECK(replay.coinbase_spends > 0);
    BOOST_CHECK(replay.old_spends > 0);
    for (size_t t = 0; t < SCRIPT_TYPE_COUNT; ++t) {
        BOOST_TEST_CONTEXT(ScriptTypeName(static_cast<ScriptType>(t))) { BOOST_CHECK(replay.output_types[t] > 0); }
    }
    // Only pay-to-anchor outputs hold nothing: worthless coins must not breed
    // (a transaction spending only those could pay nothing else).
    BOOST_CHECK(replay.zero_value_outputs < replay.outputs / 100);
    // Blocks 1-100 have nothing spendable yet, then about 30 each.
    BOOST_CHECK(replay.transactions > 300 + 200 * 25 && replay.transactions < 300 + 200 * 35);
}

BOOST_AUTO_TEST_CASE(blocks_stop_when_full)
{
    const int blocks = 103;
    const auto path = m_path / "full.dat";
    const auto info = GenerateChainFile(path, Options(2, blocks, MAX_TXS_PER_BLOCK));
    const Replay replay = ReplayChain(path, blocks);
    BOOST_CHECK_EQUAL(info.utxos, replay.utxos.size());
    BOOST_CHECK_EQUAL(info.total_amount, Total(replay));
    // Filled up to the last transaction that fits, and no further.
    BOOST_CHECK(replay.largest_block > MAX_BLOCK_BYTES - 20'000);
    BOOST_CHECK(replay.largest_block <= MAX_BLOCK_BYTES);
}

BOOST_AUTO_TEST_CASE(target_steers_the_set_size)
{
    const uint64_t target = 2000;
    const auto steered = GenerateChainFile(m_path / "t.dat", Options(3, 400, 40, target));
    const auto free = GenerateChainFile(m_path / "f.dat", Options(3, 400, 40));
    // Climbs faster than the default mix, then stays within about a block's
    // worth of outputs of the target.
    BOOST_CHECK(std::llabs(int64_t(steered.utxos) - int64_t(target)) < 200);
    BOOST_CHECK(free.utxos > target * 3 / 2);
    const Replay replay = ReplayChain(m_path / "t.dat", 400);
    BOOST_CHECK_EQUAL(steered.utxos, replay.utxos.size());
    BOOST_CHECK_EQUAL(steered.total_amount, Total(replay));
}

BOOST_AUTO_TEST_CASE(bytes_depend_on_the_options_alone)
{
    GenerateChainFile(m_path / "a.dat", Options(5, 150, 10));
    GenerateChainFile(m_path / "b.dat", Options(5, 150, 10));
    GenerateChainFile(m_path / "c.dat", Options(6, 150, 10));
    const std::string a = ReadFileToString(m_path / "a.dat");
    BOOST_CHECK(a == ReadFileToString(m_path / "b.dat"));
    BOOST_CHECK(a != ReadFileToString(m_path / "c.dat"));

    // An existing file is never replaced, and a failed run leaves nothing.
    BOOST_CHECK_THROW(GenerateChainFile(m_path / "a.dat", Options(7, 10, 10)), std::runtime_error);
    BOOST_CHECK(a == ReadFileToString(m_path / "a.dat"));
    BOOST_CHECK_THROW(GenerateChainFile(m_path / "d.dat", Options(7, MAX_CHAIN_BLOCKS + 1, 10)), std::runtime_error);
    BOOST_CHECK(!std::filesystem::exists(m_path / "d.dat"));
    BOOST_CHECK(!std::filesystem::exists(m_path / "d.dat.incomplete"));
}

BOOST_AUTO_TEST_CASE(json_reports_the_tip)
{
    const auto info = GenerateChainFile(m_path / "j.dat", Options(4, 120, 5));
    const auto json = nlohmann::json::parse(ChainInfoJson(info, "dir/\"odd\".dat"));
    BOOST_CHECK_EQUAL(json["path"].get<std::string>(), "dir/\"odd\".dat");
    BOOST_CHECK_EQUAL(json["blocks"].get<int>(), 120);
    BOOST_CHECK_EQUAL(json["tip_height"].get<int>(), 120);
    BOOST_CHECK_EQUAL(json["tip_hash"].get<std::string>(), info.tip_hash.GetHex());
    BOOST_CHECK_EQUAL(json["utxos"].get<uint64_t>(), info.utxos);
    BOOST_CHECK_EQUAL(json["transactions"].get<uint64_t>(), info.transactions);
    BOOST_CHECK_EQUAL(std::llround(json["total_amount"].get<double>() * COIN), info.total_amount);
    BOOST_CHECK(json["seconds"].get<double>() >= 0);
    BOOST_CHECK_EQUAL(json.size(), 8U);
}

BOOST_AUTO_TEST_SUITE_END()
