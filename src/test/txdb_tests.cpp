// CCoinsViewDB: coins and best block survive a flush and a reopen, flushes
// are split into batches bracketed by the 'H' marker, a simulated crash
// leaves 'H' = [new, old] behind and the next flush repairs it, the cursor
// walks coins in key order, only DIRTY entries reach the disk, and a bulk
// load writes no markers.

#include <coins.h>
#include <dbwrapper/codec.h>
#include <kernel/caches.h>
#include <test/util/cache_entries.h>
#include <test/util/coin_compare.h>
#include <test/util/db_params.h>
#include <test/util/ingest_available.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <txdb.h>
#include <util/log.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <leveldb/env.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <ranges>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

struct SimulatedCrash : std::runtime_error {
    SimulatedCrash() : std::runtime_error{"simulated crash"} {}
};

uint256 Hash(unsigned char first, unsigned char last = 0, unsigned char fill = 0x11)
{
    std::array<unsigned char, 32> bytes;
    bytes.fill(fill);
    bytes.front() = first;
    bytes.back() = last;
    return uint256{bytes};
}

// Varied coins: script shapes that compress differently, coinbase or not.
Coin MakeCoin(uint32_t seed)
{
    CScript script;
    switch (seed % 3) {
    case 0: // P2PKH
        script = CScript{OP_DUP, OP_HASH160, 0x14};
        script.insert(script.end(), 20, static_cast<unsigned char>(seed));
        script.insert(script.end(), {OP_EQUALVERIFY, OP_CHECKSIG});
        break;
    case 1: // P2SH
        script = CScript{OP_HASH160, 0x14};
        script.insert(script.end(), 20, static_cast<unsigned char>(seed >> 1));
        script.push_back(OP_EQUAL);
        break;
    default: // stored as is
        script = CScript(5 + seed % 40, static_cast<unsigned char>(0x51 + seed % 7));
        break;
    }
    return Coin{CTxOut{static_cast<CAmount>(1000 + seed * 7919), std::move(script)}, static_cast<int>(seed % 1000),
                seed % 5 == 0};
}

std::map<COutPoint, Coin> MakeCoins(size_t count, unsigned char txid_tag)
{
    std::map<COutPoint, Coin> coins;
    for (uint32_t i = 0; i < count; ++i) {
        coins.emplace(COutPoint{Hash(static_cast<unsigned char>(i * 13), txid_tag, static_cast<unsigned char>(i / 3)), i % 3},
                      MakeCoin(i + txid_tag));
    }
    return coins;
}

std::unique_ptr<FlaggedMap> DirtyMap(const std::map<COutPoint, Coin>& coins)
{
    auto batch = std::make_unique<FlaggedMap>();
    for (const auto& [outpoint, coin] : coins) batch->Add(outpoint, Coin{coin}, CCoinsCacheEntry::DIRTY | CCoinsCacheEntry::FRESH);
    return batch;
}

// Every batch through LevelDB's write path, bulk loads' too.
CoinsViewOptions ThroughLog(CoinsViewOptions options)
{
    options.ingest_tables = false;
    return options;
}

// Table files a run left unregistered in the database's directory.
size_t LeftoverRunFiles(const std::filesystem::path& path)
{
    return std::ranges::count_if(std::filesystem::directory_iterator{path}, [](const auto& entry) {
        return dbwrapper_ingest::IsIngestFileName(entry.path().filename().string());
    });
}

CoinsViewOptions CrashingOptions(size_t batch_bytes)
{
    return CoinsViewOptions{.batch_write_bytes = batch_bytes,
                            .simulate_crash_ratio = 1,
                            .on_simulated_crash = [] { throw SimulatedCrash{}; }};
}

size_t CountPresent(const CCoinsViewDB& db, const std::map<COutPoint, Coin>& coins)
{
    return std::ranges::count_if(coins, [&](const auto& entry) { return db.HaveCoin(entry.first); });
}

void CheckAllPresent(const CCoinsViewDB& db, const std::map<COutPoint, Coin>& coins)
{
    for (const auto& [outpoint, coin] : coins) {
        const auto stored = db.GetCoin(outpoint);
        BOOST_CHECK_MESSAGE(stored && SameCoin(*stored, coin), "coin " << outpoint.ToString() << " missing or different");
    }
}

// -debug=coindb for the scope, its lines captured.
class CoinDBLogCapture
{
public:
    CoinDBLogCapture() : m_was_enabled{logging::WillLog(logging::Category::COINDB)}
    {
        logging::EnableCategory(logging::Category::COINDB);
        logging::StartCapture();
    }
    ~CoinDBLogCapture()
    {
        if (!m_stopped) logging::StopCapture();
        if (!m_was_enabled) logging::DisableCategory(logging::Category::COINDB);
    }

    std::vector<std::string> Stop()
    {
        m_stopped = true;
        const std::string text = logging::StopCapture();
        std::vector<std::string> lines;
        size_t start = 0;
        while (start < text.size()) {
            const size_t end = text.find('\n', start);
            // Drop the timestamp: everything up to the first space.
            std::string line = text.substr(start, end - start);
            lines.push_back(line.substr(line.find(' ') + 1));
            start = end == std::string::npos ? text.size() : end + 1;
        }
        return lines;
    }

private:
    bool m_was_enabled;
    bool m_stopped{false};
};

size_t CountStartingWith(const std::vector<std::string>& lines, std::string_view prefix)
{
    return std::ranges::count_if(lines, [&](const std::string& line) { return line.starts_with(prefix); });
}

// VARINT per formats.md, written independently of serialize.h.
std::vector<unsigned char> TestVarInt(uint64_t n)
{
    std::vector<unsigned char> reversed{static_cast<unsigned char>(n & 0x7f)};
    while (n > 0x7f) {
        n = (n >> 7) - 1;
        reversed.push_back(static_cast<unsigned char>(0x80 | (n & 0x7f)));
    }
    return {reversed.rbegin(), reversed.rend()};
}

std::vector<std::string> Hexes(const std::vector<uint256>& hashes)
{
    std::vector<std::string> hexes;
    for (const auto& hash : hashes) hexes.push_back(hash.GetHex());
    return hexes;
}

std::string CommittedLine(size_t changed, size_t visited)
{
    return "[coindb] Committed " + std::to_string(changed) + " changed transaction outputs (out of " +
           std::to_string(visited) + ") to coin database...";
}

// Writes coins to db, flagged DIRTY, as one flush to best.
void WriteCoins(CCoinsViewDB& db, const std::map<COutPoint, Coin>& coins, const uint256& best) { DirtyMap(coins)->WriteTo(db, best); }

// What the last completed BatchWrite of db reports having written.
void CheckLastWrite(const CCoinsViewDB& db, size_t changed, size_t visited)
{
    BOOST_CHECK_EQUAL(db.LastFlushStats().changed, changed);
    BOOST_CHECK_EQUAL(db.LastFlushStats().visited, visited);
    BOOST_CHECK_GE(db.LastFlushStats().batches, 1U);
}

// A completed BatchWrite opens with the resident set it starts from and
// ends with the Committed line, then the timing line in the format
// published flush measurements parse.
void CheckWriteEnded(const std::vector<std::string>& lines, size_t changed, size_t visited)
{
    BOOST_REQUIRE_GE(lines.size(), 3U);
    static const std::regex START{R"(\[coindb\] BatchWrite started, rss=(\d+)MiB)"};
    std::smatch start;
    BOOST_REQUIRE_MESSAGE(std::regex_match(lines.front(), start, START), lines.front());
    BOOST_CHECK_EQUAL(lines[lines.size() - 2], CommittedLine(changed, visited));
    static const std::regex TIMING{R"(BatchWrite took=(\d+)ms, maxMem=(\d+)MiB)"};
    std::smatch timing;
    BOOST_REQUIRE_MESSAGE(std::regex_match(lines.back(), timing, TIMING), lines.back());
    // This process is resident in at least one MiB, and the peak counts
    // the starting point.
    BOOST_CHECK_GT(std::stoull(start[1]), 0U);
    BOOST_CHECK_GE(std::stoull(timing[2]), std::stoull(start[1]));
}

// Bytes in LevelDB's log files: writes no table holds yet.
uintmax_t LogBytes(const std::filesystem::path& path)
{
    uintmax_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator{path}) {
        if (entry.path().extension() == ".log") bytes += entry.file_size();
    }
    return bytes;
}

} // namespace

BOOST_AUTO_TEST_SUITE(txdb_tests)

