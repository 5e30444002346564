// UTXO snapshot files: the metadata header, WriteSnapshot's grouping, and
// every loader check of formats.md, each provoked by changing one field of
// an otherwise valid file and answered by its own SnapshotError.

#include <coins.h>
#include <kernel/caches.h>
#include <kernel/chainparams.h>
#include <node/snapshot/utxo_snapshot.h>
#include <primitives/amount.h>
#include <test/util/coin_compare.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <txdb.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

const CChainParams REGTEST = CChainParams::ForChain(ChainType::REGTEST);
// The regtest assumeutxo entry at height 110.
const uint256 BASE_110 = *uint256::FromHex("6affe030b7965ab538f820a56ef56c8149b7dc1d1c144af57113be080db7c397");
constexpr int BASE_HEIGHT = 110;

uint256 Txid(unsigned char tag)
{
    std::array<unsigned char, 32> bytes;
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(tag + i);
    return uint256{bytes};
}

CScript P2PKH(unsigned char fill)
{
    CScript script{OP_DUP, OP_HASH160, 0x14};
    script.insert(script.end(), 20, fill);
    script.insert(script.end(), {OP_EQUALVERIFY, OP_CHECKSIG});
    return script;
}

CScript P2SH(unsigned char fill)
{
    CScript script{OP_HASH160, 0x14};
    script.insert(script.end(), 20, fill);
    script.push_back(OP_EQUAL);
    return script;
}

// A snapshot file described field by field, so that a test can change
// exactly one of them. The body is written as is: vouts are CompactSize
// values of any size, group counts may disagree with the coins listed.
struct SnapCoin {
    uint64_t vout;
    Coin coin;
};

struct SnapGroup {
    uint256 txid;
    std::vector<SnapCoin> coins;
    std::optional<uint64_t> count_field;
};

struct SnapshotSpec {
    std::array<unsigned char, 5> magic{SNAPSHOT_MAGIC_BYTES};
    uint16_t version{SNAPSHOT_VERSION};
    MessageStartChars network{REGTEST.MessageStart()};
    uint256 base{BASE_110};
    std::optional<uint64_t> coins_count;
    std::vector<SnapGroup> groups;
};

// The bytes, and where things end, in coin order.
struct BuiltSnapshot {
    std::vector<unsigned char> bytes;
    std::vector<size_t> group_count_end;
    std::vector<size_t> vout_end;
    std::vector<size_t> coin_end;
};

BuiltSnapshot Build(const SnapshotSpec& spec)
{
    DataStream s;
    uint64_t total = 0;
    for (const auto& group : spec.groups) total += group.coins.size();
    s << spec.magic;
    WriteLE(s, spec.version);
    s << spec.network;
    s << spec.base;
    WriteLE(s, spec.coins_count.value_or(total));

    BuiltSnapshot built;
    for (const auto& group : spec.groups) {
        s << group.txid;
        WriteCompactSize(s, group.count_field.value_or(group.coins.size()));
        built.group_count_end.push_back(s.size());
        for (const auto& [vout, coin] : group.coins) {
            WriteCompactSize(s, vout);
            built.vout_end.push_back(s.size());
            s << coin;
            built.coin_end.push_back(s.size());
        }
    }
    const auto bytes = s.Unread();
    const auto* begin = reinterpret_cast<const unsigned char*>(bytes.data());
    built.bytes.assign(begin, begin + bytes.size());
    return built;
}

// Four coins in three groups; the last group holds one coin. Each coin sits
// on a boundary the loader must accept: height == base height, amount ==
// MAX_MONEY, amount 0, vout 2^32-2.
SnapshotSpec ValidSpec()
{
    SnapshotSpec spec;
    spec.groups = {
        {Txid(0x10), {{0, Coin{CTxOut{50 * COIN, P2PKH(0xaa)}, 1, true}}, {1, Coin{CTxOut{1, CScript{0x51, 0x52}}, 100, false}}}, {}},
        {Txid(0x20), {{3, Coin{CTxOut{MAX_MONEY, P2SH(0xbb)}, BASE_HEIGHT, false}}}, {}},
        {Txid(0x30), {{0xfffffffe, Coin{CTxOut{0, CScript{0x00, 0x14, 0x01}}, 0, false}}}, {}},
    };
    return spec;
}

void WriteBytes(const std::filesystem::path& path, std::span<const unsigned char> bytes)
{
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    BOOST_REQUIRE(out.good());
}

std::FILE* OpenOrFail(const std::filesystem::path& path, const char* mode)
{
    std::FILE* file = std::fopen(path.c_str(), mode);
    BOOST_REQUIRE_MESSAGE(file, "cannot open " << path);
    return file;
}

