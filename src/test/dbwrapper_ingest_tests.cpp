// Bulk ingestion (dbwrapper/codec.h, dbwrapper/ingest.h, CDBWrapper::IngestBatch): LevelDB's
// log framing, CRC-32C and version edits as coinsdb reads and writes them,
// checked against files LevelDB itself wrote; and runs of table files
// handed to a database, against a std::map model: installed when nothing
// overlaps, written through the log when something does or an iterator is
// open, discarded whole on a full disk, and overridden by later writes.

#include <dbwrapper.h>
#include <dbwrapper/ingest.h>
#include <dbwrapper/table_encoder.h>
#include <test/util/db_params.h>
#include <test/util/ingest_available.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>
#include <leveldb/comparator.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>

#include <array>
#include <fcntl.h>
#include <unistd.h>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

using namespace dbwrapper_ingest;

namespace {

// 'k' and a big-endian number: keys sort as their numbers.
struct NumberKey {
    uint32_t n;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        const std::array<unsigned char, 5> bytes{'k', static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                                                 static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
        s.write(std::as_bytes(std::span{bytes}));
    }
};

using Model = std::map<uint32_t, std::optional<uint64_t>>;

// A batch of puts (and an erase for every key in `erase`), keys ascending.
void FillBatch(CDBBatch& batch, Model& model, uint32_t first, uint32_t count, uint32_t step, uint64_t tag)
{
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t key = first + i * step;
        batch.Write(NumberKey{key}, uint64_t{key} * 1000 + tag);
        model[key] = uint64_t{key} * 1000 + tag;
    }
}

// Two batches of 20000 keys in one run, committed and installed.
void IngestTwoBatches(CDBWrapper& db, Model& model)
{
    for (const uint32_t first : {100U, 40100U}) {
        CDBBatch batch{db};
        FillBatch(batch, model, first, 20000, 2, 1);
        BOOST_REQUIRE(db.CanIngest(batch));
        db.IngestBatch(batch);
    }
    BOOST_REQUIRE(db.CommitIngest());
    BOOST_REQUIRE_GT(db.IngestedFiles(), 0U);
}

void CheckModel(const CDBWrapper& db, const Model& model)
{
    size_t live = 0;
    for (const auto& [key, value] : model) {
        uint64_t stored = 0;
        const bool found = db.Read(NumberKey{key}, stored);
        BOOST_CHECK_MESSAGE(found == value.has_value(), "key " << key << (found ? " present" : " missing"));
        if (found && value) BOOST_CHECK_EQUAL(stored, *value);
        live += value.has_value();
    }
    // And nothing else, in order.
    auto it = db.NewIterator();
    size_t walked = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
        if (it->RawKey().size() == 5 && it->RawKey()[0] == std::byte{'k'}) ++walked;
    }
    BOOST_CHECK_EQUAL(walked, live);
}

// A database at `path` holding keys 1-100, synced; returns its model.
Model WriteFirstDatabase(const std::filesystem::path& path)
{
    Model model;
    CDBWrapper db{OnDisk(path)};
    CDBBatch batch{db};
    FillBatch(batch, model, 1, 100, 1, 1);
    db.WriteBatch(batch, /*sync=*/true);
    return model;
}

size_t LeftoverRunFiles(const std::filesystem::path& path)
{
    size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator{path}) count += dbwrapper_ingest::IsIngestFileName(entry.path().filename().string());
    return count;
}

std::string Bytes(size_t size, uint32_t seed)
{
    std::string bytes(size, '\0');
    std::mt19937 rng{seed};
    for (char& c : bytes) c = static_cast<char>(rng());
    return bytes;
}

// The database in `path` closed, keys k0-k1999 in tables and LevelDB's log
// empty; with `unflushed`, one more write left in the log.
void WriteClosedDatabase(const std::filesystem::path& path, bool unflushed)
{
    CDBWrapper db{OnDisk(path)};
    for (uint32_t i = 0; i < 2000; ++i) db.Write(NumberKey{i}, uint64_t{i});
    db.CompactFull();
    if (unflushed) db.Write(NumberKey{5000}, uint64_t{5000}, /*sync=*/true);
}