BOOST_AUTO_TEST_CASE(round_trip)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const auto coins = MakeCoins(300, 0xa1);
    const uint256 best = Hash(0xb0, 0x01);
    {
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
        BOOST_CHECK(db.GetBestBlock().IsNull());
        BOOST_CHECK(db.GetHeadBlocks().empty());
        CCoinsViewCache cache{&db};
        for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
        cache.SetBestBlock(best);
        cache.Flush();
        BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), best.GetHex());
        CheckAllPresent(db, coins);
    }

    CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), best.GetHex());
    BOOST_CHECK(db.GetHeadBlocks().empty());
    CheckAllPresent(db, coins);
    // Neighbours of stored coins are absent.
    const COutPoint first = coins.begin()->first;
    for (const COutPoint& absent : {COutPoint{first.hash, 3}, COutPoint{first.hash, COutPoint::NULL_INDEX},
                                    COutPoint{Hash(0xb0, 0x01), 0}}) {
        BOOST_CHECK(!db.HaveCoin(absent));
        BOOST_CHECK(!db.GetCoin(absent));
    }
}

BOOST_AUTO_TEST_CASE(key_bytes)
{
    CCoinsViewDB db{DBParams{.path = "keys", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    const uint256 txid = Hash(0x01, 0xfe, 0x22);
    const uint256 best = Hash(0xbb, 0xcc);
    std::map<COutPoint, Coin> coins{{COutPoint{txid, 0}, MakeCoin(0)}, {COutPoint{txid, 128}, MakeCoin(1)}};
    auto map = DirtyMap(coins);
    map->WriteTo(db, best);
    BOOST_CHECK_EQUAL(map->FlaggedCount(), 0U);

    // Every key and value as Core's chainstate would hold them, in order.
    std::vector<std::string> rows;
    auto it = db.GetDB().NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const std::string key_hex = HexStr(it->RawKey());
        if (key_hex.starts_with("0e00")) continue;
        rows.push_back(key_hex + " " + HexStr(it->DeobfuscatedValue()));
    }
    const std::string txid_hex = HexStr(std::span{txid.begin(), txid.end()});
    const std::string best_hex = HexStr(std::span{best.begin(), best.end()});
    auto coin_value = [](const Coin& coin) {
        DataStream stream;
        stream << coin;
        return HexStr(stream.Unread());
    };
    const std::vector<std::string> expected{
        "42 " + best_hex,
        "43" + txid_hex + "00 " + coin_value(coins.begin()->second),
        "43" + txid_hex + "8000 " + coin_value(std::next(coins.begin())->second),
    };
    BOOST_CHECK_EQUAL_COLLECTIONS(rows.begin(), rows.end(), expected.begin(), expected.end());
    // The raw 'B' entry is the best block.
    uint256 raw_best;
    BOOST_CHECK(db.GetDB().Read(uint8_t{'B'}, raw_best));
    BOOST_CHECK_EQUAL(raw_best.GetHex(), best.GetHex());
    BOOST_CHECK(!db.GetDB().Exists(uint8_t{'H'}));
}

// A flush in many batches, its coins in key order (a snapshot load's) and
// in reverse (out of key order, as a cache's order of first change is).
// In key order, every partial batch but the first goes to LevelDB beside
// the walk: the first holds the 'H' marker ahead of its coins ('H' > 'C'),
// and the final batch is written once the walk is over. Out of key order,
// no batch is. The database ends the same either way.
BOOST_AUTO_TEST_CASE(multi_batch_flush)
{
    for (const bool in_key_order : {true, false}) {
        BOOST_TEST_CONTEXT("in key order: " << in_key_order)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "chainstate";
            const auto coins = MakeCoins(120, 0xa2);
            const uint256 best = Hash(0xb1, 0x02);
            {
                CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = 200}};
                FlaggedMap map;
                const auto add = [&](const auto& entry) { map.Add(entry.first, Coin{entry.second}, CCoinsCacheEntry::DIRTY | CCoinsCacheEntry::FRESH); };
                if (in_key_order) {
                    std::ranges::for_each(coins, add);
                } else {
                    std::ranges::for_each(coins | std::views::reverse, add);
                }
                map.WriteTo(db, best);

                // Each coin record is ~60-80 bytes: a 200-byte budget means a
                // partial batch every few coins, then the final one.
                const auto& stats = db.LastFlushStats();
                BOOST_CHECK_GE(stats.batches, coins.size() / 5 + 1);
                BOOST_CHECK_LE(stats.batches, coins.size() + 1);
                CheckLastWrite(db, coins.size(), coins.size());
                BOOST_CHECK_EQUAL(map.FlaggedCount(), 0U);
                BOOST_CHECK_EQUAL(stats.overlapped, in_key_order ? stats.batches - 2 : 0U);
            }
            CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
            BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), best.GetHex());
            BOOST_CHECK(db.GetHeadBlocks().empty());
            CheckAllPresent(db, coins);
        }
    }
}

// A flush that returned survives a crash of the process: the log order
// layer (dbwrapper/env.h) holds a new log's bytes back until the memtable
// before them is a table, and BatchWrite waits for them to be handed on.
// Table files here are created 300 ms late, so that the last batch's log is
// still held when the walk ends; the directory as the kernel has it right
// after BatchWrite returns (a copy, taken while the database is open) must
// open at the new best block with every coin. Without the wait it opened
// at the 'H' marker, the last batch missing.
BOOST_AUTO_TEST_CASE(returned_flush_survives_a_process_crash)
{
    class SlowTablesEnv final : public leveldb::EnvWrapper
    {
    public:
        SlowTablesEnv() : leveldb::EnvWrapper{leveldb::Env::Default()} {}
        leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
        {
            if (name.ends_with(".ldb")) std::this_thread::sleep_for(std::chrono::milliseconds{300});
            return target()->NewWritableFile(name, result);
        }
    };
    SlowTablesEnv env;
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const auto copy = tmp.m_path / "after_return";
    // MakeCoins' txids repeat past a few hundred coins.
    std::map<COutPoint, Coin> coins;
    for (uint32_t i = 0; i < 6000; ++i) coins.emplace(COutPoint{Hash(static_cast<unsigned char>(i), 0xa7, static_cast<unsigned char>(i >> 8)), 0}, MakeCoin(i));
    const uint256 best = Hash(0xb7, 0x02);
    {
        // LevelDB's smallest write buffer, 64 KiB: each ~80 KB batch gets a
        // memtable and a log of its own.
        const DBParams params{.path = path, .cache_bytes = 256 << 10, .options = {.base_env_for_tests = &env}};
        CCoinsViewDB db{params, ThroughLog(CoinsViewOptions{.batch_write_bytes = 80'000})};
        WriteCoins(db, coins, best);
        // File by file: LevelDB may be deleting files it no longer needs
        // (the log just made a table) while this copies, and a crash would
        // not find those either.
        std::filesystem::create_directory(copy);
        for (const auto& entry : std::filesystem::directory_iterator{path}) {
            std::error_code ec;
            std::filesystem::copy_file(entry.path(), copy / entry.path().filename(), ec);
            BOOST_REQUIRE_MESSAGE(!ec || ec == std::errc::no_such_file_or_directory, entry.path() << ": " << ec.message());
        }
        BOOST_CHECK_GE(db.LastFlushStats().batches, 3U);
    }
    CCoinsViewDB db{OnDisk(copy), CoinsViewOptions{}};
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), best.GetHex());
    BOOST_CHECK(db.GetHeadBlocks().empty());
    CheckAllPresent(db, coins);
}

// A flush with nothing to change writes nothing: no crash markers either.
// Written through the log, 'B' and 'H' would become, at the next start, a
// small table spanning every coin key, which reads charge seeks to until
// LevelDB merges it with every table below: the whole chainstate rewritten
// after each restart (contrib/bench/restart_rewrites.py measured 99.6% per
// restart-and-read cycle of a 2M-coin load). A flush to another block, or
// with a changed coin, still writes both markers.
BOOST_AUTO_TEST_CASE(nothing_to_write_writes_nothing)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const auto coins = MakeCoins(50, 0xa7);
    const uint256 best = Hash(0xb7, 0x01);
    {
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
        DirtyMap(coins)->WriteTo(db, best);
    }
    // Reopened, the first write's log became a table: the log is empty.
    CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
    BOOST_REQUIRE_EQUAL(LogBytes(path), 0U);

    FlaggedMap nothing;
    CoinDBLogCapture capture;
    nothing.WriteTo(db, best);
    const auto lines = capture.Stop();
    BOOST_CHECK_EQUAL(LogBytes(path), 0U);
    BOOST_CHECK_EQUAL(db.LastFlushStats().changed, 0U);
    BOOST_CHECK_EQUAL(db.LastFlushStats().batches, 0U);
    BOOST_CHECK_EQUAL(CountStartingWith(lines, "BatchWrite took="), 1U);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), best.GetHex());

    // Another block with no coin changed: the markers move it there.
    const uint256 next = Hash(0xb7, 0x02);
    nothing.WriteTo(db, next);
    BOOST_CHECK_GT(LogBytes(path), 0U);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), next.GetHex());
    BOOST_CHECK(db.GetHeadBlocks().empty());
    CheckAllPresent(db, coins);
}