struct LoadedSnapshot {
    SnapshotMetadata metadata;
    AssumeutxoData base;
    std::vector<std::pair<COutPoint, Coin>> coins;
};

// What loadtxoutset does before touching a chainstate: header, base block,
// then every coin. Throws SnapshotError.
LoadedSnapshot LoadFile(const std::filesystem::path& path, const CChainParams& params)
{
    AutoFile file{OpenOrFail(path, "rb")};
    LoadedSnapshot loaded;
    loaded.metadata = SnapshotMetadata::Read(file, params.MessageStart());
    loaded.base = CheckSnapshotBase(loaded.metadata, params);
    SnapshotCoinReader reader{file, loaded.metadata, loaded.base.height};
    COutPoint outpoint;
    Coin coin;
    while (reader.Next(outpoint, coin)) loaded.coins.emplace_back(outpoint, coin);
    BOOST_CHECK_EQUAL(reader.CoinsRead(), loaded.coins.size());
    return loaded;
}

LoadedSnapshot LoadBytes(const TempDirFixture& tmp, std::span<const unsigned char> bytes,
                         const CChainParams& params = REGTEST)
{
    const auto path = tmp.m_path / "snapshot.dat";
    WriteBytes(path, bytes);
    return LoadFile(path, params);
}

// A predicate for BOOST_CHECK_EXCEPTION that also prints the message.
auto MessageIs(std::string expected)
{
    return [expected = std::move(expected)](const SnapshotError& e) {
        const std::string what = e.what();
        BOOST_CHECK_EQUAL(what, expected);
        return what == expected;
    };
}

// What a stream failure says, as the loader quotes it (libstdc++ appends
// ": iostream error" to the text given).
std::string StreamError(const char* text) { return std::ios_base::failure{text}.what(); }
const std::string END_OF_FILE = StreamError("AutoFile::read: end of file");

std::string BodyError(uint64_t coins_read, size_t offset, std::string_view what)
{
    return fmt::format("Bad snapshot data after deserializing {} coins (file offset {}): {}", coins_read, offset, what);
}

// Yields given coins in the given order, optionally failing one read.
class VectorCursor final : public CCoinsViewCursor
{
public:
    explicit VectorCursor(std::vector<std::pair<COutPoint, Coin>> coins, std::optional<size_t> bad_value = {})
        : CCoinsViewCursor{uint256{}}, m_coins{std::move(coins)}, m_bad_value{bad_value}
    {
    }

    bool GetKey(COutPoint& key) const override
    {
        if (!Valid()) return false;
        key = m_coins[m_pos].first;
        return true;
    }
    bool GetValue(Coin& coin) const override
    {
        if (!Valid() || m_pos == m_bad_value) return false;
        coin = m_coins[m_pos].second;
        return true;
    }
    bool Valid() const override { return m_pos < m_coins.size(); }
    void Next() override { ++m_pos; }

private:
    std::vector<std::pair<COutPoint, Coin>> m_coins;
    std::optional<size_t> m_bad_value;
    size_t m_pos{0};
};

std::vector<std::pair<COutPoint, Coin>> CoinsOf(const SnapshotSpec& spec)
{
    std::vector<std::pair<COutPoint, Coin>> coins;
    for (const auto& group : spec.groups) {
        for (const auto& [vout, coin] : group.coins) coins.emplace_back(COutPoint{group.txid, static_cast<uint32_t>(vout)}, coin);
    }
    return coins;
}

std::vector<unsigned char> WriteToBytes(const TempDirFixture& tmp, const MessageStartChars& network, const uint256& base,
                                        uint64_t coins_count, CCoinsViewCursor& cursor, uint64_t* written = nullptr)
{
    const auto path = tmp.m_path / "written.dat";
    {
        AutoFile file{OpenOrFail(path, "wb")};
        const uint64_t count = WriteSnapshot(file, network, base, coins_count, cursor);
        if (written) *written = count;
        BOOST_REQUIRE_EQUAL(file.fclose(), 0);
    }
    const std::string text = ReadFileToString(path);
    return {text.begin(), text.end()};
}

} // namespace

BOOST_AUTO_TEST_SUITE(snapshot_tests)

