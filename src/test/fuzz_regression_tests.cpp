// The fuzz targets (src/test/fuzz/) without libFuzzer: every input kept
// under src/test/data/fuzz_regressions/<target>/ is replayed through the
// target of that name, and each target is shown to see the seeds it is
// fuzzed from (shared/vectors, hand-made requests and operation sequences)
// the way the code it fuzzes does, so a target that silently stopped
// reaching its code would fail here rather than fuzz nothing.

#include <test/fuzz/fuzz.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>

#include <rpc/json.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace {

const std::filesystem::path REGRESSIONS{COINSDB_FUZZ_REGRESSIONS_DIR};

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) { return Bytes(ReadFileToString(path)); }

std::vector<std::filesystem::path> FilesIn(const std::filesystem::path& dir)
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator{dir}) {
        if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::ranges::sort(files);
    return files;
}

// shared/vectors/regtest-small, or empty when the vectors are not there
// (contrib/test.sh refuses to run CI without them).
std::filesystem::path SmallVector()
{
    const auto root = VectorsRoot();
    if (root.empty() || !std::filesystem::exists(root / "regtest-small" / "snapshot.dat")) return {};
    return root / "regtest-small";
}

// Writes operations in the byte encoding coins_cache_model.cpp reads, so
// that a test can say which operations run. Keep the two in step.
class CacheOps
{
public:
    explicit CacheOps(uint8_t batch_byte) { m_bytes.push_back(batch_byte); }

    // A P2PKH coin of `amount` satoshis (< 256) at outpoint `index` (0-31).
    CacheOps& Add(uint8_t index, uint8_t amount, bool possible_overwrite)
    {
        Op(0, {index, /*kind=P2PKH*/ 0, /*fill*/ 0x5a, /*amount kind=one byte*/ 2, amount,
               /*height*/ 7, 0, 0, 0, /*coinbase*/ 0, possible_overwrite});
        return *this;
    }
    CacheOps& Spend(uint8_t index) { return Op(2, {index, /*move_out*/ 1}); }
    CacheOps& Flush(uint8_t layer) { return Op(5, {layer}); }
    CacheOps& Sync(uint8_t layer) { return Op(6, {layer}); }
    CacheOps& Push() { return Op(7, {}); }
    CacheOps& Pop(bool write_back) { return Op(8, {write_back}); }
    CacheOps& CrashingFlush(uint8_t after_batches) { return Op(10, {/*flush*/ 1, uint8_t(after_batches - 1)}); }

    const std::vector<uint8_t>& Get() const { return m_bytes; }

private:
    CacheOps& Op(uint8_t op, std::initializer_list<uint8_t> args)
    {
        m_bytes.push_back(op);
        m_bytes.insert(m_bytes.end(), args);
        return *this;
    }
    std::vector<uint8_t> m_bytes;
};

} // namespace

BOOST_AUTO_TEST_SUITE(fuzz_regression_tests)

BOOST_AUTO_TEST_CASE(every_target_replays_its_regression_inputs)
{
    std::set<std::string> names;
    for (const FuzzTarget& target : AllFuzzTargets()) {
        names.emplace(target.name);
        const auto dir = REGRESSIONS / target.name;
        BOOST_REQUIRE_MESSAGE(std::filesystem::is_directory(dir), dir << " is missing");
        const auto files = FilesIn(dir);
        BOOST_CHECK_MESSAGE(!files.empty(), dir << " holds no input");
        for (const auto& file : files) {
            try {
                target.run(ReadBytes(file));
            } catch (const FuzzCheckFailure& e) {
                BOOST_ERROR(file << ": " << e.what());
            }
        }
    }
    // An input left in a directory no target reads would never run.
    for (const auto& entry : std::filesystem::directory_iterator{REGRESSIONS}) {
        BOOST_CHECK_MESSAGE(names.contains(entry.path().filename().string()), entry.path() << " names no fuzz target");
    }
}

BOOST_AUTO_TEST_CASE(fuzz_check_names_the_failed_condition)
{
    BOOST_CHECK_EXCEPTION(FUZZ_CHECK(1 + 1 == 3), FuzzCheckFailure, [](const FuzzCheckFailure& e) {
        return std::string{e.what()}.ends_with(": FUZZ_CHECK(1 + 1 == 3) failed");
    });
    BOOST_CHECK_NO_THROW(FUZZ_CHECK(1 + 1 == 2));
    BOOST_CHECK(FindFuzzTarget("coins_cache_model") != nullptr);
    BOOST_CHECK(FindFuzzTarget("no_such_target") == nullptr);
}