// The lines a BatchWrite logs are an interface of their own: published
// flush measurements and the functional tests parse them. They say what
// LastFlushStats says: a line per LevelDB write, then the Committed line
// and the timing line.
BOOST_AUTO_TEST_CASE(batch_write_log_lines)
{
    CCoinsViewDB db{DBParams{.path = "log_lines", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = 200}};
    const auto coins = MakeCoins(40, 0xa9);
    auto map = DirtyMap(coins);
    CoinDBLogCapture capture;
    map->WriteTo(db, Hash(0xb4, 0x01));
    const auto lines = capture.Stop();
    const auto& stats = db.LastFlushStats();
    BOOST_CHECK_GT(stats.batches, 1U);
    BOOST_CHECK_EQUAL(CountStartingWith(lines, "[coindb] Writing partial batch of 0.00 MiB"), stats.batches - 1);
    BOOST_CHECK_EQUAL(CountStartingWith(lines, "[coindb] Writing final batch of 0.00 MiB"), 1U);
    BOOST_CHECK_EQUAL(CountStartingWith(lines, "[coindb] Writing "), stats.batches);
    CheckWriteEnded(lines, stats.changed, stats.visited);
    BOOST_CHECK_EQUAL(lines.back(), "BatchWrite took=" + std::to_string(static_cast<int64_t>(stats.duration_ms)) +
                                        "ms, maxMem=" + std::to_string(stats.peak_rss_bytes >> 20) + "MiB");
}

BOOST_AUTO_TEST_CASE(simulated_crash_then_recovery)
{
    struct Case {
        std::string name;
        bool has_old_tip;
    };
    for (const auto& test : {Case{"over an existing tip", true}, Case{"on a new database", false}}) {
        BOOST_TEST_CONTEXT(test.name)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "chainstate";
            const auto old_coins = MakeCoins(20, 0xa3);
            const auto new_coins = MakeCoins(100, 0xa4);
            const uint256 old_tip = test.has_old_tip ? Hash(0xb2, 0x03) : uint256{};
            const uint256 new_tip = Hash(0xb3, 0x04);
            if (test.has_old_tip) {
                CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
                auto map = DirtyMap(old_coins);
                map->WriteTo(db, old_tip);
            }

            {
                CCoinsViewDB db{OnDisk(path), CrashingOptions(200)};
                auto map = DirtyMap(new_coins);
                BOOST_CHECK_THROW(map->WriteTo(db, new_tip), SimulatedCrash);
                // A write that did not end is not reported as one.
                BOOST_CHECK_EQUAL(db.LastFlushStats().batches, 0U);

                // The database admits to holding a mix of the two states.
                BOOST_CHECK(db.GetBestBlock().IsNull());
                const std::vector<std::string> expected_heads{new_tip.GetHex(), old_tip.GetHex()};
                const auto heads = Hexes(db.GetHeadBlocks());
                BOOST_CHECK_EQUAL_COLLECTIONS(heads.begin(), heads.end(), expected_heads.begin(), expected_heads.end());
                // Only the first batch landed.
                const size_t landed = CountPresent(db, new_coins);
                BOOST_CHECK_GT(landed, 0U);
                BOOST_CHECK_LT(landed, new_coins.size() / 4);
                // The cursor counted down what landed and no more.
                BOOST_CHECK_EQUAL(map->dirty_count, new_coins.size() - landed);
                BOOST_CHECK_EQUAL(map->dirty_count, map->FlaggedCount());
                BOOST_CHECK_EQUAL(CountPresent(db, old_coins), test.has_old_tip ? old_coins.size() : 0U);
            }

            // After a restart, the flush to the same target is done again
            // (the caller replays the blocks) and completes.
            CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = 200}};
            BOOST_CHECK(db.GetBestBlock().IsNull());
            BOOST_CHECK_EQUAL(db.GetHeadBlocks().size(), 2U);
            auto map = DirtyMap(new_coins);
            map->WriteTo(db, new_tip);
            CheckLastWrite(db, new_coins.size(), new_coins.size());
            BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), new_tip.GetHex());
            BOOST_CHECK(db.GetHeadBlocks().empty());
            BOOST_CHECK(!db.GetDB().Exists(uint8_t{'H'}));
            CheckAllPresent(db, new_coins);
            if (test.has_old_tip) CheckAllPresent(db, old_coins);
        }
    }
}

// A bulk load trades the markers for disjoint LevelDB tables: between two
// batches of its flushes there is no 'H', and 'B' is the load's target from
// the first batch of its first flush on, however many flushes follow.
// Switched off, the same database is written with the markers again. (Its
// batches go through LevelDB's log here; bulk_load_ingests_runs has the
// batches that go into table files.)
BOOST_AUTO_TEST_CASE(bulk_load_writes_no_markers)
{
    struct Case {
        std::string name;
        // What the database holds before the bulk flushes.
        bool old_tip;
        bool leftover_heads;
    };
    const Case cases[]{
        {"new database", false, false},
        {"over another tip", true, false},
        {"over an interrupted flush", false, true},
    };
    for (const auto& test : cases) {
        BOOST_TEST_CONTEXT(test.name)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "chainstate";
            const uint256 earlier = Hash(0xc1, 0x01);
            const uint256 target = Hash(0xc2, 0x02);
            const auto first = MakeCoins(60, 0xc3);
            const auto second = MakeCoins(60, 0xc4);
            if (test.old_tip) {
                CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
                WriteCoins(db, MakeCoins(10, 0xc5), earlier);
            }
            if (test.leftover_heads) {
                CCoinsViewDB db{OnDisk(path), CrashingOptions(200)};
                BOOST_CHECK_THROW(WriteCoins(db, MakeCoins(60, 0xc5), earlier), SimulatedCrash);
                BOOST_REQUIRE_EQUAL(db.GetHeadBlocks().size(), 2U);
            }

            for (const auto* coins : {&first, &second}) {
                CCoinsViewDB db{OnDisk(path), ThroughLog(CrashingOptions(200))};
                db.SetBulkLoad(true);
                // Stopped after the first batch, as a crash would.
                BOOST_CHECK_THROW(WriteCoins(db, *coins, target), SimulatedCrash);
                BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
                BOOST_CHECK(db.GetHeadBlocks().empty());
                BOOST_CHECK(!db.GetDB().Exists(uint8_t{'H'}));
                BOOST_CHECK_GT(CountPresent(db, *coins), 0U);
                BOOST_CHECK_LT(CountPresent(db, *coins), coins->size());
            }
            {
                CCoinsViewDB db{OnDisk(path), ThroughLog(CoinsViewOptions{.batch_write_bytes = 200})};
                db.SetBulkLoad(true);
                WriteCoins(db, first, target);
                WriteCoins(db, second, target);
                BOOST_CHECK_GT(db.LastFlushStats().batches, 1U);
                // No markers: every partial batch is in key order.
                BOOST_CHECK_EQUAL(db.LastFlushStats().overlapped, db.LastFlushStats().batches - 1);
                BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
                BOOST_CHECK(db.GetHeadBlocks().empty());
                CheckAllPresent(db, first);
                CheckAllPresent(db, second);
            }

            // Without bulk load (the default) the next flush is marked again.
            CCoinsViewDB db{OnDisk(path), CrashingOptions(200)};
            BOOST_CHECK(!db.IsBulkLoad());
            const uint256 next = Hash(0xc6, 0x03);
            BOOST_CHECK_THROW(WriteCoins(db, MakeCoins(60, 0xc7), next), SimulatedCrash);
            BOOST_CHECK(db.GetBestBlock().IsNull());
            const std::vector<std::string> expected_heads{next.GetHex(), target.GetHex()};
            const auto heads = Hexes(db.GetHeadBlocks());
            BOOST_CHECK_EQUAL_COLLECTIONS(heads.begin(), heads.end(), expected_heads.begin(), expected_heads.end());
        }
    }
}