BOOST_AUTO_TEST_CASE(metadata_round_trip)
{
    TempDirFixture tmp;
    struct Case {
        ChainType chain;
        std::string magic_hex;
    };
    const std::vector<Case> cases{
        {ChainType::MAIN, "f9beb4d9"},     {ChainType::TESTNET, "0b110907"}, {ChainType::TESTNET4, "1c163f28"},
        {ChainType::SIGNET, "0a03cf40"},   {ChainType::REGTEST, "fabfb5da"},
    };
    for (const auto& [chain, magic_hex] : cases) {
        BOOST_TEST_CONTEXT(ChainTypeToString(chain))
        {
            const CChainParams params = CChainParams::ForChain(chain);
            const SnapshotMetadata written{params.MessageStart(), Txid(0x42), 0x0102030405060708ULL};
            const auto path = tmp.m_path / "header.dat";
            {
                AutoFile file{OpenOrFail(path, "wb")};
                written.Write(file);
            }
            const std::string bytes = ReadFileToString(path);
            const uint256 base = Txid(0x42);
            BOOST_CHECK_EQUAL(HexStr(std::span{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}),
                              "7574786fff" "0200" + magic_hex + HexStr(std::span{base.begin(), base.end()}) +
                                  "0807060504030201");

            AutoFile file{OpenOrFail(path, "rb")};
            const auto read = SnapshotMetadata::Read(file, params.MessageStart());
            BOOST_CHECK(read.network_magic == params.MessageStart());
            BOOST_CHECK_EQUAL(read.base_blockhash.GetHex(), base.GetHex());
            BOOST_CHECK_EQUAL(read.coins_count, 0x0102030405060708ULL);
            BOOST_CHECK(file.AtEnd());
        }
    }
}

BOOST_AUTO_TEST_CASE(check_snapshot_base)
{
    // Every built-in entry is found on its own chain, and only there.
    for (const ChainType chain : {ChainType::MAIN, ChainType::TESTNET, ChainType::TESTNET4, ChainType::SIGNET, ChainType::REGTEST}) {
        const CChainParams params = CChainParams::ForChain(chain);
        BOOST_REQUIRE(!params.AssumeutxoEntries().empty());
        for (const auto& entry : params.AssumeutxoEntries()) {
            BOOST_TEST_CONTEXT(ChainTypeToString(chain) << " height " << entry.height)
            {
                const SnapshotMetadata metadata{params.MessageStart(), entry.blockhash, 1};
                const auto found = CheckSnapshotBase(metadata, params);
                BOOST_CHECK_EQUAL(found.height, entry.height);
                BOOST_CHECK_EQUAL(found.hash_serialized.GetHex(), entry.hash_serialized.GetHex());
                if (chain != ChainType::REGTEST) {
                    BOOST_CHECK_EXCEPTION(CheckSnapshotBase(metadata, REGTEST), SnapshotError,
                                          MessageIs(fmt::format("Assumeutxo height in snapshot metadata not recognized "
                                                                "for base block {}: this chain has no assumeutxo entry "
                                                                "for it",
                                                                entry.blockhash.GetHex())));
                }
            }
        }
    }
    const auto regtest_200 = REGTEST.AssumeutxoForHeight(200);
    BOOST_REQUIRE(regtest_200);
    BOOST_CHECK_EQUAL(regtest_200->blockhash.GetHex(), "385901ccbd69dff6bbd00065d01fb8a9e464dede7cfe0372443884f9b1dcf6b9");
    BOOST_CHECK_EQUAL(regtest_200->hash_serialized.GetHex(), "17dcc016d188d16068907cdeb38b75691a118d43053b8cd6a25969419381d13a");
}

// The heights of every built-in table, as in Bitcoin Core master b88bffe5
// (the reference build), and the newest entry of each chain in full.
BOOST_AUTO_TEST_CASE(assumeutxo_tables_are_cores)
{
    struct Newest {
        ChainType chain;
        std::vector<int> heights;
        std::string blockhash;
        std::string hash_serialized;
        uint64_t chain_tx_count;
    };
    const std::vector<Newest> tables{
        {ChainType::MAIN, {840000, 880000, 910000, 935000}, "0000000000000000000147034958af1652b2b91bba607beacc5e72a56f0fb5ee",
         "e4b90ef9eae834f56c4b64d2d50143cee10ad87994c614d7d04125e2a6025050", 1305397408},
        {ChainType::TESTNET, {2500000, 4840000}, "00000000000000f4971a7fb37fbdff89315b69a2e1920c467654a382f0d64786",
         "ce6bb677bb2ee9789c4a1c9d73e6683c53fc20e8fdbedbdaaf468982a0c8db2a", 536078574},
        {ChainType::TESTNET4, {90000, 120000}, "000000000bd2317e51b3c5794981c35ba894ce27d3e772d5c39ecd9cbce01dc8",
         "10b05d05ad468d0971162e1b222a4aa66caca89da2bb2a93f8f37fb29c4794b0", 14141057},
        {ChainType::SIGNET, {160000, 290000}, "0000000577f2741bb30cd9d39d6d71b023afbeb9764f6260786a97969d5c9ac0",
         "97267e000b4b876800167e71b9123f1529d13b14308abec2888bbd2160d14545", 28547497},
    };
    for (const auto& table : tables) {
        BOOST_TEST_CONTEXT(ChainTypeToString(table.chain))
        {
            const CChainParams params = CChainParams::ForChain(table.chain);
            std::vector<int> heights;
            for (const auto& entry : params.AssumeutxoEntries()) heights.push_back(entry.height);
            BOOST_CHECK(heights == table.heights);
            const auto newest = params.AssumeutxoForHeight(table.heights.back());
            BOOST_REQUIRE(newest);
            BOOST_CHECK_EQUAL(newest->blockhash.GetHex(), table.blockhash);
            BOOST_CHECK_EQUAL(newest->hash_serialized.GetHex(), table.hash_serialized);
            BOOST_CHECK_EQUAL(newest->chain_tx_count, table.chain_tx_count);
        }
    }
}