// Makes CURRENT name a new MANIFEST holding `manifest`.
void ReplaceManifest(const std::filesystem::path& path, const std::string& manifest)
{
    const std::string name = ManifestFileName(900);
    std::ofstream{path / name, std::ios::binary} << manifest;
    std::ofstream{path / "CURRENT", std::ios::binary} << name << '\n';
}

Descriptor ReadCurrentDescriptor(const std::filesystem::path& path)
{
    std::string current = ReadFileToString(path / "CURRENT");
    current.pop_back();
    const auto records = ReadLogRecords(ReadFileToString(path / current));
    BOOST_REQUIRE(records);
    Descriptor version;
    for (const std::string& record : *records) BOOST_REQUIRE(ApplyEdit(record, version));
    return version;
}

} // namespace

BOOST_AUTO_TEST_SUITE(dbwrapper_ingest_tests)

// RFC 3720's CRC-32C check values, and the check value of "123456789".
BOOST_AUTO_TEST_CASE(crc32c_known_values)
{
    std::string ascending(32, '\0');
    for (size_t i = 0; i < ascending.size(); ++i) ascending[i] = static_cast<char>(i);
    std::string descending(ascending.rbegin(), ascending.rend());
    BOOST_CHECK_EQUAL(Crc32c(std::string(32, '\0')), 0x8a9136aaU);
    BOOST_CHECK_EQUAL(Crc32c(std::string(32, '\xff')), 0x62a8ab43U);
    BOOST_CHECK_EQUAL(Crc32c(ascending), 0x46dd794eU);
    BOOST_CHECK_EQUAL(Crc32c(descending), 0x113fdb5cU);
    BOOST_CHECK_EQUAL(Crc32c("123456789"), 0xe3069283U);
    BOOST_CHECK_EQUAL(Crc32c(""), 0U);
}

// Extending a CRC over a split equals the CRC of the whole, wherever the
// split falls against the 8-byte steps the instruction takes.
BOOST_AUTO_TEST_CASE(crc32c_extends)
{
    const std::string data = Bytes(100, 7);
    for (size_t split = 0; split <= data.size(); ++split) {
        BOOST_CHECK_EQUAL(Crc32cExtend(Crc32c(data.substr(0, split)), data.substr(split)), Crc32c(data));
    }
}

// coinsdb's table writer against leveldb::TableBuilder: the same bytes for
// one record, for blocks cut at every size, keys sharing long prefixes or
// none, values empty or larger than a block, deletions among values, and
// enough keys for many filters and index entries.
BOOST_AUTO_TEST_CASE(table_files_match_leveldb_byte_for_byte)
{
    struct Case {
        std::string name;
        size_t count;
        size_t max_value;
        size_t shared_prefix;
    };
    const Case cases[]{
        {"one record", 1, 10, 0},
        {"small values", 20000, 40, 0},
        {"coin-like keys", 5000, 60, 1},
        {"long shared prefixes", 3000, 100, 50},
        {"values past a block", 300, 10000, 4},
        {"empty values", 2000, 0, 0},
    };
    for (const auto& test : cases) {
        BOOST_TEST_CONTEXT(test.name)
        {
            std::mt19937 rng{static_cast<uint32_t>(test.count)};
            std::set<std::string> user_keys;
            const std::string prefix = Bytes(test.shared_prefix, 3);
            while (user_keys.size() < test.count) user_keys.insert(prefix + Bytes(1 + rng() % 40, rng()));
            std::vector<std::pair<std::string, std::string>> records;
            for (const std::string& key : user_keys) {
                const uint8_t type = rng() % 10 == 0 ? TYPE_DELETION : TYPE_VALUE;
                records.emplace_back(InternalKey(key, type), type == TYPE_VALUE ? Bytes(test.max_value ? rng() % (test.max_value + 1) : 0, rng()) : "");
            }
            const std::string ours = TableFileBytes(records, /*by_leveldb=*/false);
            const std::string leveldb = TableFileBytes(records, /*by_leveldb=*/true);
            BOOST_CHECK_GT(leveldb.size(), 48U); // more than a footer
            BOOST_CHECK_EQUAL(ours.size(), leveldb.size());
            BOOST_CHECK(ours == leveldb);
        }
    }
}