BOOST_AUTO_TEST_CASE(one_batch_buffer_without_overlap)
{
    // overlap_batches off (small caches): every partial batch, ingested or
    // through the log, is written on the flushing thread, none beside it,
    // and the flush keeps every coin.
    for (const bool ingest : {true, false}) {
        BOOST_TEST_CONTEXT("ingest " << ingest)
        {
            TempDirFixture tmp;
            const uint256 target = Hash(0xd1, 0x01);
            const auto coins = MakeCoins(60, 0xd2);
            CoinsViewOptions options{.batch_write_bytes = 200, .ingest_tables = ingest, .overlap_batches = false};
            CCoinsViewDB db{OnDisk(tmp.m_path / "chainstate"), options};
            db.SetBulkLoad(true);
            WriteCoins(db, coins, target);
            const CoinsFlushStats stats = db.LastFlushStats();
            BOOST_CHECK_GT(stats.batches, 2U);
            BOOST_CHECK_EQUAL(stats.overlapped, 0U);
            BOOST_CHECK_EQUAL(stats.ingested, ingest ? stats.batches : 0U);
            BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
            CheckAllPresent(db, coins);
        }
    }
}

BOOST_AUTO_TEST_CASE(single_batch_flush_never_crashes)
{
    // The crash point sits after partial batches only: a flush that fits in
    // one batch goes straight to the final one.
    CCoinsViewDB db{DBParams{.path = "one_batch", .memory_only = true}, CrashingOptions(DEFAULT_DB_CACHE_BATCH)};
    const auto coins = MakeCoins(50, 0xa5);
    auto map = DirtyMap(coins);
    BOOST_CHECK_NO_THROW(map->WriteTo(db, Hash(0xb4)));
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), Hash(0xb4).GetHex());
    BOOST_CHECK(db.GetHeadBlocks().empty());
    BOOST_CHECK_EQUAL(CountPresent(db, coins), coins.size());
}

BOOST_AUTO_TEST_CASE(varint_key_encoding)
{
    // Hand-checked encodings pin the test's own encoder used below.
    const std::vector<std::pair<uint32_t, std::string>> cases{
        {0, "00"},         {1, "01"},           {127, "7f"},           {128, "8000"},       {129, "8001"},
        {255, "807f"},     {256, "8100"},       {16383, "fe7f"},       {16511, "ff7f"},     {16512, "808000"},
        {70000, "83a170"}, {2113663, "ffff7f"}, {2113664, "80808000"}, {0xffffffff, "8efefefe7f"},
    };
    for (const auto& [n, hex] : cases) {
        BOOST_CHECK_EQUAL(HexStr(TestVarInt(n)), hex);
        DataStream stream;
        WriteVarInt(stream, n);
        BOOST_CHECK_EQUAL(HexStr(stream.Unread()), hex);
    }
}

BOOST_AUTO_TEST_CASE(cursor_in_key_order)
{
    // Internal byte order and displayed (reversed) hex order disagree for
    // these txids, and the output indexes cross every VARINT length.
    const std::vector<uint256> txids{Hash(0x02, 0x00), Hash(0x01, 0xff), Hash(0x01, 0x00, 0x12), Hash(0xff, 0x00)};
    const std::vector<uint32_t> vouts{0, 1, 127, 128, 129, 255, 256, 16383, 16511, 16512, 16513, 70000, 2113663,
                                      2113664, 0x7fffffff, 0xfffffffe};
    std::vector<std::pair<COutPoint, Coin>> shuffled;
    uint32_t seed = 0;
    for (const auto& txid : txids) {
        for (const uint32_t vout : vouts) shuffled.emplace_back(COutPoint{txid, vout}, MakeCoin(seed++));
    }
    std::ranges::shuffle(shuffled, std::mt19937{42});

    TempDirFixture tmp;
    CCoinsViewDB db{OnDisk(tmp.m_path / "chainstate"), CoinsViewOptions{.batch_write_bytes = 300}};
    CCoinsViewCache cache{&db};
    for (auto& [outpoint, coin] : shuffled) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
    const uint256 best = Hash(0xb5);
    cache.SetBestBlock(best);
    cache.Flush();

    const std::map<COutPoint, Coin> by_outpoint{shuffled.begin(), shuffled.end()};
    std::vector<COutPoint> walked;
    auto cursor = db.Cursor();
    BOOST_REQUIRE(cursor);
    BOOST_CHECK_EQUAL(cursor->GetBestBlock().GetHex(), best.GetHex());
    for (; cursor->Valid(); cursor->Next()) {
        COutPoint key;
        Coin coin;
        BOOST_REQUIRE(cursor->GetKey(key));
        BOOST_REQUIRE(cursor->GetValue(coin));
        const auto it = by_outpoint.find(key);
        BOOST_REQUIRE_MESSAGE(it != by_outpoint.end(), "cursor yielded unknown " << key.ToString());
        BOOST_CHECK(SameCoin(coin, it->second));
        walked.push_back(key);
    }
    COutPoint after_end;
    BOOST_CHECK(!cursor->GetKey(after_end));

    // Key order is the byte order of 'C' txid VARINT(vout), as in Core's
    // chainstate (and so in hash_serialized_3 and snapshots): txid bytes
    // first, then the VARINT bytes. Those follow the numeric order only
    // while they are one or two bytes long (vout < 16512); e.g. 16512
    // (80 80 00) sorts before 256 (81 00) and 16511 (ff 7f).
    std::vector<COutPoint> expected_order;
    for (const auto& [outpoint, coin] : by_outpoint) expected_order.push_back(outpoint);
    std::ranges::sort(expected_order, {}, [](const COutPoint& o) {
        std::vector<unsigned char> key(o.hash.begin(), o.hash.end());
        key.insert(key.begin(), 'C');
        const auto varint = TestVarInt(o.n);
        key.insert(key.end(), varint.begin(), varint.end());
        return key;
    });
    BOOST_REQUIRE_EQUAL(walked.size(), expected_order.size());
    for (size_t i = 0; i < walked.size(); ++i) {
        BOOST_CHECK_MESSAGE(walked[i] == expected_order[i],
                            "position " << i << ": " << walked[i].ToString() << " instead of " << expected_order[i].ToString());
    }

    // CoinKeyLess, which the snapshot loader checks its input with, agrees
    // with the database on every pair.
    for (size_t i = 0; i < walked.size(); ++i) {
        for (size_t j = 0; j < walked.size(); ++j) {
            BOOST_REQUIRE_MESSAGE(CoinKeyLess(walked[i], walked[j]) == (i < j), "CoinKeyLess at " << i << ", " << j);
        }
    }

    // Spelled out for one txid.
    const std::vector<uint32_t> expected_vouts{0, 1, 127, 128, 129, 255, 16512, 16513, 2113664, 256, 70000,
                                               0x7fffffff, 0xfffffffe, 16383, 16511, 2113663};
    std::vector<uint32_t> walked_vouts;
    for (const auto& o : walked) {
        if (o.hash == txids[0]) walked_vouts.push_back(o.n);
    }
    BOOST_CHECK_EQUAL_COLLECTIONS(walked_vouts.begin(), walked_vouts.end(), expected_vouts.begin(), expected_vouts.end());
    // Below 16512 the order is numeric.
    for (const auto& txid : txids) {
        std::vector<uint32_t> small;
        for (const auto& o : walked) {
            if (o.hash == txid && o.n < 16512) small.push_back(o.n);
        }
        BOOST_CHECK(std::ranges::is_sorted(small));
        BOOST_CHECK_EQUAL(small.size(), 9U);
    }
    // Txids in internal byte order, each one's coins contiguous.
    std::vector<uint256> txid_order;
    for (const auto& o : walked) {
        if (txid_order.empty() || txid_order.back() != o.hash) txid_order.push_back(o.hash);
    }
    // Byte 1 (0x11 vs 0x12) decides between the two starting with 01.
    const std::vector<uint256> expected_txids{Hash(0x01, 0xff), Hash(0x01, 0x00, 0x12), Hash(0x02, 0x00), Hash(0xff, 0x00)};
    BOOST_CHECK(txid_order == expected_txids);
}