BOOST_AUTO_TEST_CASE(valid_file_loads)
{
    TempDirFixture tmp;
    const SnapshotSpec spec = ValidSpec();
    const auto built = Build(spec);
    BOOST_CHECK_EQUAL(built.bytes.size(), built.coin_end.back());
    const auto loaded = LoadBytes(tmp, built.bytes);
    BOOST_CHECK_EQUAL(loaded.metadata.coins_count, 4U);
    BOOST_CHECK_EQUAL(loaded.base.height, BASE_HEIGHT);
    const auto expected = CoinsOf(spec);
    BOOST_REQUIRE_EQUAL(loaded.coins.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        BOOST_CHECK(loaded.coins[i].first == expected[i].first);
        BOOST_CHECK(SameCoin(loaded.coins[i].second, expected[i].second));
    }

    // An empty snapshot is just a header.
    SnapshotSpec empty;
    const auto empty_built = Build(empty);
    BOOST_CHECK_EQUAL(empty_built.bytes.size(), 51U);
    BOOST_CHECK(LoadBytes(tmp, empty_built.bytes).coins.empty());
}

BOOST_AUTO_TEST_CASE(each_check_has_its_own_error)
{
    using Mutate = std::function<void(SnapshotSpec&)>;
    struct Case {
        std::string name;
        Mutate mutate;
        // The full message, given the mutated file's layout.
        std::function<std::string(const BuiltSnapshot&)> message;
    };
    const std::string bad_magic = "Invalid UTXO set snapshot magic bytes: this is not a snapshot file, or one in an outdated format";
    const auto unknown_base = [](const uint256& hash) {
        return fmt::format("Assumeutxo height in snapshot metadata not recognized for base block {}: this chain has no "
                           "assumeutxo entry for it",
                           hash.GetHex());
    };
    const uint256 mainnet_840000 = *uint256::FromHex("0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5");
    const std::string t1 = Txid(0x10).GetHex();
    const std::string t2 = Txid(0x20).GetHex();
    const COutPoint t2_3{Txid(0x20), 3};

    const std::vector<Case> cases{
        // Header.
        {"magic: last byte", [](auto& s) { s.magic[4] = 0xfe; }, [&](auto&) { return bad_magic; }},
        {"magic: upper case", [](auto& s) { s.magic = {'U', 'T', 'X', 'O', 0xff}; }, [&](auto&) { return bad_magic; }},
        {"magic: zeros", [](auto& s) { s.magic = {}; }, [&](auto&) { return bad_magic; }},
        {"version 1", [](auto& s) { s.version = 1; },
         [](auto&) { return std::string{"Unsupported snapshot version 1: this node reads version 2"}; }},
        {"version 3", [](auto& s) { s.version = 3; },
         [](auto&) { return std::string{"Unsupported snapshot version 3: this node reads version 2"}; }},
        {"version 0x0200 (big-endian 2)", [](auto& s) { s.version = 0x0200; },
         [](auto&) { return std::string{"Unsupported snapshot version 512: this node reads version 2"}; }},
        {"network main", [](auto& s) { s.network = {0xf9, 0xbe, 0xb4, 0xd9}; },
         [](auto&) { return std::string{"The snapshot is for main but this node runs on regtest"}; }},
        {"network testnet3", [](auto& s) { s.network = {0x0b, 0x11, 0x09, 0x07}; },
         [](auto&) { return std::string{"The snapshot is for test but this node runs on regtest"}; }},
        {"network testnet4", [](auto& s) { s.network = {0x1c, 0x16, 0x3f, 0x28}; },
         [](auto&) { return std::string{"The snapshot is for testnet4 but this node runs on regtest"}; }},
        {"network signet", [](auto& s) { s.network = {0x0a, 0x03, 0xcf, 0x40}; },
         [](auto&) { return std::string{"The snapshot is for signet but this node runs on regtest"}; }},
        {"network unknown", [](auto& s) { s.network = {0xde, 0xad, 0xbe, 0xef}; },
         [](auto&) { return std::string{"The snapshot is for unknown network magic deadbeef but this node runs on regtest"}; }},
        {"base block unknown", [](auto& s) { s.base = Txid(0x77); }, [&](auto&) { return unknown_base(Txid(0x77)); }},
        {"base block of another chain", [&](auto& s) { s.base = mainnet_840000; },
         [&](auto&) { return unknown_base(mainnet_840000); }},
        // Coin count against the body.
        {"coins count +1", [](auto& s) { s.coins_count = 5; },
         [](const BuiltSnapshot& b) {
             return BodyError(4, b.bytes.size(), "bad format or truncated snapshot: " + END_OF_FILE);
         }},
        {"coins count -1", [](auto& s) { s.coins_count = 3; },
         [](const BuiltSnapshot& b) {
             return BodyError(3, b.coin_end[2], "coins left over after the last coin the metadata announced");
         }},
        {"coins count 0", [](auto& s) { s.coins_count = 0; },
         [](const BuiltSnapshot&) { return BodyError(0, 51, "coins left over after the last coin the metadata announced"); }},
        // Groups.
        {"first group count above coins left", [](auto& s) { s.groups[0].count_field = 5; },
         [&](const BuiltSnapshot& b) {
             return BodyError(0, b.group_count_end[0], fmt::format("group of 5 coins for txid {} exceeds the 4 coins the metadata has left", t1));
         }},
        {"second group count above coins left", [](auto& s) { s.groups[1].count_field = 3; },
         [&](const BuiltSnapshot& b) {
             return BodyError(2, b.group_count_end[1], fmt::format("group of 3 coins for txid {} exceeds the 2 coins the metadata has left", t2));
         }},
        {"huge group count", [](auto& s) { s.groups[0].count_field = 0xffffffffffULL; },
         [&](const BuiltSnapshot& b) {
             return BodyError(0, b.group_count_end[0], "bad format or truncated snapshot: " + StreamError("ReadCompactSize(): size too large"));
         }},
        {"empty group", [](auto& s) { s.groups[1].count_field = 0; },
         [&](const BuiltSnapshot& b) { return BodyError(2, b.group_count_end[1], "empty coin group for txid " + t2); }},
        // Coins.
        {"height above base", [](auto& s) { s.groups[1].coins[0].coin.nHeight = BASE_HEIGHT + 1; },
         [&](const BuiltSnapshot& b) {
             return BodyError(2, b.coin_end[2], fmt::format("coin {} has height 111 above the snapshot base height 110", t2_3.ToString()));
         }},
        {"height far above base", [](auto& s) { s.groups[1].coins[0].coin.nHeight = 0x7fffffff; },
         [&](const BuiltSnapshot& b) {
             return BodyError(2, b.coin_end[2],
                              fmt::format("coin {} has height 2147483647 above the snapshot base height 110", t2_3.ToString()));
         }},
        {"vout 2^32-1", [](auto& s) { s.groups[2].coins[0].vout = 0xffffffff; },
         [](const BuiltSnapshot& b) { return BodyError(3, b.vout_end[3], "output index 4294967295 out of range"); }},
        {"vout 2^32", [](auto& s) { s.groups[2].coins[0].vout = 0x100000000ULL; },
         [](const BuiltSnapshot& b) { return BodyError(3, b.vout_end[3], "output index 4294967296 out of range"); }},
        {"vout 2^64-1", [](auto& s) { s.groups[0].coins[0].vout = UINT64_MAX; },
         [](const BuiltSnapshot& b) { return BodyError(0, b.vout_end[0], "output index 18446744073709551615 out of range"); }},
        {"amount MAX_MONEY+1", [](auto& s) { s.groups[1].coins[0].coin.out.nValue = MAX_MONEY + 1; },
         [&](const BuiltSnapshot& b) {
             return BodyError(2, b.coin_end[2],
                              fmt::format("coin {} has amount 2100000000000001 outside the valid money range", t2_3.ToString()));
         }},
        {"amount 21e6 BTC + 1 BTC", [](auto& s) { s.groups[0].coins[1].coin.out.nValue = MAX_MONEY + COIN; },
         [&](const BuiltSnapshot& b) {
             return BodyError(1, b.coin_end[1],
                              fmt::format("coin {} has amount 2100000100000000 outside the valid money range",
                                          COutPoint{Txid(0x10), 1}.ToString()));
         }},
        // Compressed amounts decode to 64 unsigned bits: 10^19 satoshis
        // comes back as a negative CAmount, which is out of range too.
        {"amount wrapping negative", [](auto& s) { s.groups[1].coins[0].coin.out.nValue = static_cast<CAmount>(10'000'000'000'000'000'000ULL); },
         [&](const BuiltSnapshot& b) {
             return BodyError(2, b.coin_end[2],
                              fmt::format("coin {} has amount -8446744073709551616 outside the valid money range", t2_3.ToString()));
         }},
    };

    TempDirFixture tmp;
    for (const auto& test : cases) {
        BOOST_TEST_CONTEXT(test.name)
        {
            SnapshotSpec spec = ValidSpec();
            test.mutate(spec);
            const auto built = Build(spec);
            BOOST_CHECK_EXCEPTION(LoadBytes(tmp, built.bytes), SnapshotError, MessageIs(test.message(built)));
        }
    }
}

