// Checks coinsdb against files Bitcoin Core produced (../shared/vectors):
// the snapshot parses to the published figures, the chainstate it writes is
// byte-identical to Core's, and dumping it again reproduces the file.

#include <coins.h>
#include <crypto/sha256.h>
#include <kernel/caches.h>
#include <kernel/chainparams.h>
#include <kernel/coinstats.h>
#include <node/snapshot/utxo_snapshot.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <txdb.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <fstream>
#include <sstream>

namespace {

std::FILE* OpenOrFail(const std::filesystem::path& path, const char* mode)
{
    std::FILE* file = std::fopen(path.c_str(), mode);
    BOOST_REQUIRE_MESSAGE(file, "cannot open " << path);
    return file;
}

// Loads the snapshot into a new chainstate database the way a node does:
// through a coins cache, then one flush.
void LoadSnapshotIntoDB(const CoreVector& vec, const CChainParams& params, CCoinsViewDB& db)
{
    AutoFile file{OpenOrFail(vec.dir / "snapshot.dat", "rb")};
    const auto metadata = SnapshotMetadata::Read(file, params.MessageStart());
    BOOST_CHECK_EQUAL(metadata.base_blockhash.GetHex(), vec.expected["base_blockhash"].get<std::string>());
    BOOST_CHECK_EQUAL(metadata.coins_count, vec.expected["coins_written"].get<uint64_t>());

    CCoinsViewCache cache{&db};
    SnapshotCoinReader reader{file, metadata, vec.expected["height"].get<int>()};
    COutPoint outpoint;
    Coin coin;
    while (reader.Next(outpoint, coin)) cache.EmplaceCoinInternalDANGER(std::move(outpoint), std::move(coin));
    BOOST_CHECK_EQUAL(reader.CoinsRead(), metadata.coins_count);
    cache.SetBestBlock(metadata.base_blockhash);
    cache.Flush();
}

void CheckStats(const CoreVector& vec, const CCoinsViewDB& db)
{
    const auto stats = kernel::ComputeUTXOStats(kernel::CoinStatsHashType::HASH_SERIALIZED, db);
    BOOST_REQUIRE(stats);
    BOOST_CHECK_EQUAL(stats->hash_serialized.GetHex(), vec.expected["hash_serialized_3"].get<std::string>());
    BOOST_CHECK_EQUAL(stats->txouts, vec.expected["txouts"].get<uint64_t>());
    BOOST_CHECK_EQUAL(stats->transactions, vec.expected["transactions"].get<uint64_t>());
    BOOST_CHECK_EQUAL(stats->bogosize, vec.expected["bogosize"].get<uint64_t>());
    BOOST_CHECK_EQUAL(stats->total_amount, ParseBtc(vec.expected["total_amount"].get<std::string>()));
    BOOST_CHECK_EQUAL(stats->best_block.GetHex(), vec.expected["base_blockhash"].get<std::string>());

    // The same set's MuHash3072, as Core's gettxoutsetinfo muhash printed it.
    const auto muhash = kernel::ComputeUTXOStats(kernel::CoinStatsHashType::MUHASH, db);
    BOOST_REQUIRE(muhash);
    BOOST_CHECK_EQUAL(muhash->hash_serialized.GetHex(), vec.expected["muhash"].get<std::string>());
    BOOST_CHECK_EQUAL(muhash->txouts, stats->txouts);
}

// Every key and de-obfuscated value, in key order, as chainstate.txt has them.
std::string DumpChainstate(CDBWrapper& db)
{
    // The obfuscation key entry: 0e 00 "obfuscate_key".
    const std::string obfuscation_key_hex = "0e006f62667573636174655f6b6579";
    std::ostringstream out;
    auto it = db.NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const std::string key_hex = HexStr(it->RawKey());
        if (key_hex == obfuscation_key_hex) continue;
        out << key_hex << ' ' << HexStr(it->DeobfuscatedValue()) << '\n';
    }
    return out.str();
}

// How the chainstate is written: as Bitcoin Core writes it (through
// LevelDB's log), and as a bulk load writes it (batches in key order built
// into table files coinsdb writes itself and installs through a MANIFEST it
// writes, dbwrapper/ingest.h). Core's files must check out both ways.
struct WriteMode {
    const char* name;
    bool bulk_load;
};
constexpr std::array<WriteMode, 2> WRITE_MODES{{{"through LevelDB's log", false}, {"bulk load, ingested table files", true}}};

void CheckVector(const CoreVector& vec, const WriteMode& mode)
{
    const auto chain = ChainTypeFromString(vec.expected["chain"].get<std::string>());
    BOOST_REQUIRE(chain);
    const CChainParams params = CChainParams::ForChain(*chain);
    TempDirFixture tmp;
    CCoinsViewDB db{DBParams{.path = tmp.m_path / "chainstate", .cache_bytes = 8 << 20}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    BOOST_REQUIRE(db.GetDB().GetObfuscation().IsActive());
    db.SetBulkLoad(mode.bulk_load);

    LoadSnapshotIntoDB(vec, params, db);
    // A bulk load that fell back to LevelDB's log would not test the table
    // files; only a LevelDB whose formats were not verified has it off.
    const bool ingests = mode.bulk_load && !db.GetDB().IngestOff();
    BOOST_CHECK_EQUAL(db.LastFlushStats().ingested > 0, ingests);
    BOOST_CHECK_EQUAL(db.GetDB().IngestedFiles() > 0, ingests);
    db.SetBulkLoad(false);
    CheckStats(vec, db);

    const std::string expected_chainstate = ReadFileToString(vec.dir / "chainstate.txt");
    const std::string actual_chainstate = DumpChainstate(db.GetDB());
    BOOST_CHECK_EQUAL(std::ranges::count(actual_chainstate, '\n'), vec.expected["chainstate_entries"].get<int64_t>());
    BOOST_CHECK(actual_chainstate == expected_chainstate);

    const auto dumped = tmp.m_path / "dump.dat";
    {
        AutoFile out{OpenOrFail(dumped, "wb")};
        auto cursor = db.Cursor();
        const uint256 base = *uint256::FromHex(vec.expected["base_blockhash"].get<std::string>());
        WriteSnapshot(out, params.MessageStart(), base, vec.expected["coins_written"].get<uint64_t>(), *cursor);
        BOOST_REQUIRE_EQUAL(out.fclose(), 0);
    }
    const std::string bytes = ReadFileToString(dumped);
    const auto digest = Sha256(std::span{reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
    BOOST_CHECK_EQUAL(HexStr(digest), vec.expected["snapshot_sha256"].get<std::string>());
}

} // namespace

BOOST_AUTO_TEST_SUITE(vector_tests)

BOOST_AUTO_TEST_CASE(bitcoin_core_vectors, *boost::unit_test::precondition(VectorsAvailable))
{
    for (const auto& vec : CoreVectors("expected.json")) {
        for (const WriteMode& mode : WRITE_MODES) {
            BOOST_TEST_CONTEXT("vector " << vec.dir.filename() << ", " << mode.name) { CheckVector(vec, mode); }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