BOOST_AUTO_TEST_CASE(cursor_skips_non_coin_keys)
{
    // 'B' sorts before the coins and 'H' after: neither shows up, whether
    // the database is consistent or in the middle of a flush.
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const auto coins = MakeCoins(60, 0xa6);
    {
        CCoinsViewDB db{OnDisk(path), CrashingOptions(200)};
        auto map = DirtyMap(coins);
        BOOST_CHECK_THROW(map->WriteTo(db, Hash(0xb6)), SimulatedCrash);
        BOOST_REQUIRE(db.GetDB().Exists(uint8_t{'H'}));
        size_t walked = 0;
        for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++walked;
        BOOST_CHECK_EQUAL(walked, CountPresent(db, coins));
        BOOST_CHECK(db.Cursor()->GetBestBlock().IsNull());
    }
    CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    auto map = DirtyMap(coins);
    map->WriteTo(db, Hash(0xb6));
    size_t walked = 0;
    for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++walked;
    BOOST_CHECK_EQUAL(walked, coins.size());

    // An empty database has nothing to walk.
    CCoinsViewDB empty{DBParams{.path = "empty", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    BOOST_CHECK(!empty.Cursor()->Valid());
}

BOOST_AUTO_TEST_CASE(cursor_throws_past_an_unreadable_block)
{
    // The walk ends at 'H', a key after the coins, where the iterator is
    // still valid: the cursor checks there that it stepped over no block it
    // could not read, rather than answering with a block's coins missing.
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const auto coins = MakeCoins(2000, 0xa7);
    {
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
        WriteCoins(db, coins, Hash(0xb7));
        db.GetDB().Write(uint8_t{'H'}, std::vector<uint256>{Hash(0xb8), Hash(0xb7)});
        db.GetDB().CompactFull();
    }
    std::filesystem::path table;
    for (const auto& entry : std::filesystem::directory_iterator{path}) {
        if (entry.path().extension() == ".ldb") table = entry.path();
    }
    BOOST_REQUIRE(!table.empty());
    {
        // A coin block: the middle of the only table.
        std::fstream f{table, std::ios::in | std::ios::out | std::ios::binary};
        f.seekp(std::filesystem::file_size(table) / 2);
        f.write("\xde\xad\xbe\xef\xde\xad\xbe\xef", 8);
    }
    CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    size_t walked = 0;
    const auto walk = [&] {
        for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++walked;
    };
    BOOST_CHECK_EXCEPTION(walk(), dbwrapper_error, [](const dbwrapper_error& e) {
        return std::string{e.what()} == "Fatal LevelDB error in chainstate: Corruption: block checksum mismatch";
    });
    BOOST_CHECK_GT(walked, 0U);
    BOOST_CHECK_LT(walked, coins.size());
}

BOOST_AUTO_TEST_CASE(only_dirty_entries_are_written)
{
    using F = CCoinsCacheEntry::Flags;
    // What BatchWrite does with each kind of cache entry.
    struct Row {
        const char* name;
        bool in_db_before;  // the database holds OLD_VALUE at this outpoint
        bool entry_spent;   // the entry holds a spent coin, else NEW_VALUE
        uint8_t flags;
        std::optional<int> expected; // 0: the old coin, 1: the new one, nullopt: absent
    };
    const std::vector<Row> rows{
        // name                          db     spent  flags                expected
        {"new coin, DIRTY",              false, false, F::DIRTY,            1},
        {"new coin, DIRTY|FRESH",        false, false, F::DIRTY | F::FRESH, 1},
        {"new coin, clean",              false, false, 0,                   std::nullopt},
        {"changed coin, DIRTY",          true,  false, F::DIRTY,            1},
        {"changed coin, clean",          true,  false, 0,                   0},
        {"spend of stored coin, DIRTY",  true,  true,  F::DIRTY,            std::nullopt},
        {"spent entry, clean",           true,  true,  0,                   0},
        {"spend of absent coin, DIRTY",  false, true,  F::DIRTY,            std::nullopt},
    };
    const size_t dirty_rows = std::ranges::count_if(rows, [](const Row& r) { return r.flags & F::DIRTY; });

    CCoinsViewDB db{DBParams{.path = "dirty", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    auto outpoint_of = [](size_t i) { return COutPoint{Hash(0xd0, static_cast<unsigned char>(i)), static_cast<uint32_t>(i)}; };
    const Coin old_value = MakeCoin(1);
    const Coin new_value = MakeCoin(2);
    BOOST_REQUIRE(!SameCoin(old_value, new_value));

    FlaggedMap setup;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].in_db_before) setup.Add(outpoint_of(i), Coin{old_value}, F::DIRTY);
    }
    setup.WriteTo(db, Hash(0xb7));

    FlaggedMap map;
    for (size_t i = 0; i < rows.size(); ++i) {
        Coin coin{new_value};
        if (rows[i].entry_spent) coin.Clear();
        map.Add(outpoint_of(i), std::move(coin), rows[i].flags);
    }
    map.WriteTo(db, Hash(0xb8));
    // Only the flagged entries were visited and released (a flush's cursor
    // erases nothing: the cache drops its map afterwards).
    BOOST_CHECK_EQUAL(map.FlaggedCount(), 0U);
    BOOST_CHECK_EQUAL(map.map.size(), rows.size());
    CheckLastWrite(db, dirty_rows, dirty_rows);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), Hash(0xb8).GetHex());

    for (size_t i = 0; i < rows.size(); ++i) {
        BOOST_TEST_CONTEXT(rows[i].name)
        {
            const auto stored = db.GetCoin(outpoint_of(i));
            BOOST_CHECK_EQUAL(stored.has_value(), rows[i].expected.has_value());
            BOOST_CHECK_EQUAL(db.HaveCoin(outpoint_of(i)), rows[i].expected.has_value());
            if (stored && rows[i].expected) BOOST_CHECK(SameCoin(*stored, *rows[i].expected ? new_value : old_value));
        }
    }
}

BOOST_AUTO_TEST_CASE(spends_through_a_cache)
{
    CCoinsViewDB db{DBParams{.path = "spends", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    const auto coins = MakeCoins(10, 0xa7);
    WriteCoins(db, coins, Hash(0xb9));

    // Spend every other coin and read the rest, which stay clean.
    CCoinsViewCache cache{&db};
    std::set<COutPoint> spent;
    bool spend = true;
    for (const auto& [outpoint, coin] : coins) {
        if (spend) {
            BOOST_CHECK(cache.SpendCoin(outpoint));
            spent.insert(outpoint);
        } else {
            BOOST_CHECK(SameCoin(cache.AccessCoin(outpoint), coin));
        }
        spend = !spend;
    }
    cache.SetBestBlock(Hash(0xba));
    cache.Flush();
    // The clean half is never visited.
    CheckLastWrite(db, spent.size(), spent.size());
    for (const auto& [outpoint, coin] : coins) {
        BOOST_CHECK_EQUAL(db.HaveCoin(outpoint), !spent.contains(outpoint));
    }
}

BOOST_AUTO_TEST_CASE(sync_through_a_cache_keeps_coins)
{
    CCoinsViewDB db{DBParams{.path = "sync", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    const auto coins = MakeCoins(1000, 0xa8);
    WriteCoins(db, coins, Hash(0xbd));

    // Every coin cached clean, then 10 changes: 5 spends, 5 new coins.
    CCoinsViewCache cache{&db};
    for (const auto& [outpoint, coin] : coins) BOOST_REQUIRE(cache.HaveCoin(outpoint));
    std::map<COutPoint, Coin> expected = coins;
    auto it = coins.begin();
    for (int i = 0; i < 5; ++i, ++it) {
        BOOST_REQUIRE(cache.SpendCoin(it->first));
        expected.erase(it->first);
    }
    for (uint32_t i = 0; i < 5; ++i) {
        const COutPoint outpoint{Hash(0xbe), i};
        cache.AddCoin(outpoint, MakeCoin(i), /*possible_overwrite=*/false);
        expected.emplace(outpoint, MakeCoin(i));
    }
    cache.SetBestBlock(Hash(0xbf));
    cache.Sync();
    CheckLastWrite(db, 10, 10);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), Hash(0xbf).GetHex());
    // The database has the changes; the cache still has every unspent coin.
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), expected.size());
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
    for (const auto& [outpoint, coin] : expected) {
        BOOST_CHECK(cache.HaveCoinInCache(outpoint));
        BOOST_CHECK(SameCoin(db.GetCoin(outpoint), coin));
    }
    for (auto spent = coins.begin(); spent != it; ++spent) BOOST_CHECK(!db.HaveCoin(spent->first));
}