// Filters other than the databases' own: LevelDB's bloom filter at other
// bits per key (built by dbwrapper/bloom.h too) and a policy it does not
// know (built by the policy): still LevelDB's bytes.
BOOST_AUTO_TEST_CASE(table_files_with_other_filters_match_leveldb)
{
    class EveryTenthKey final : public leveldb::FilterPolicy
    {
    public:
        const char* Name() const override { return "test.EveryTenthKey"; }
        void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override
        {
            for (int i = 0; i < n; i += 10) dst->append(keys[i].data(), keys[i].size());
        }
        bool KeyMayMatch(const leveldb::Slice&, const leveldb::Slice&) const override { return true; }
    };
    const std::unique_ptr<const leveldb::FilterPolicy> bloom7{leveldb::NewBloomFilterPolicy(7)};
    const EveryTenthKey other;
    std::mt19937 rng{7};
    std::set<std::string> user_keys;
    while (user_keys.size() < 3000) user_keys.insert("C" + Bytes(32 + rng() % 4, rng()));
    std::vector<std::pair<std::string, std::string>> records;
    for (const std::string& key : user_keys) records.emplace_back(InternalKey(key, TYPE_VALUE), Bytes(rng() % 60, rng()));
    for (const leveldb::FilterPolicy* filter : {bloom7.get(), static_cast<const leveldb::FilterPolicy*>(&other)}) {
        BOOST_TEST_CONTEXT(filter->Name())
        {
            const std::string ours = TableFileBytes(records, /*by_leveldb=*/false, filter);
            const std::string leveldb = TableFileBytes(records, /*by_leveldb=*/true, filter);
            BOOST_CHECK_EQUAL(ours.size(), leveldb.size());
            BOOST_CHECK(ours == leveldb);
        }
    }
}

// A record survives framing at every length that ends a block early,
// exactly, or spills into one or several more; a changed byte or a cut
// anywhere is caught.
BOOST_AUTO_TEST_CASE(log_records_round_trip)
{
    const size_t block_payload = LOG_BLOCK_BYTES - LOG_HEADER_BYTES;
    for (const size_t size : {size_t{0}, size_t{1}, block_payload - 1, block_payload, block_payload + 1, 3 * LOG_BLOCK_BYTES + 5}) {
        BOOST_TEST_CONTEXT("size " << size)
        {
            const std::string record = Bytes(size, static_cast<uint32_t>(size));
            const std::string file = FrameLogRecord(record);
            const auto read = ReadLogRecords(file);
            BOOST_REQUIRE(read);
            BOOST_REQUIRE_EQUAL(read->size(), 1U);
            BOOST_CHECK(read->front() == record);

            std::string changed = file;
            changed[file.size() / 2] ^= 0x01;
            BOOST_CHECK(!ReadLogRecords(changed));
            BOOST_CHECK(!ReadLogRecords(std::string_view{file}.substr(0, file.size() - 1)));
        }
    }
}

// An edit that lists a whole version reads back as that version; later
// edits delete files and move the numbers on; malformed edits are refused.
BOOST_AUTO_TEST_CASE(version_edits_round_trip)
{
    Descriptor version;
    version.comparator = "leveldb.BytewiseComparator";
    version.log_number = 12;
    version.prev_log_number = 0;
    version.next_file = 40;
    version.last_sequence = 123456789012ULL;
    version.compact_pointers[1] = InternalKey("c", TYPE_VALUE);
    version.levels[0][7] = {7, 4096, InternalKey("a", TYPE_VALUE), InternalKey("b", TYPE_DELETION)};
    version.levels[6][9] = {9, 1ULL << 33, InternalKey(std::string(300, 'x'), TYPE_VALUE), InternalKey("z", TYPE_VALUE)};

    Descriptor read;
    BOOST_REQUIRE(ApplyEdit(EncodeEdit(version), read));
    BOOST_CHECK(EncodeEdit(read) == EncodeEdit(version));
    BOOST_CHECK_EQUAL(*read.last_sequence, 123456789012ULL);
    BOOST_CHECK_EQUAL(read.levels[6].at(9).size, 1ULL << 33);
    BOOST_CHECK(UserKeyOf(read.levels[0].at(7).largest) == "b");

    Descriptor later;
    later.next_file = 41;
    const std::string deletion = std::string{"\x06\x00\x07", 3}; // deleted file: level 0, number 7
    BOOST_REQUIRE(ApplyEdit(EncodeEdit(later) + deletion, read));
    BOOST_CHECK(read.levels[0].empty());
    BOOST_CHECK_EQUAL(*read.next_file, 41U);

    Descriptor ignored;
    BOOST_CHECK(!ApplyEdit(std::string{"\x08\x01", 2}, ignored));         // tag 8: not written since LevelDB 1.0
    BOOST_CHECK(!ApplyEdit(std::string{"\x06\x07\x01", 3}, ignored));     // level 7: past the last
    BOOST_CHECK(!ApplyEdit(EncodeEdit(version).substr(0, 20), ignored)); // cut inside a field
}