BOOST_AUTO_TEST_CASE(trailing_bytes)
{
    TempDirFixture tmp;
    const auto valid = Build(ValidSpec());
    for (const std::vector<unsigned char>& extra : {std::vector<unsigned char>{0x00}, std::vector<unsigned char>(100, 0xff)}) {
        BOOST_TEST_CONTEXT(extra.size() << " extra bytes")
        {
            auto bytes = valid.bytes;
            bytes.insert(bytes.end(), extra.begin(), extra.end());
            BOOST_CHECK_EXCEPTION(LoadBytes(tmp, bytes), SnapshotError,
                                  MessageIs(BodyError(4, valid.bytes.size(),
                                                      "coins left over after the last coin the metadata announced")));
        }
    }
}

BOOST_AUTO_TEST_CASE(truncated_anywhere)
{
    TempDirFixture tmp;
    const auto valid = Build(ValidSpec());
    // Every cut inside the 51-byte header.
    for (size_t size = 0; size < 51; ++size) {
        BOOST_TEST_CONTEXT("header cut at " << size)
        {
            BOOST_CHECK_EXCEPTION(LoadBytes(tmp, std::span{valid.bytes}.first(size)), SnapshotError,
                                  MessageIs("Truncated snapshot header: " + END_OF_FILE));
        }
    }
    // Every cut inside the body names the coins read before it and the end
    // of the file as the offset.
    for (size_t size = 51; size < valid.bytes.size(); ++size) {
        BOOST_TEST_CONTEXT("body cut at " << size)
        {
            const uint64_t complete = std::ranges::count_if(valid.coin_end, [&](size_t end) { return end <= size; });
            BOOST_CHECK_EXCEPTION(
                LoadBytes(tmp, std::span{valid.bytes}.first(size)), SnapshotError,
                MessageIs(BodyError(complete, size, "bad format or truncated snapshot: " + END_OF_FILE)));
        }
    }
}