// A write that fails midway (here a full disk after a byte budget) must not
// lose what it did not store: the cache still answers every coin as before
// the write, the database refuses any further write, and reopened it shows
// the unfinished flush ('H' = [new, old]) that start-up rolls forward.
// A bulk flush in key order goes into table files the database takes as a
// whole at the end: a crash before leaves the database as it was, and no
// file behind. A flush whose keys fall among those already stored is
// written through LevelDB's log instead, and later ordinary writes (a
// spend) override what was ingested, before and after a reopen and a full
// compaction.
BOOST_AUTO_TEST_CASE(bulk_load_ingests_runs, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const uint256 target = Hash(0xd1, 0x01);
    const auto first = MakeCoins(60, 0xd2);
    // Among the first's keys: their txids share the first byte's values.
    const auto among = MakeCoins(60, 0xd3);
    // Above every key of both.
    std::map<COutPoint, Coin> above_keys;
    for (uint32_t i = 0; i < 40; ++i) above_keys.emplace(COutPoint{Hash(0xff, static_cast<unsigned char>(i), 0xff), i % 2}, MakeCoin(i));
    const auto& above = above_keys;

    {
        CCoinsViewDB db{OnDisk(path), CrashingOptions(200)};
        db.SetBulkLoad(true);
        BOOST_CHECK_THROW(WriteCoins(db, first, target), SimulatedCrash);
        BOOST_CHECK(db.GetBestBlock().IsNull());
        BOOST_CHECK_EQUAL(CountPresent(db, first), 0U);
        BOOST_CHECK_EQUAL(db.GetDB().IngestedFiles(), 0U);
    }
    BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);
    {
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = 200}};
        db.SetBulkLoad(true);
        WriteCoins(db, first, target);
        BOOST_CHECK_GT(db.LastFlushStats().batches, 1U);
        BOOST_CHECK_EQUAL(db.LastFlushStats().ingested, db.LastFlushStats().batches);
        const size_t files = db.GetDB().IngestedFiles();
        BOOST_CHECK_GT(files, 0U);
        BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
        CheckAllPresent(db, first);

        WriteCoins(db, among, target);
        BOOST_CHECK_EQUAL(db.GetDB().IngestedFiles(), files);
        CheckAllPresent(db, first);
        CheckAllPresent(db, among);

        WriteCoins(db, above, target);
        BOOST_CHECK_GT(db.GetDB().IngestedFiles(), files);
        CheckAllPresent(db, above);
    }
    BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);

    // Spend every other coin of the ingested sets, as a block would.
    std::map<COutPoint, Coin> spent;
    for (const auto* coins : {&first, &above}) {
        bool spend = false;
        for (const auto& [outpoint, coin] : *coins) {
            if ((spend = !spend)) spent.emplace(outpoint, Coin{});
        }
    }
    {
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
        auto batch = std::make_unique<FlaggedMap>();
        for (const auto& [outpoint, coin] : spent) batch->Add(outpoint, Coin{}, CCoinsCacheEntry::DIRTY);
        batch->WriteTo(db, Hash(0xd4, 0x02));
    }
    for (const bool compacted : {false, true}) {
        BOOST_TEST_CONTEXT("compacted " << compacted)
        {
            CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
            if (compacted) db.CompactFull();
            BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), Hash(0xd4, 0x02).GetHex());
            for (const auto* coins : {&first, &among, &above}) {
                for (const auto& [outpoint, coin] : *coins) {
                    const auto stored = db.GetCoin(outpoint);
                    if (spent.contains(outpoint)) {
                        BOOST_CHECK_MESSAGE(!stored, "spent coin " << outpoint.ToString() << " still there");
                    } else {
                        BOOST_CHECK_MESSAGE(stored && SameCoin(*stored, coin), "coin " << outpoint.ToString() << " missing or different");
                    }
                }
            }
            size_t walked = 0;
            for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++walked;
            BOOST_CHECK_EQUAL(walked, first.size() + among.size() + above.size() - spent.size());
        }
    }
}

// The first large flush into a database without a coin (a replay's first):
// the coins go in key order into table files LevelDB takes whole, between
// an 'H' written before them and the 'B' after. Entries come in the
// cache's order, not the keys'; spent ones are not written (there is
// nothing to erase). A crash inside leaves 'H' and none of the run, so the
// restart's replay repairs it; a database that holds a coin is written
// through the log as before.
BOOST_AUTO_TEST_CASE(sorted_first_write_ingests_between_markers, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "chainstate";
    const uint256 target = Hash(0xe2, 0x02);
    const auto coins = MakeCoins(300, 0xe3);
    const auto spent = MakeCoins(20, 0xe4);
    // The cache's order: shuffled.
    std::vector<std::pair<COutPoint, Coin>> order(coins.begin(), coins.end());
    std::mt19937_64 rng{6};
    std::ranges::shuffle(order, rng);
    const auto cache_order = [&] {
        auto map = std::make_unique<FlaggedMap>();
        for (size_t i = 0; i < order.size(); ++i) {
            map->Add(order[i].first, Coin{order[i].second}, CCoinsCacheEntry::DIRTY | CCoinsCacheEntry::FRESH);
            if (i % 15 == 0) map->Add(std::next(spent.begin(), i / 15)->first, Coin{}, CCoinsCacheEntry::DIRTY);
        }
        return map;
    };
    const auto sorted_options = [](CoinsViewOptions options) {
        options.sorted_first_write_entries = 10;
        return options;
    };
    {
        CCoinsViewDB db{OnDisk(path), sorted_options(CrashingOptions(2000))};
        BOOST_CHECK_THROW(cache_order()->WriteTo(db, target), SimulatedCrash);
        const std::vector<std::string> expected_heads{target.GetHex(), uint256{}.GetHex()};
        const auto heads = Hexes(db.GetHeadBlocks());
        BOOST_CHECK_EQUAL_COLLECTIONS(heads.begin(), heads.end(), expected_heads.begin(), expected_heads.end());
        BOOST_CHECK_EQUAL(CountPresent(db, coins), 0U);
        BOOST_CHECK_EQUAL(db.GetDB().IngestedFiles(), 0U);
    }
    BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);
    {
        CCoinsViewDB db{OnDisk(path), sorted_options(CoinsViewOptions{.batch_write_bytes = 2000})};
        auto map = cache_order();
        map->WriteTo(db, target);
        CheckLastWrite(db, coins.size() + spent.size(), coins.size() + spent.size());
        BOOST_CHECK_GT(db.LastFlushStats().ingested, 1U);
        BOOST_CHECK_EQUAL(db.LastFlushStats().ingested, db.LastFlushStats().batches);
        BOOST_CHECK_GT(db.GetDB().IngestedFiles(), 0U);
        BOOST_CHECK_EQUAL(map->dirty_count, 0U);
        BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
        BOOST_CHECK(db.GetHeadBlocks().empty());
        CheckAllPresent(db, coins);
        BOOST_CHECK_EQUAL(CountPresent(db, spent), 0U);

        // Holding coins now: the next write goes through the log.
        const size_t files = db.GetDB().IngestedFiles();
        const auto more = MakeCoins(300, 0xe5);
        WriteCoins(db, more, Hash(0xe6, 0x03));
        BOOST_CHECK_EQUAL(db.LastFlushStats().ingested, 0U);
        BOOST_CHECK_EQUAL(db.GetDB().IngestedFiles(), files);
        CheckAllPresent(db, more);
    }
    {
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
        db.CompactFull();
        CheckAllPresent(db, coins);
        size_t walked = 0;
        for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++walked;
        BOOST_CHECK_EQUAL(walked, coins.size() + 300);
    }

    // A best block written by an earlier flush without coins is written
    // alone, out of the coins' range: the run still goes under it.
    const auto after_empty = tmp.m_path / "after_empty_flush";
    {
        CCoinsViewDB db{OnDisk(after_empty), CoinsViewOptions{}};
        FlaggedMap{}.WriteTo(db, Hash(0xe1, 0x01));
        BOOST_CHECK(db.GetHeadBlocks().empty());
    }
    {
        CCoinsViewDB db{OnDisk(after_empty), sorted_options(CoinsViewOptions{.batch_write_bytes = 2000})};
        cache_order()->WriteTo(db, target);
        BOOST_CHECK_GT(db.GetDB().IngestedFiles(), 0U);
        BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
        CheckAllPresent(db, coins);
    }

    // Coins written and all spent again: no coin, but tables in the coins'
    // range, which the run cannot go under. It goes through LevelDB's log
    // instead, between the same markers.
    const auto spent_all = tmp.m_path / "all_spent";
    {
        CCoinsViewDB db{OnDisk(spent_all), CoinsViewOptions{}};
        WriteCoins(db, spent, Hash(0xe1, 0x01));
        auto spend = std::make_unique<FlaggedMap>();
        for (const auto& [outpoint, coin] : spent) spend->Add(outpoint, Coin{}, CCoinsCacheEntry::DIRTY);
        spend->WriteTo(db, Hash(0xe1, 0x02));
        db.CompactFull();
        BOOST_CHECK_EQUAL(CountPresent(db, spent), 0U);
    }
    CCoinsViewDB db{OnDisk(spent_all), sorted_options(CoinsViewOptions{.batch_write_bytes = 2000})};
    logging::StartCapture();
    cache_order()->WriteTo(db, target);
    const std::string log = logging::StopCapture();
    BOOST_CHECK_MESSAGE(log.find("the database holds keys in the run's range: writing a run of table files through LevelDB's log instead") != std::string::npos, log);
    BOOST_CHECK_EQUAL(db.GetDB().IngestedFiles(), 0U);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), target.GetHex());
    BOOST_CHECK(db.GetHeadBlocks().empty());
    CheckAllPresent(db, coins);
    BOOST_CHECK_EQUAL(CountPresent(db, spent), 0U);
}