// What LevelDB wrote reads back: CURRENT's MANIFEST, its records, checksums
// and edits, naming the comparator and the database's numbers.
BOOST_AUTO_TEST_CASE(reads_a_manifest_leveldb_wrote)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    {
        CDBWrapper db{OnDisk(path)};
        for (uint32_t i = 0; i < 2000; ++i) db.Write(NumberKey{i}, uint64_t{i});
        db.CompactFull();
    }
    std::string current = ReadFileToString(path / "CURRENT");
    BOOST_REQUIRE(current.starts_with("MANIFEST-") && current.ends_with("\n"));
    current.pop_back();
    const auto records = ReadLogRecords(ReadFileToString(path / current));
    BOOST_REQUIRE(records);
    BOOST_REQUIRE(!records->empty());
    Descriptor version;
    for (const std::string& record : *records) BOOST_REQUIRE(ApplyEdit(record, version));
    BOOST_CHECK(version.comparator == std::string{"leveldb.BytewiseComparator"});
    BOOST_CHECK(version.log_number && version.next_file && version.last_sequence);
    BOOST_CHECK_GE(*version.last_sequence, 2000U);
    size_t files = 0;
    for (const auto& level : version.levels) {
        for (const auto& [number, file] : level) {
            ++files;
            BOOST_CHECK(std::filesystem::exists(path / TableFileName(number)));
            BOOST_CHECK_EQUAL(std::filesystem::file_size(path / TableFileName(number)), file.size);
        }
    }
    BOOST_CHECK_GT(files, 0U);
}