BOOST_AUTO_TEST_CASE(snapshot_reader_reads_cores_snapshot_whole, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto vector = SmallVector();
    BOOST_REQUIRE_MESSAGE(!vector.empty(), "no vectors found (set COINSDB_VECTORS)");
    const auto expected = nlohmann::json::parse(ReadFileToString(vector / "expected.json"));
    const auto snapshot = ReadBytes(vector / "snapshot.dat");
    const SnapshotReadOutcome outcome = ReadSnapshotForFuzz(snapshot);
    BOOST_CHECK_EQUAL(outcome.error, "");
    BOOST_CHECK(outcome.complete);
    BOOST_CHECK_EQUAL(outcome.coins_announced, expected["coins_written"].get<uint64_t>());
    BOOST_CHECK_EQUAL(outcome.coins_read, expected["coins_written"].get<uint64_t>());
}

BOOST_AUTO_TEST_CASE(snapshot_reader_refuses_truncated_and_extended_files, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto vector = SmallVector();
    BOOST_REQUIRE_MESSAGE(!vector.empty(), "no vectors found (set COINSDB_VECTORS)");
    const auto snapshot = ReadBytes(vector / "snapshot.dat");
    constexpr size_t HEADER_SIZE = 51;
    for (const size_t cut : {size_t{0}, size_t{5}, HEADER_SIZE - 1, HEADER_SIZE, HEADER_SIZE + 40, snapshot.size() / 2, snapshot.size() - 1}) {
        const SnapshotReadOutcome outcome = ReadSnapshotForFuzz(std::span{snapshot}.first(cut));
        BOOST_CHECK(!outcome.complete);
        const std::string expected_start = cut < HEADER_SIZE ? "Truncated snapshot header" : "Bad snapshot data after deserializing";
        BOOST_CHECK_MESSAGE(outcome.error.starts_with(expected_start), "cut at " << cut << ": " << outcome.error);
        if (cut >= HEADER_SIZE) BOOST_CHECK(outcome.error.find("bad format or truncated snapshot") != std::string::npos);
    }
    auto extended = snapshot;
    extended.push_back(0);
    const SnapshotReadOutcome outcome = ReadSnapshotForFuzz(extended);
    BOOST_CHECK(!outcome.complete);
    BOOST_CHECK_EQUAL(outcome.coins_read, outcome.coins_announced);
    BOOST_CHECK(outcome.error.ends_with("coins left over after the last coin the metadata announced"));
}

BOOST_AUTO_TEST_CASE(cores_chainstate_values_reencode_byte_for_byte, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto vector = SmallVector();
    BOOST_REQUIRE_MESSAGE(!vector.empty(), "no vectors found (set COINSDB_VECTORS)");
    std::ifstream lines{vector / "chainstate.txt"};
    std::string key, value;
    size_t coins = 0;
    while (lines >> key >> value) {
        if (!key.starts_with("43")) continue; // 'C' entries only
        const auto bytes = *TryParseHex(value);
        const auto coin = ReencodeCoin(bytes);
        BOOST_REQUIRE_MESSAGE(coin.has_value(), key);
        BOOST_CHECK_EQUAL(coin->consumed, bytes.size());
        // Bitcoin Core writes the special form wherever one exists, so
        // writing the coin again reproduces its bytes exactly.
        BOOST_CHECK_MESSAGE(coin->encoding == bytes, key);
        BOOST_CHECK_NO_THROW(FuzzCoinDecompression(bytes));
        ++coins;
    }
    const auto expected = nlohmann::json::parse(ReadFileToString(vector / "expected.json"));
    BOOST_CHECK_EQUAL(coins, expected["txouts"].get<size_t>());
}

BOOST_AUTO_TEST_CASE(generic_p2pkh_reencodes_in_special_form)
{
    // VARINT(7 * 2) | amount 9 (1 BTC) | VARINT(6 + 25) | the 25-byte script.
    const std::string p2pkh = "76a914" + std::string(40, 'a') + "88ac";
    const auto generic = *TryParseHex("0e" "09" "1f" + p2pkh);
    const auto coin = ReencodeCoin(generic);
    BOOST_REQUIRE(coin.has_value());
    BOOST_CHECK_EQUAL(coin->consumed, generic.size());
    BOOST_CHECK_EQUAL(HexStr(coin->encoding), "0e" "09" "00" + std::string(40, 'a'));
    BOOST_CHECK_NO_THROW(FuzzCoinDecompression(generic));
}