// The sorted first write orders by the key's bytes, which is not
// COutPoint's order: VARINT(16511) is ff 7f and VARINT(16512) is 80 80 00,
// so the larger index has the smaller key. Txids here share their first 8
// bytes in groups (the sort's prefix ties) and each has outputs on both
// sides of every VARINT length boundary. In the cache's shuffled order,
// every batch must still rise above the one before it, so all go into
// table files; one batch out of key order would go through the log.
BOOST_AUTO_TEST_CASE(sorted_first_write_orders_by_key_bytes, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    const std::vector<uint32_t> indices{0, 1, 127, 128, 16511, 16512, 2113663, 2113664, UINT32_MAX - 1};
    std::map<COutPoint, Coin> coins;
    for (unsigned char group = 0; group < 8; ++group) {
        for (unsigned char last = 0; last < 6; ++last) {
            for (const uint32_t n : indices) coins.emplace(COutPoint{Hash(group * 31, last), n}, MakeCoin(static_cast<uint32_t>(coins.size())));
        }
    }
    std::vector<std::pair<COutPoint, Coin>> order(coins.begin(), coins.end());
    std::mt19937_64 rng{7};
    std::ranges::shuffle(order, rng);
    FlaggedMap map;
    for (auto& [outpoint, coin] : order) map.Add(outpoint, std::move(coin), CCoinsCacheEntry::DIRTY | CCoinsCacheEntry::FRESH);

    CoinsViewOptions options{.batch_write_bytes = 1000};
    options.sorted_first_write_entries = 10;
    CCoinsViewDB db{OnDisk(tmp.m_path / "chainstate"), std::move(options)};
    map.WriteTo(db, Hash(0xe9, 0x01));
    BOOST_CHECK_GT(db.LastFlushStats().batches, 5U);
    BOOST_CHECK_EQUAL(db.LastFlushStats().ingested, db.LastFlushStats().batches);
    CheckAllPresent(db, coins);
    // The cursor walks in key order: the same order CoinKeyLess gives.
    std::vector<COutPoint> walked;
    for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) {
        COutPoint key;
        BOOST_REQUIRE(cursor->GetKey(key));
        walked.push_back(key);
    }
    BOOST_CHECK_EQUAL(walked.size(), coins.size());
    BOOST_CHECK(std::ranges::is_sorted(walked, CoinKeyLess));
}

// WriteSortedCoins: coins in key order straight into an empty database,
// as table files, with 'B' and no crash marker; refused once it holds one.
BOOST_AUTO_TEST_CASE(write_sorted_coins_into_an_empty_database, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    const auto coins = MakeCoins(300, 0xe7);
    const uint256 best = Hash(0xe8, 0x01);
    const auto path = tmp.m_path / "chainstate";
    {
        // A best block already there, as a new chainstate's first write
        // leaves it: the run still goes under it.
        CCoinsViewDB db{OnDisk(path), CoinsViewOptions{}};
        FlaggedMap{}.WriteTo(db, Hash(0xe8, 0x00));
    }
    CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = 2000}};
    const auto produce = [&](const CCoinsViewDB::CoinSink& sink) {
        for (const auto& [outpoint, coin] : coins) sink(outpoint, coin);
    };
    db.WriteSortedCoins(produce, best);
    BOOST_CHECK_EQUAL(db.LastFlushStats().changed, coins.size());
    BOOST_CHECK_GT(db.LastFlushStats().ingested, 1U);
    BOOST_CHECK_GT(db.GetDB().IngestedFiles(), 0U);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), best.GetHex());
    BOOST_CHECK(db.GetHeadBlocks().empty());
    CheckAllPresent(db, coins);
    size_t walked = 0;
    for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++walked;
    BOOST_CHECK_EQUAL(walked, coins.size());
    BOOST_CHECK_THROW(db.WriteSortedCoins([](const CCoinsViewDB::CoinSink&) {}, best), std::logic_error);
}

BOOST_AUTO_TEST_CASE(failed_write_keeps_unwritten_entries)
{
    struct Case {
        std::string name;
        bool flush; // else Sync
    };
    for (const auto& test : {Case{"flush", true}, Case{"sync", false}}) {
        BOOST_TEST_CONTEXT(test.name)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "chainstate";
            const auto old_coins = MakeCoins(400, 0xc1);
            {
                CCoinsViewDB db{OnDisk(path), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
                WriteCoins(db, old_coins, Hash(0xc0));
            }

            DBParams full_disk = OnDisk(path);
            // Room for a few of the ~2 KiB batches below, not for all.
            full_disk.options.fail_writes_after_bytes = 12 << 10;
            auto db = std::make_unique<CCoinsViewDB>(full_disk, CoinsViewOptions{.batch_write_bytes = 2000});
            CCoinsViewCache cache{db.get()};
            // 1000 new coins and every other old coin spent: coins and
            // spends the cache may not drop before the database has them.
            std::map<COutPoint, Coin> expected = old_coins;
            std::vector<COutPoint> spent;
            for (const auto& [outpoint, coin] : MakeCoins(1000, 0xc2)) {
                cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
                expected.emplace(outpoint, coin);
            }
            for (auto it = old_coins.begin(); it != old_coins.end(); std::advance(it, 2)) {
                BOOST_REQUIRE(cache.SpendCoin(it->first));
                expected.erase(it->first);
                spent.push_back(it->first);
            }
            const size_t dirty_before = cache.GetDirtyCount();
            cache.SetBestBlock(Hash(0xc3));

            BOOST_CHECK_EXCEPTION(test.flush ? cache.Flush() : cache.Sync(), dbwrapper_error, [](const dbwrapper_error& e) {
                return std::string{e.what()}.find("No space left on device") != std::string::npos;
            });
            // Some batches landed and were released; the rest wait.
            BOOST_CHECK_GT(cache.GetDirtyCount(), 0U);
            BOOST_CHECK_LT(cache.GetDirtyCount(), dirty_before);
            cache.SanityCheck();
            for (const auto& [outpoint, coin] : expected) BOOST_CHECK(SameCoin(cache.GetCoin(outpoint), coin));
            for (const auto& outpoint : spent) BOOST_CHECK(!cache.HaveCoin(outpoint));

            // Nothing more reaches LevelDB, not even a small write.
            BOOST_REQUIRE(db->GetDB().WriteFailure().has_value());
            BOOST_CHECK_EXCEPTION(test.flush ? cache.Flush() : cache.Sync(), dbwrapper_error, [](const dbwrapper_error& e) {
                return std::string{e.what()}.starts_with("Refusing to write to chainstate after a failed write");
            });

            // Reopened, the database shows the unfinished flush, as after a
            // crash. The cache still holds everything the database did not
            // take, so writing it again, disk space freed, completes it.
            db.reset();
            db = std::make_unique<CCoinsViewDB>(OnDisk(path), CoinsViewOptions{.batch_write_bytes = 2000});
            BOOST_CHECK(db->GetBestBlock().IsNull());
            const std::vector<uint256> heads{Hash(0xc3), Hash(0xc0)};
            BOOST_CHECK(db->GetHeadBlocks() == heads);
            cache.SetBackend(*db);
            test.flush ? cache.Flush() : cache.Sync();
            BOOST_CHECK_EQUAL(db->GetBestBlock().GetHex(), Hash(0xc3).GetHex());
            BOOST_CHECK(db->GetHeadBlocks().empty());
            CheckAllPresent(*db, expected);
            for (const auto& outpoint : spent) BOOST_CHECK(!db->HaveCoin(outpoint));
        }
    }
}

BOOST_AUTO_TEST_CASE(resize_cache_keeps_data)
{
    TempDirFixture tmp;
    CCoinsViewDB db{OnDisk(tmp.m_path / "chainstate"), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    const auto coins = MakeCoins(200, 0xa8);
    auto map = DirtyMap(coins);
    map->WriteTo(db, Hash(0xbb));
    const auto key = db.GetDB().GetObfuscation().Key();

    for (const size_t cache_bytes : {size_t{64} << 10, size_t{16} << 20, size_t{1} << 20}) {
        BOOST_TEST_CONTEXT("cache " << cache_bytes)
        {
            db.ResizeCache(cache_bytes);
            BOOST_CHECK(db.GetDB().GetObfuscation().Key() == key);
            BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), Hash(0xbb).GetHex());
            CheckAllPresent(db, coins);
            // Reopening moved the log into table files, which the estimate sees.
            BOOST_CHECK_GT(db.EstimateSize(), 0U);
        }
    }
    // Still writable.
    const auto more = MakeCoins(5, 0xa9);
    auto more_map = DirtyMap(more);
    more_map->WriteTo(db, Hash(0xbc));
    db.ResizeCache(size_t{2} << 20);
    CheckAllPresent(db, more);
    CheckAllPresent(db, coins);
    BOOST_CHECK_EQUAL(db.GetBestBlock().GetHex(), Hash(0xbc).GetHex());
}