// Every reason InstallTables turns a run down for, table-driven: it must
// say which, change nothing (CURRENT, the MANIFEST it names, the run's
// files), and not fail. CDBWrapper::CommitIngest then writes the run
// through LevelDB's log (runs_against_a_model checks that path).
BOOST_AUTO_TEST_CASE(install_falls_back_for_each_reason)
{
    using Tamper = std::function<void(const std::filesystem::path&)>;
    const auto rewrite = [](const std::function<void(Descriptor&, std::string&)>& change) {
        return [change](const std::filesystem::path& path) {
            Descriptor version = ReadCurrentDescriptor(path);
            std::string extra;
            change(version, extra);
            ReplaceManifest(path, FrameLogRecord(EncodeEdit(version) + extra));
        };
    };
    struct Case {
        std::string name;
        bool unflushed;
        uint32_t run_first; // the run's keys: k<run_first> and up
        Tamper tamper;
        InstallResult expected;
    };
    const Case cases[]{
        {"nothing in the way", false, 10000, {}, InstallResult::INSTALLED},
        {"a key in the run's range", false, 1500, {}, InstallResult::OVERLAP},
        {"writes left in LevelDB's log", true, 10000, {}, InstallResult::UNFLUSHED_LOG},
        {"an unknown edit tag", false, 10000, rewrite([](Descriptor&, std::string& extra) { extra = std::string{"\x63\x01", 2}; }), InstallResult::UNEXPECTED_MANIFEST},
        {"a file at a level past the last", false, 10000, rewrite([](Descriptor&, std::string& extra) {
             extra = std::string{"\x07\x07\x05\x10", 4} + '\x09' + InternalKey("a", TYPE_VALUE) + '\x09' + InternalKey("b", TYPE_VALUE);
         }),
         InstallResult::UNEXPECTED_MANIFEST},
        {"another comparator", false, 10000, rewrite([](Descriptor& version, std::string&) { version.comparator = "coinsdb.test.OtherOrder"; }), InstallResult::UNEXPECTED_MANIFEST},
        {"no comparator", false, 10000, rewrite([](Descriptor& version, std::string&) { version.comparator.reset(); }), InstallResult::UNEXPECTED_MANIFEST},
        {"no next file number", false, 10000, rewrite([](Descriptor& version, std::string&) { version.next_file.reset(); }), InstallResult::UNEXPECTED_MANIFEST},
        {"a torn MANIFEST record", false, 10000, [](const std::filesystem::path& path) {
             const std::string manifest = FrameLogRecord(EncodeEdit(ReadCurrentDescriptor(path)));
             ReplaceManifest(path, manifest.substr(0, manifest.size() - 1));
         },
         InstallResult::UNEXPECTED_MANIFEST},
        {"CURRENT naming no MANIFEST", false, 10000, [](const std::filesystem::path& path) { std::ofstream{path / "CURRENT", std::ios::binary} << "LOG\n"; }, InstallResult::UNEXPECTED_MANIFEST},
    };
    const std::unique_ptr<const leveldb::FilterPolicy> filter{leveldb::NewBloomFilterPolicy(10)};
    for (const auto& test : cases) {
        BOOST_TEST_CONTEXT(test.name)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "db";
            WriteClosedDatabase(path, test.unflushed);
            if (test.tamper) test.tamper(path);
            const std::string current = ReadFileToString(path / "CURRENT");

            TableRunWriter run{leveldb::Env::Default(), path.string(), leveldb::BytewiseComparator(), filter.get(), 1 << 20};
            for (uint32_t i = test.run_first; i < test.run_first + 1000; ++i) {
                DataStream key;
                key << NumberKey{i};
                BOOST_REQUIRE(run.Add(TYPE_VALUE, {reinterpret_cast<const char*>(key.data()), key.size()}, "v").ok());
            }
            BOOST_REQUIRE(run.Finish().ok());
            const size_t run_files = LeftoverRunFiles(path);
            BOOST_REQUIRE_GT(run_files, 0U);

            InstallResult result{InstallResult::INSTALLED};
            std::string unexpected;
            BOOST_CHECK(InstallTables(leveldb::Env::Default(), path.string(), leveldb::BytewiseComparator(), run, /*sync_dir=*/true, result, unexpected).ok());
            BOOST_CHECK_MESSAGE(result == test.expected, "got: " << Describe(result) << " " << unexpected);
            BOOST_CHECK_EQUAL(unexpected.empty(), test.expected != InstallResult::UNEXPECTED_MANIFEST);
            if (test.expected == InstallResult::INSTALLED) {
                BOOST_CHECK(ReadFileToString(path / "CURRENT") != current);
                BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);
            } else {
                BOOST_CHECK(ReadFileToString(path / "CURRENT") == current);
                BOOST_CHECK_EQUAL(LeftoverRunFiles(path), run_files);
            }
        }
    }
}