BOOST_AUTO_TEST_CASE(write_snapshot_groups_by_txid)
{
    TempDirFixture tmp;
    const SnapshotSpec spec = ValidSpec();
    VectorCursor cursor{CoinsOf(spec)};
    uint64_t written = 0;
    const auto bytes = WriteToBytes(tmp, REGTEST.MessageStart(), BASE_110, 4, cursor, &written);
    BOOST_CHECK_EQUAL(written, 4U);
    // Byte for byte what the field-by-field description gives: one group per
    // txid with its count, then CompactSize(vout) and the coin.
    BOOST_CHECK_EQUAL(HexStr(bytes), HexStr(Build(spec).bytes));

    // A larger group, and a txid of all zeros first (the writer must not
    // confuse it with "no group yet").
    SnapshotSpec grouped;
    grouped.groups = {
        {uint256{}, {{0, Coin{CTxOut{5, P2PKH(1)}, 7, false}}, {2, Coin{CTxOut{6, P2SH(2)}, 8, true}}}, {}},
        {Txid(0x01), {{0, Coin{CTxOut{7, CScript{0x51}}, 9, false}}}, {}},
        {Txid(0x02),
         {{1, Coin{CTxOut{8, P2PKH(3)}, 10, false}},
          {252, Coin{CTxOut{9, P2PKH(4)}, 11, false}},
          {253, Coin{CTxOut{10, P2PKH(5)}, 12, false}},
          {70000, Coin{CTxOut{11, P2PKH(6)}, 13, false}}},
         {}},
    };
    VectorCursor grouped_cursor{CoinsOf(grouped)};
    const auto grouped_bytes = WriteToBytes(tmp, REGTEST.MessageStart(), BASE_110, 7, grouped_cursor, &written);
    BOOST_CHECK_EQUAL(written, 7U);
    BOOST_CHECK_EQUAL(HexStr(grouped_bytes), HexStr(Build(grouped).bytes));
    const auto loaded = LoadBytes(tmp, grouped_bytes);
    BOOST_CHECK_EQUAL(loaded.coins.size(), 7U);
}