// CCoinsViewDB passes properties and full compactions through to LevelDB:
// spent coins' records leave the files once compacted.
BOOST_AUTO_TEST_CASE(properties_and_full_compaction)
{
    TempDirFixture tmp;
    CCoinsViewDB db{OnDisk(tmp.m_path / "chainstate"), CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    BOOST_CHECK(db.GetDBProperty("leveldb.stats").has_value());
    BOOST_CHECK(db.GetDBProperty("leveldb.approximate-memory-usage").has_value());
    BOOST_CHECK(!db.GetDBProperty("leveldb.unknown").has_value());

    const auto coins = MakeCoins(3000, 0x41);
    CCoinsViewCache cache{&db, /*deterministic=*/true};
    for (const auto& [outpoint, coin] : coins) cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
    cache.SetBestBlock(Hash(1, 1, 1));
    cache.Flush();
    db.CompactFull();
    const size_t full = db.EstimateSize();
    BOOST_REQUIRE_GT(full, 3000U * 10);

    for (const auto& [outpoint, coin] : coins) BOOST_REQUIRE(cache.SpendCoin(outpoint));
    cache.SetBestBlock(Hash(2, 2, 2));
    cache.Flush();
    BOOST_CHECK_GE(db.EstimateSize(), full / 2);
    BOOST_REQUIRE(db.CompactFullAsync().wait_for(std::chrono::minutes{1}) == std::future_status::ready);
    BOOST_CHECK_LT(db.EstimateSize(), 1024U);
    BOOST_CHECK_EQUAL(CountPresent(db, coins), 0U);
    BOOST_CHECK(db.GetBestBlock() == Hash(2, 2, 2));
    // A compaction still running when the cache is resized is waited for.
    const auto compaction = db.CompactFullAsync();
    db.ResizeCache(2 << 20);
    BOOST_CHECK(compaction.wait_for(std::chrono::seconds{0}) == std::future_status::ready);
    BOOST_CHECK(db.GetBestBlock() == Hash(2, 2, 2));
}

// CoinsViewOptions{} works as is, with Core's default batch size; an
// explicit 0 is still refused.
BOOST_AUTO_TEST_CASE(default_options)
{
    BOOST_CHECK_EQUAL(CoinsViewOptions{}.batch_write_bytes, DEFAULT_DB_CACHE_BATCH);
    BOOST_CHECK_EQUAL(CoinsViewOptions{}.batch_write_bytes, 32U << 20);
    BOOST_CHECK_EQUAL(CoinsViewOptions{}.simulate_crash_ratio, 0);
    CCoinsViewDB db{DBParams{.path = "defaults", .memory_only = true}, CoinsViewOptions{}};
    BOOST_CHECK_EQUAL(db.GetOptions().batch_write_bytes, DEFAULT_DB_CACHE_BATCH);
    const auto coins = MakeCoins(500, 0x51);
    auto map = DirtyMap(coins);
    map->WriteTo(db, Hash(5, 5, 5));
    CheckAllPresent(db, coins);
    // 500 coins are far below 32 MiB: one batch.
    BOOST_CHECK_EQUAL(db.LastFlushStats().batches, 1U);

    BOOST_CHECK_EXCEPTION((CCoinsViewDB{DBParams{.path = "zero", .memory_only = true}, CoinsViewOptions{.batch_write_bytes = 0}}),
                          std::invalid_argument, [](const std::invalid_argument& e) {
                              return std::string{e.what()} == "CoinsViewOptions::batch_write_bytes must not be 0";
                          });
}

// The txid filter (txdb/txid_filter.h) changes no answer. A database opened
// without coins gets one; through a cache's flushes and syncs (the sorted
// first write, then spends and coins that reuse spent coins' txids) and a
// WriteSortedCoins, every lookup agrees with a model of the set, for coins
// there and coins not. A write path whose coins the filter never saw would
// have them answered as absent. Reopened with coins, a database has none;
// one that drops its filter answers the same.
BOOST_AUTO_TEST_CASE(txid_filter_answers_as_the_database)
{
    TempDirFixture tmp;
    TestRand rand{0x7f};
    // A small filter: most absent txids pass it and reach LevelDB, some do not.
    const CoinsViewOptions options{.batch_write_bytes = 3000, .sorted_first_write_entries = 40, .txid_filter_bytes = 512};
    std::map<COutPoint, Coin> model;
    std::set<COutPoint> ever;
    uint32_t seed = 0;
    const auto check = [&](const CCoinsViewDB& db) {
        for (const auto& [outpoint, coin] : model) {
            const auto stored = db.GetCoin(outpoint);
            BOOST_CHECK_MESSAGE(stored && SameCoin(*stored, coin), "coin " << outpoint.ToString() << " missing or different");
            BOOST_CHECK(db.HaveCoin(outpoint));
        }
        std::vector<COutPoint> absent;
        for (const auto& outpoint : ever) {
            if (!model.contains(outpoint)) absent.push_back(outpoint);
        }
        for (int i = 0; i < 50; ++i) absent.emplace_back(rand.Hash(), static_cast<uint32_t>(rand.Below(3)));
        for (const auto& outpoint : absent) {
            BOOST_CHECK_MESSAGE(!db.HaveCoin(outpoint) && !db.GetCoin(outpoint), "coin " << outpoint.ToString() << " found, not in the model");
        }
    };
    const auto path = tmp.m_path / "chainstate";
    {
        CCoinsViewDB db{OnDisk(path), options};
        BOOST_CHECK_EQUAL(db.TxidFilterBytes(), 512U);
        std::vector<uint256> spent_txids;
        for (int round = 0; round < 12; ++round) {
            CCoinsViewCache cache{&db};
            // Enough new coins in the first round for the sorted first write.
            const size_t adds = round == 0 ? 60 : 20 + rand.Below(20);
            for (size_t i = 0; i < adds; ++i) {
                const bool reuse = !spent_txids.empty() && rand.OneIn(4);
                const COutPoint outpoint{reuse ? spent_txids[rand.Below(spent_txids.size())] : rand.Hash(), static_cast<uint32_t>(rand.Below(3))};
                if (model.contains(outpoint)) continue;
                const Coin coin = MakeCoin(++seed);
                cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
                model.emplace(outpoint, coin);
                ever.insert(outpoint);
            }
            for (auto it = model.begin(); it != model.end();) {
                if (!rand.OneIn(4)) {
                    ++it;
                    continue;
                }
                BOOST_CHECK(cache.SpendCoin(it->first));
                spent_txids.push_back(it->first.hash);
                it = model.erase(it);
            }
            cache.SetBestBlock(Hash(0xf0, static_cast<unsigned char>(round)));
            if (rand.Bool()) {
                cache.Flush();
            } else {
                cache.Sync();
            }
            check(db);
        }
    }
    {
        CCoinsViewDB db{OnDisk(path), options};
        BOOST_CHECK_EQUAL(db.TxidFilterBytes(), 0U);
        check(db);
    }
    {
        // No filter asked for, none made.
        CCoinsViewDB db{OnDisk(tmp.m_path / "without"), CoinsViewOptions{}};
        BOOST_CHECK_EQUAL(db.TxidFilterBytes(), 0U);
    }
    model = MakeCoins(300, 0xf1);
    ever.clear();
    for (const auto& [outpoint, coin] : model) ever.insert(outpoint);
    CCoinsViewDB sorted{OnDisk(tmp.m_path / "sorted"), options};
    const auto produce = [&](const CCoinsViewDB::CoinSink& sink) {
        for (const auto& [outpoint, coin] : model) sink(outpoint, coin);
    };
    sorted.WriteSortedCoins(produce, Hash(0xf2));
    check(sorted);
    // Given up, the same answers, from LevelDB alone.
    BOOST_CHECK_GT(sorted.TxidFilterBytes(), 0U);
    sorted.DropTxidFilter();
    BOOST_CHECK_EQUAL(sorted.TxidFilterBytes(), 0U);
    check(sorted);
}

BOOST_AUTO_TEST_SUITE_END()