// Runs against a model: a run above everything is installed (and reads
// back after a reopen and a full compaction), one among stored keys or
// under an open iterator goes through the log, later writes override
// ingested keys, and a run out of order is refused before it starts.
BOOST_AUTO_TEST_CASE(runs_against_a_model, *boost::unit_test::precondition(IngestAvailable))
{
    for (const bool memory_only : {false, true}) {
        BOOST_TEST_CONTEXT("memory_only " << memory_only)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "db";
            DBParams params = OnDisk(path);
            params.memory_only = memory_only;
            Model model;
            auto db = std::make_unique<CDBWrapper>(params);
            db->Write(NumberKey{5}, uint64_t{5});
            model[5] = 5;

            // Two batches above key 5: one run, installed.
            for (const uint32_t first : {100U, 20100U}) {
                CDBBatch batch{*db};
                FillBatch(batch, model, first, 10000, 2, 1);
                BOOST_REQUIRE(db->CanIngest(batch));
                db->IngestBatch(batch);
                BOOST_CHECK_EQUAL(batch.SizeEstimate(), CDBBatch{*db}.SizeEstimate());
            }
            {
                CDBBatch below{*db};
                FillBatch(below, model, 1, 1, 1, 9);
                model.erase(1);
                BOOST_CHECK(!db->CanIngest(below));
                BOOST_CHECK_THROW(db->IngestBatch(below), std::logic_error);
            }
            BOOST_CHECK(db->CommitIngest());
            BOOST_CHECK_GT(db->IngestedFiles(), 0U);
            CheckModel(*db, model);

            // Later writes override what was ingested: a new value, an erase.
            db->Write(NumberKey{102}, uint64_t{7});
            model[102] = 7;
            db->Erase(NumberKey{104});
            model[104] = std::nullopt;
            CheckModel(*db, model);

            // A run among stored keys: written through the log, its values win.
            const size_t installed = db->IngestedFiles();
            {
                CDBBatch batch{*db};
                FillBatch(batch, model, 101, 50, 1, 2);
                db->IngestBatch(batch);
            }
            BOOST_CHECK(!db->CommitIngest());
            BOOST_CHECK_EQUAL(db->IngestedFiles(), installed);
            CheckModel(*db, model);

            // An open iterator keeps the database open: through the log too.
            {
                auto it = db->NewIterator();
                CDBBatch batch{*db};
                FillBatch(batch, model, 100000, 100, 1, 3);
                db->IngestBatch(batch);
                BOOST_CHECK(!db->CommitIngest());
            }
            CheckModel(*db, model);

            // Above everything again, with an erase of a key never written.
            {
                CDBBatch batch{*db};
                FillBatch(batch, model, 200000, 100, 1, 4);
                batch.Erase(NumberKey{300000});
                model[300000] = std::nullopt;
                db->IngestBatch(batch);
                BOOST_CHECK(db->CommitIngest());
                BOOST_CHECK_GT(db->IngestedFiles(), installed);
            }
            CheckModel(*db, model);

            if (!memory_only) {
                db.reset();
                BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);
                db = std::make_unique<CDBWrapper>(params);
                CheckModel(*db, model);
                db->CompactFull();
                CheckModel(*db, model);
            }
        }
    }
}

// A disk that fills while a run is built or committed: the write throws,
// later writes are refused, the run's files are gone, and the database reopens with
// what it held before.
BOOST_AUTO_TEST_CASE(full_disk_discards_the_run, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    const Model model = WriteFirstDatabase(path);
    {
        CDBWrapper db{OnDisk(path, /*obfuscate=*/true, /*fail_writes_after_bytes=*/64 << 10)};
        CDBBatch batch{db};
        Model lost;
        FillBatch(batch, lost, 1000, 20000, 1, 2);
        // Where it fails depends on when the bytes reach the disk: while
        // the tables are built, or when they are finished at the commit.
        BOOST_CHECK_THROW(
            {
                db.IngestBatch(batch);
                db.CommitIngest();
            },
            dbwrapper_error);
        BOOST_CHECK(db.WriteFailure());
        BOOST_CHECK(!db.CommitIngest());
        CDBBatch more{db};
        FillBatch(more, lost, 50000, 1, 1, 3);
        BOOST_CHECK(!db.CanIngest(more));
        BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);
    }
    CDBWrapper db{OnDisk(path)};
    CheckModel(db, model);
}