BOOST_AUTO_TEST_CASE(write_snapshot_checks_count)
{
    TempDirFixture tmp;
    const auto coins = CoinsOf(ValidSpec());
    for (const uint64_t announced : {uint64_t{0}, uint64_t{3}, uint64_t{5}, UINT64_MAX}) {
        BOOST_TEST_CONTEXT("announced " << announced)
        {
            VectorCursor cursor{coins};
            BOOST_CHECK_EXCEPTION(WriteToBytes(tmp, REGTEST.MessageStart(), BASE_110, announced, cursor), SnapshotError,
                                  MessageIs(fmt::format("Wrote 4 coins but the snapshot header announced {}", announced)));
        }
    }
    VectorCursor bad_read{coins, /*bad_value=*/2};
    BOOST_CHECK_EXCEPTION(WriteToBytes(tmp, REGTEST.MessageStart(), BASE_110, 4, bad_read), SnapshotError,
                          MessageIs("Unable to read coin 2 from the database"));
}

BOOST_AUTO_TEST_CASE(database_to_snapshot_and_back)
{
    TempDirFixture tmp;
    CCoinsViewDB db{DBParams{.path = "snapshot_source", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    std::map<COutPoint, Coin> coins;
    for (uint32_t i = 0; i < 200; ++i) {
        coins.emplace(COutPoint{Txid(static_cast<unsigned char>(i / 4 * 3)), i % 4 * 60},
                      Coin{CTxOut{static_cast<CAmount>(i) * 1000, P2PKH(static_cast<unsigned char>(i))}, static_cast<int>(i % 111), i % 9 == 0});
    }
    CCoinsViewCache cache{&db};
    for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
    cache.SetBestBlock(BASE_110);
    cache.Flush();

    auto cursor = db.Cursor();
    const auto bytes = WriteToBytes(tmp, REGTEST.MessageStart(), BASE_110, coins.size(), *cursor);
    const auto loaded = LoadBytes(tmp, bytes);
    BOOST_REQUIRE_EQUAL(loaded.coins.size(), coins.size());
    // All vouts are below 16512, so key order is (txid, numeric vout).
    size_t i = 0;
    for (const auto& [outpoint, coin] : coins) {
        BOOST_CHECK(loaded.coins[i].first == outpoint);
        BOOST_CHECK(SameCoin(loaded.coins[i].second, coin));
        ++i;
    }
}

BOOST_AUTO_TEST_CASE(shared_vector_snapshot, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto root = VectorsRoot();
    const auto dir = root.empty() ? root : root / "regtest-small";
    BOOST_REQUIRE_MESSAGE(!root.empty() && std::filesystem::exists(dir / "snapshot.dat"), "no shared vector snapshot found (set COINSDB_VECTORS)");
    const auto expected = nlohmann::json::parse(ReadFileToString(dir / "expected.json"));
    const uint256 base = *uint256::FromHex(expected["base_blockhash"].get<std::string>());
    const int height = expected["height"].get<int>();
    const uint64_t count = expected["coins_written"].get<uint64_t>();
    const std::string original = ReadFileToString(dir / "snapshot.dat");
    const std::vector<unsigned char> bytes{original.begin(), original.end()};
    TempDirFixture tmp;

    // Not in regtest's built-in table.
    BOOST_CHECK_EXCEPTION(LoadBytes(tmp, bytes), SnapshotError,
                          MessageIs(fmt::format("Assumeutxo height in snapshot metadata not recognized for base block "
                                                "{}: this chain has no assumeutxo entry for it",
                                                base.GetHex())));

    CChainParams params = CChainParams::ForChain(ChainType::REGTEST);
    params.AddAssumeutxo({height, base, *uint256::FromHex(expected["hash_serialized_3"].get<std::string>()),
                          expected["nchaintx"].get<uint64_t>()});
    const auto loaded = LoadBytes(tmp, bytes, params);
    BOOST_REQUIRE_EQUAL(loaded.coins.size(), count);
    BOOST_CHECK_EQUAL(loaded.metadata.coins_count, count);

    // Grouped by txid, txids ascending; heights and amounts in range.
    std::set<uint256> seen_txids;
    uint32_t max_height = 0;
    for (size_t i = 0; i < loaded.coins.size(); ++i) {
        const auto& [outpoint, coin] = loaded.coins[i];
        if (i == 0 || outpoint.hash != loaded.coins[i - 1].first.hash) {
            BOOST_CHECK_MESSAGE(seen_txids.insert(outpoint.hash).second, "txid " << outpoint.hash.GetHex() << " split");
            if (i > 0) BOOST_CHECK(loaded.coins[i - 1].first.hash < outpoint.hash);
        }
        max_height = std::max<uint32_t>(max_height, coin.nHeight);
        BOOST_CHECK(MoneyRange(coin.out.nValue));
    }
    BOOST_CHECK_EQUAL(seen_txids.size(), expected["transactions"].get<size_t>());
    BOOST_CHECK_LE(max_height, static_cast<uint32_t>(height));

    // Writing the coins back in file order reproduces the file.
    VectorCursor cursor{loaded.coins};
    BOOST_CHECK(WriteToBytes(tmp, params.MessageStart(), base, count, cursor) == bytes);

    // A base height below the newest coin's makes that coin fail.
    {
        CChainParams lower = CChainParams::ForChain(ChainType::REGTEST);
        lower.AddAssumeutxo({static_cast<int>(max_height) - 1, base, uint256{}, 1});
        BOOST_CHECK_EXCEPTION(LoadBytes(tmp, bytes, lower), SnapshotError, [&](const SnapshotError& e) {
            const std::string what = e.what();
            return what.starts_with("Bad snapshot data after deserializing ") &&
                   what.find(fmt::format("above the snapshot base height {}", max_height - 1)) != std::string::npos;
        });
    }

    // The coin count field, one up and one down.
    const auto with_count = [&](uint64_t n) {
        auto changed = bytes;
        for (size_t i = 0; i < 8; ++i) changed[43 + i] = static_cast<unsigned char>(n >> (8 * i));
        return changed;
    };
    BOOST_CHECK_EXCEPTION(LoadBytes(tmp, with_count(count + 1), params), SnapshotError,
                          MessageIs(BodyError(count, bytes.size(), "bad format or truncated snapshot: " + END_OF_FILE)));
    const uint256 last_txid = loaded.coins.back().first.hash;
    const uint64_t last_group = std::ranges::count_if(loaded.coins, [&](const auto& c) { return c.first.hash == last_txid; });
    BOOST_CHECK_EXCEPTION(LoadBytes(tmp, with_count(count - 1), params), SnapshotError, [&](const SnapshotError& e) {
        const std::string what = e.what();
        BOOST_TEST_MESSAGE("count-1: " << what);
        if (last_group == 1) {
            return what.starts_with(fmt::format("Bad snapshot data after deserializing {} coins", count - 1)) &&
                   what.ends_with("coins left over after the last coin the metadata announced");
        }
        return what.find(fmt::format("group of {} coins for txid {} exceeds the {} coins the metadata has left",
                                     last_group, last_txid.GetHex(), last_group - 1)) != std::string::npos;
    });

    // Trailing data, and cuts spread over the body.
    auto longer = bytes;
    longer.push_back(0);
    BOOST_CHECK_EXCEPTION(LoadBytes(tmp, longer, params), SnapshotError,
                          MessageIs(BodyError(count, bytes.size(), "coins left over after the last coin the metadata announced")));
    for (size_t size = 51; size < bytes.size(); size += 4999) {
        BOOST_TEST_CONTEXT("cut at " << size)
        {
            BOOST_CHECK_EXCEPTION(LoadBytes(tmp, std::span{bytes}.first(size), params), SnapshotError,
                                  [&](const SnapshotError& e) {
                                      const std::string what = e.what();
                                      return what.starts_with("Bad snapshot data after deserializing ") &&
                                             what.ends_with(fmt::format("(file offset {}): bad format or truncated "
                                                                        "snapshot: {}",
                                                                        size, END_OF_FILE));
                                  });
        }
    }

    // Loaded on another network.
    BOOST_CHECK_EXCEPTION(LoadBytes(tmp, bytes, CChainParams::ForChain(ChainType::SIGNET)), SnapshotError,
                          MessageIs("The snapshot is for regtest but this node runs on signet"));
}

BOOST_AUTO_TEST_SUITE_END()