BOOST_AUTO_TEST_CASE(rpc_request_target_answers_like_the_server)
{
    struct Case {
        std::string body;
        int status;
        std::string reply;
    };
    const std::string deep(MAX_JSON_DEPTH + 1, '[');
    const std::vector<Case> cases{
        {R"({"method":"echo","params":[1,"x"],"id":7})", 200, R"({"result":[1,"x"],"error":null,"id":7})"},
        {R"({"method":"echo","params":{"b":true},"id":null})", 200, R"({"result":[null,true],"error":null,"id":null})"},
        {R"({"jsonrpc":"2.0","method":"fail","id":"a"})", 200, R"({"jsonrpc":"2.0","error":{"code":-8,"message":"fail always fails"},"id":"a"})"},
        {R"({"method":"amount","params":["x"],"id":1})", 500,
         R"({"result":null,"error":{"code":-3,"message":"JSON value of type string is not of expected type number"},"id":1})"},
        // The input UBSan stopped the first harness on (-1.05e32 as int64).
        {R"({"method":"amount","params":[-105000000000922337203685477580800],"id":1e141})", 500,
         R"({"result":null,"error":{"code":-3,"message":"Expected type number for satoshis"},"id":1e+141})"},
        {R"({"method":"amount","params":[-2100000000000000],"id":3})", 200, R"({"result":-21000000.00000000,"error":null,"id":3})"},
        {R"({"method":"nope","id":2})", 404, R"({"result":null,"error":{"code":-32601,"message":"Method not found"},"id":2})"},
        {R"([{"jsonrpc":"2.0","method":"echo"}])", 204, ""},
        {R"({"method":"echo","method":"fail"})", 400,
         R"({"result":null,"error":{"code":-32600,"message":"Duplicate key in JSON object: \"method\""},"id":null})"},
        {deep, 500, R"({"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null})"},
    };
    for (const auto& c : cases) {
        const RPCFuzzReply reply = HandleRPCBodyForFuzz(c.body);
        BOOST_CHECK_EQUAL(reply.http_status, c.status);
        BOOST_CHECK_EQUAL(reply.body, c.reply.empty() ? "" : c.reply + "\n");
        BOOST_CHECK_NO_THROW(FuzzRPCRequest(Bytes(c.body)));
    }
}

BOOST_AUTO_TEST_CASE(cache_model_reaches_the_database_and_a_crash)
{
    // Batch byte 0: one coin per batch, so that a flush has partial batches
    // for the simulated crash to land after.
    CacheOps ops{0};
    for (uint8_t i = 0; i < 6; ++i) ops.Add(i, 10 + i, /*possible_overwrite=*/false);
    ops.Push().Spend(0).Add(6, 50, false).Sync(1).Push().Spend(1).Pop(/*write_back=*/true);
    ops.CrashingFlush(/*after_batches=*/2);
    ops.Add(7, 70, false).Add(7, 71, /*possible_overwrite=*/false).Flush(1).Flush(0);

    const CacheModelStats stats = RunCacheModel(ops.Get());
    BOOST_CHECK_EQUAL(stats.steps, 18U);
    BOOST_CHECK_EQUAL(stats.coins_added, 8U);
    BOOST_CHECK_EQUAL(stats.overwrites_refused, 1U);
    BOOST_CHECK_EQUAL(stats.simulated_crashes, 1U);
    // The write completing the crashed one, then the last flush.
    BOOST_CHECK_EQUAL(stats.db_writes, 2U);
    BOOST_CHECK_EQUAL(stats.db_compares, 2U);
    BOOST_CHECK_EQUAL(stats.max_depth, 3U);
}

BOOST_AUTO_TEST_CASE(cache_model_without_partial_batches_never_crashes)
{
    // Batch byte 255: about 2 KB per batch, more than these coins take, so
    // the armed crash has no partial batch to follow and the write completes.
    CacheOps ops{255};
    for (uint8_t i = 0; i < 4; ++i) ops.Add(i, i, /*possible_overwrite=*/true);
    ops.CrashingFlush(/*after_batches=*/1);
    const CacheModelStats stats = RunCacheModel(ops.Get());
    BOOST_CHECK_EQUAL(stats.simulated_crashes, 0U);
    BOOST_CHECK_EQUAL(stats.db_writes, 1U);
    BOOST_CHECK_EQUAL(stats.db_compares, 1U);
}

BOOST_AUTO_TEST_CASE(hints_decoder_reads_a_file_whole_and_names_refusals)
{
    const HintsReadOutcome valid = ReadHintsForFuzz(ReadBytes(REGRESSIONS / "hints_decoder" / "valid-three-blocks"));
    BOOST_CHECK_EQUAL(valid.error, "");
    BOOST_CHECK(valid.complete);
    BOOST_CHECK_EQUAL(valid.height, 3U);
    BOOST_CHECK_EQUAL(valid.blocks_read, 3U);
    // A header announcing 2^32 - 1 blocks over one byte of objects ends at
    // once, without reserving anything for the blocks it announces.
    const HintsReadOutcome huge = ReadHintsForFuzz(ReadBytes(REGRESSIONS / "hints_decoder" / "huge-height-short-file"));
    BOOST_CHECK_EQUAL(huge.blocks_read, 1U);
    BOOST_CHECK(huge.error.starts_with("the file ends after block 1's hints"));
    const HintsReadOutcome bitmap = ReadHintsForFuzz(ReadBytes(REGRESSIONS / "hints_decoder" / "pr34004-bitmap"));
    BOOST_CHECK(bitmap.error.starts_with("looks like a bitmap hints file"));
    BOOST_CHECK(ReadHintsForFuzz({}).error.starts_with("truncated header"));
    BOOST_CHECK_NO_THROW(FuzzHintsDecoder(ReadBytes(REGRESSIONS / "hints_decoder" / "bip456-vector-1")));
}

BOOST_AUTO_TEST_SUITE_END()