// A disk that fills at any point of a run's build or commit: reopened, the
// database holds the run whole or not at all, beside everything it held
// before; the wrapper that failed answers or throws dbwrapper_error on
// every later use, even when LevelDB could not reopen it.
BOOST_AUTO_TEST_CASE(commit_fails_anywhere_all_or_nothing, *boost::unit_test::precondition(IngestAvailable))
{
    constexpr uint32_t RUN_KEYS = 200;
    size_t committed = 0;
    size_t failed = 0;
    size_t closed = 0;
    for (size_t budget = 0; budget <= 12000; budget += 97) {
        BOOST_TEST_CONTEXT("budget " << budget)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "db";
            const Model before = WriteFirstDatabase(path);
            Model with_run = before;
            {
                CDBWrapper db{OnDisk(path, /*obfuscate=*/true, budget)};
                CDBBatch batch{db};
                FillBatch(batch, with_run, 1000, RUN_KEYS, 1, 2);
                try {
                    db.IngestBatch(batch);
                    BOOST_CHECK(db.CommitIngest());
                    ++committed;
                } catch (const dbwrapper_error&) {
                    ++failed;
                    BOOST_CHECK(db.WriteFailure());
                }
                try {
                    uint64_t value = 0;
                    db.Read(NumberKey{1}, value);
                    db.NewIterator()->SeekToFirst();
                } catch (const dbwrapper_error& e) {
                    closed += std::string_view{e.what()}.find("is closed") != std::string_view::npos;
                }
            }
            CDBWrapper db{OnDisk(path)};
            size_t run_keys = 0;
            for (uint32_t key = 1000; key < 1000 + RUN_KEYS; ++key) run_keys += db.Exists(NumberKey{key});
            BOOST_CHECK(run_keys == 0 || run_keys == RUN_KEYS);
            CheckModel(db, run_keys == 0 ? before : with_run);
            BOOST_CHECK_EQUAL(LeftoverRunFiles(path), 0U);
        }
    }
    // The budgets span both outcomes, and the few hundred bytes where the
    // run is in but LevelDB cannot write its own MANIFEST to reopen.
    BOOST_CHECK_GT(committed, 0U);
    BOOST_CHECK_GT(failed, 0U);
    BOOST_CHECK_GT(closed, 0U);
}

// The O_DIRECT writer of ingested table files falls back to the page
// cache without a word to the caller where the file system refuses
// O_DIRECT (only a log line says so), so this checks that it ran: every
// file of an ingested run was written directly wherever a probe file in
// the same directory can be opened with O_DIRECT.
BOOST_AUTO_TEST_CASE(ingested_files_are_written_with_o_direct, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    const auto probe_path = tmp.m_path / "probe";
    const int probe = ::open(probe_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_DIRECT, 0644);
    const bool direct_possible = probe >= 0;
    if (probe >= 0) ::close(probe);

    Model model;
    CDBWrapper db{OnDisk(tmp.m_path / "db")};
    IngestTwoBatches(db, model);
    if (direct_possible) {
        BOOST_CHECK_EQUAL(db.DirectIngestFiles(), db.IngestedFiles());
    } else {
        BOOST_TEST_MESSAGE("O_DIRECT refused in " << tmp.m_path << ": the buffered path ran, as logged");
        BOOST_CHECK_EQUAL(db.DirectIngestFiles(), 0U);
    }
    CheckModel(db, model);

    // A write budget (a simulated full disk) stands between LevelDB and the
    // disk: its files are never written directly.
    Model budget_model;
    CDBWrapper budgeted{OnDisk(tmp.m_path / "budgeted", /*obfuscate=*/true, /*fail_writes_after_bytes=*/size_t{1} << 30)};
    CDBBatch batch{budgeted};
    FillBatch(batch, budget_model, 100, 20000, 2, 1);
    budgeted.IngestBatch(batch);
    BOOST_REQUIRE(budgeted.CommitIngest());
    BOOST_CHECK_GT(budgeted.IngestedFiles(), 0U);
    BOOST_CHECK_EQUAL(budgeted.DirectIngestFiles(), 0U);
    CheckModel(budgeted, budget_model);
}

// -ingesttablebuilder: the same run ingested through leveldb::TableBuilder
// gives the same table files, byte for byte, and the same records.
BOOST_AUTO_TEST_CASE(tables_by_leveldb_are_the_same_files, *boost::unit_test::precondition(IngestAvailable))
{
    TempDirFixture tmp;
    std::map<std::string, std::string> tables[2];
    for (const bool by_leveldb : {false, true}) {
        const auto path = tmp.m_path / (by_leveldb ? "leveldb" : "coinsdb");
        DBParams params = OnDisk(path, /*obfuscate=*/false);
        params.options.tables_by_leveldb = by_leveldb;
        Model model;
        {
            CDBWrapper db{params};
            IngestTwoBatches(db, model);
            CheckModel(db, model);
        }
        for (const auto& entry : std::filesystem::directory_iterator(path)) {
            if (entry.path().extension() == ".ldb") tables[by_leveldb][entry.path().filename().string()] = ReadFileToString(entry.path());
        }
    }
    BOOST_REQUIRE(!tables[0].empty());
    BOOST_CHECK(tables[0] == tables[1]);
}

BOOST_AUTO_TEST_SUITE_END()
