// CDBWrapper: obfuscation as it lands on disk, reopening, batches, key
// order, size estimates, in-memory databases, wiping, and LevelDB failures
// surfacing as dbwrapper_error, properties and full compactions.
//
// The obfuscation checks read the LevelDB files themselves (values are not
// compressed, so their bytes appear verbatim in the .log/.ldb files) instead
// of trusting the wrapper's own read path to tell what it stored.

#include <dbwrapper.h>
#include <streams.h>
#include <test/util/db_params.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <test/util/stream_helpers.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

// A key or value serialized as its bytes alone, without a length prefix, so
// that tests control the exact bytes LevelDB sorts.
struct RawBytes {
    std::vector<unsigned char> bytes;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        s.write(std::as_bytes(std::span{bytes}));
    }

    template <typename Stream>
    void Unserialize(Stream& s)
    {
        bytes.resize(s.size());
        s.read(std::as_writable_bytes(std::span{bytes}));
    }

    friend bool operator==(const RawBytes&, const RawBytes&) = default;
};

RawBytes Key(std::initializer_list<unsigned char> bytes) { return RawBytes{std::vector<unsigned char>(bytes)}; }

// The serialized form of the obfuscation key's key: 0e 00 "obfuscate_key".
const std::vector<unsigned char> OBFUSCATION_KEY_KEY{'\0', 'o', 'b', 'f', 'u', 's', 'c', 'a', 't', 'e', '_', 'k', 'e', 'y'};
constexpr std::string_view OBFUSCATION_KEY_KEY_HEX{"0e006f62667573636174655f6b6579"};

// A recognisable payload that cannot occur by chance in LevelDB's own files.
std::vector<unsigned char> Payload(unsigned char seed)
{
    std::vector<unsigned char> payload(48);
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<unsigned char>(seed + 37 * i);
    return payload;
}

std::string AsString(std::span<const unsigned char> bytes) { return {bytes.begin(), bytes.end()}; }

// Every file of a closed database, concatenated.
std::string ReadDatabaseFiles(const std::filesystem::path& dir)
{
    std::string all;
    for (const auto& entry : std::filesystem::directory_iterator{dir}) {
        if (entry.is_regular_file()) all += ReadFileToString(entry.path());
    }
    return all;
}

// The obfuscation key as LevelDB's write-ahead log holds it: the key's key,
// the value length (9) and the value, CompactSize(8) followed by 8 bytes.
std::optional<std::vector<unsigned char>> FindStoredObfuscationKey(const std::string& files)
{
    const std::string marker = AsString(Serialized(OBFUSCATION_KEY_KEY)) + "\x09\x08";
    const auto pos = files.find(marker);
    if (pos == std::string::npos || pos + marker.size() + 8 > files.size()) return std::nullopt;
    const auto* begin = reinterpret_cast<const unsigned char*>(files.data() + pos + marker.size());
    return std::vector<unsigned char>(begin, begin + 8);
}

std::vector<unsigned char> Xor(std::vector<unsigned char> data, std::span<const unsigned char> key)
{
    for (size_t i = 0; i < data.size(); ++i) data[i] ^= key[i % key.size()];
    return data;
}

bool ContainsBytes(const std::string& haystack, std::span<const unsigned char> needle)
{
    return haystack.find(AsString(needle)) != std::string::npos;
}

std::vector<std::string> KeysFrom(CDBWrapper& db, const RawBytes* seek_to)
{
    std::vector<std::string> keys;
    auto it = db.NewIterator();
    if (seek_to) {
        it->Seek(*seek_to);
    } else {
        it->SeekToFirst();
    }
    for (; it->Valid(); it->Next()) keys.push_back(HexStr(it->RawKey()));
    return keys;
}

// The process's write(2) bytes and calls so far (/proc/self/io), LevelDB's
// threads included.
struct WriteCounters {
    uint64_t bytes{0};
    uint64_t calls{0};
};

WriteCounters ReadWriteCounters()
{
    std::ifstream io{"/proc/self/io"};
    BOOST_REQUIRE_MESSAGE(io, "cannot read /proc/self/io");
    WriteCounters counters;
    bool have_bytes = false, have_calls = false;
    std::string name;
    uint64_t value;
    while (io >> name >> value) {
        if (name == "wchar:") counters.bytes = value, have_bytes = true;
        if (name == "syscw:") counters.calls = value, have_calls = true;
    }
    BOOST_REQUIRE(have_bytes && have_calls);
    return counters;
}

// A table's worth of data for the table-file tests: TABLE_ENTRIES records
// of 1000 bytes, about 8 MB, which a 16 MiB write buffer (TABLE_TEST_CACHE)
// holds in the memtable until a compaction writes it out.
constexpr size_t TABLE_ENTRIES = 8000;
constexpr size_t TABLE_VALUE_SIZE = 1000;
constexpr size_t TABLE_TEST_CACHE = 64 << 20;

RawBytes TableKey(size_t i) { return Key({'t', static_cast<unsigned char>(i >> 8), static_cast<unsigned char>(i)}); }

std::vector<unsigned char> TableValue(size_t i)
{
    std::vector<unsigned char> value(TABLE_VALUE_SIZE);
    for (size_t j = 0; j < TABLE_VALUE_SIZE; ++j) value[j] = static_cast<unsigned char>(i * 31 + j * 7);
    return value;
}

// Writes every record, in batches of 500, none synced.
void WriteTableEntries(CDBWrapper& db)
{
    CDBBatch batch{db};
    for (size_t i = 0; i < TABLE_ENTRIES; ++i) {
        batch.Write(TableKey(i), TableValue(i));
        if (i % 500 == 499) {
            db.WriteBatch(batch);
            batch.Clear();
        }
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(dbwrapper_tests)

BOOST_AUTO_TEST_CASE(obfuscation_on_disk)
{
    for (const bool obfuscate : {true, false}) {
        BOOST_TEST_CONTEXT("obfuscate=" << obfuscate)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "db";
            const RawBytes key = Key({'v', 0x01});
            const std::vector<unsigned char> value = Payload(0x5a);
            const std::vector<unsigned char> plain = Serialized(value);
            std::vector<unsigned char> library_key;
            {
                CDBWrapper db{OnDisk(path, obfuscate)};
                BOOST_CHECK_EQUAL(db.GetName(), "db");
                BOOST_CHECK_EQUAL(db.GetObfuscation().IsActive(), obfuscate);
                library_key.assign(db.GetObfuscation().Key().begin(), db.GetObfuscation().Key().end());
                if (!obfuscate) BOOST_CHECK(library_key == std::vector<unsigned char>(8, 0));

                db.Write(key, value);
                std::vector<unsigned char> read_back;
                BOOST_REQUIRE(db.Read(key, read_back));
                BOOST_CHECK(read_back == value);

                // The iterator removes the obfuscation the same way; the
                // key's own entry is visible only when there is one.
                const auto keys = KeysFrom(db, nullptr);
                BOOST_CHECK_EQUAL(std::ranges::count(keys, std::string{OBFUSCATION_KEY_KEY_HEX}), obfuscate ? 1 : 0);
                auto it = db.NewIterator();
                it->Seek(key);
                BOOST_REQUIRE(it->Valid());
                const auto deobfuscated = it->DeobfuscatedValue();
                BOOST_CHECK_EQUAL(HexStr(deobfuscated), HexStr(plain));
            }

            const std::string files = ReadDatabaseFiles(path);
            const auto stored_key = FindStoredObfuscationKey(files);
            if (obfuscate) {
                BOOST_REQUIRE_MESSAGE(stored_key, "no 0e00obfuscate_key -> 08 <8 bytes> entry in the database files");
                BOOST_CHECK_EQUAL(HexStr(*stored_key), HexStr(library_key));
                BOOST_CHECK(*stored_key != std::vector<unsigned char>(8, 0));
                const auto stored_value = Xor(plain, *stored_key);
                BOOST_CHECK(stored_value != plain);
                BOOST_CHECK_MESSAGE(ContainsBytes(files, stored_value), "obfuscated value bytes not found on disk");
                BOOST_CHECK_MESSAGE(!ContainsBytes(files, value), "plain value bytes leaked to disk");
            } else {
                BOOST_CHECK(!stored_key);
                BOOST_CHECK_MESSAGE(ContainsBytes(files, plain), "plain value bytes not found on disk");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(obfuscation_converts_and_compares)
{
    // Core's forms: an Obfuscation is true when it changes data, equal to
    // another with the same key; dbwrapper_private::GetObfuscation reads a
    // database's.
    const Obfuscation none;
    const std::array<unsigned char, Obfuscation::KEY_SIZE> key{1, 2, 3, 4, 5, 6, 7, 8};
    const Obfuscation some{key};
    BOOST_CHECK(!none);
    BOOST_CHECK(some);
    BOOST_CHECK(none == Obfuscation{});
    BOOST_CHECK(some == Obfuscation{key});
    BOOST_CHECK(!(some == none));
    auto other_key = key;
    other_key[7] = 9;
    BOOST_CHECK(!(some == Obfuscation{other_key}));

    for (const bool obfuscate : {true, false}) {
        BOOST_TEST_CONTEXT("obfuscate=" << obfuscate)
        {
            TempDirFixture tmp;
            Obfuscation first;
            {
                CDBWrapper db{OnDisk(tmp.m_path / "db", obfuscate)};
                BOOST_CHECK(&dbwrapper_private::GetObfuscation(db) == &db.GetObfuscation());
                BOOST_CHECK_EQUAL(bool{dbwrapper_private::GetObfuscation(db)}, obfuscate);
                first = dbwrapper_private::GetObfuscation(db);
                db.Write(Key({'a'}), uint8_t{1});
            }
            // Not empty: reopened with the other flag, it keeps its key.
            CDBWrapper reopened{OnDisk(tmp.m_path / "db", !obfuscate)};
            BOOST_CHECK(dbwrapper_private::GetObfuscation(reopened) == first);
        }
    }
}

// Apply XORs whole 64-bit words and then the tail: at every length and
// with any key it equals the definition, byte i XOR key[i % 8], and
// applying it twice gives the data back.
BOOST_AUTO_TEST_CASE(obfuscation_matches_the_bytewise_definition)
{
    TestRand rand{0x0bf5ca7e};
    for (int run = 0; run < 200; ++run) {
        std::array<unsigned char, Obfuscation::KEY_SIZE> key;
        for (auto& b : key) b = static_cast<unsigned char>(rand.Next());
        const Obfuscation obfuscation{key};
        std::vector<std::byte> plain(rand.Below(70));
        for (auto& b : plain) b = std::byte(rand.Next());
        auto data = plain;
        obfuscation.Apply(data);
        for (size_t i = 0; i < data.size(); ++i) {
            BOOST_REQUIRE_EQUAL(int(data[i]), int(plain[i] ^ std::byte{key[i % key.size()]}));
        }
        obfuscation.Apply(data);
        BOOST_CHECK(data == plain);
    }
}

// The database's key order is bytewise, word by word or not: random keys
// with long shared prefixes, every length up to 40 and bytes above 0x7f
// (which a signed char compare would put first) order as
// std::string_view::compare orders them.
BOOST_AUTO_TEST_CASE(key_order_is_bytewise)
{
    const auto sign = [](int n) { return (n > 0) - (n < 0); };
    TestRand rand{0xb17e5};
    for (int run = 0; run < 20'000; ++run) {
        std::string a(rand.Below(41), '\0');
        for (auto& c : a) c = static_cast<char>(rand.OneIn(4) ? 0xff - rand.Below(3) : rand.Below(4));
        // b shares a prefix of a, then differs, stops or goes on.
        std::string b = a.substr(0, rand.Below(a.size() + 1));
        const size_t more = rand.Below(12);
        for (size_t i = 0; i < more; ++i) b.push_back(static_cast<char>(rand.OneIn(4) ? 0xff - rand.Below(3) : rand.Below(4)));
        BOOST_TEST_CONTEXT(HexStr(std::as_bytes(std::span{a})) << " vs " << HexStr(std::as_bytes(std::span{b})))
        {
            BOOST_REQUIRE_EQUAL(sign(dbwrapper_private::CompareKeys(a, b)), sign(std::string_view{a}.compare(b)));
            BOOST_REQUIRE_EQUAL(sign(dbwrapper_private::CompareKeys(b, a)), sign(std::string_view{b}.compare(a)));
            BOOST_REQUIRE_EQUAL(dbwrapper_private::CompareKeys(a, a), 0);
        }
    }
}

// LevelDB records its comparator's name in the database and refuses to
// open one written under another name: the name stays the default's, so
// Bitcoin Core and coinsdb open each other's chainstates.
BOOST_AUTO_TEST_CASE(database_names_leveldbs_default_comparator)
{
    TempDirFixture tmp;
    {
        CDBWrapper db{OnDisk(tmp.m_path / "db", true)};
        db.Write(Key({'a'}), uint8_t{1});
    }
    BOOST_CHECK(ReadDatabaseFiles(tmp.m_path / "db").find("leveldb.BytewiseComparator") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(reopen_keeps_key_and_data)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    std::array<unsigned char, Obfuscation::KEY_SIZE> original_key;
    {
        CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
        original_key = db.GetObfuscation().Key();
        db.Write(Key({'a'}), uint32_t{0xdeadbeef});
        db.Write(Key({'b'}), Payload(7), /*sync=*/true);
    }
    // The flag only matters for a new database: an existing key is always
    // used, whatever the caller asks for.
    for (const bool obfuscate : {true, false, true}) {
        BOOST_TEST_CONTEXT("reopened with obfuscate=" << obfuscate)
        {
            CDBWrapper db{OnDisk(path, obfuscate)};
            BOOST_CHECK(db.GetObfuscation().Key() == original_key);
            uint32_t number{0};
            BOOST_CHECK(db.Read(Key({'a'}), number));
            BOOST_CHECK_EQUAL(number, 0xdeadbeefU);
            std::vector<unsigned char> payload;
            BOOST_CHECK(db.Read(Key({'b'}), payload));
            BOOST_CHECK(payload == Payload(7));
        }
    }
}

BOOST_AUTO_TEST_CASE(unobfuscated_database_stays_unobfuscated)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    {
        CDBWrapper db{OnDisk(path, /*obfuscate=*/false)};
        db.Write(Key({'x'}), Payload(3));
    }
    {
        // A database that already holds data and no key keeps the all-zero
        // key: obfuscating now would garble every stored value.
        CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
        BOOST_CHECK(!db.GetObfuscation().IsActive());
        BOOST_CHECK(!db.Exists(OBFUSCATION_KEY_KEY));
        std::vector<unsigned char> payload;
        BOOST_REQUIRE(db.Read(Key({'x'}), payload));
        BOOST_CHECK(payload == Payload(3));
        db.Write(Key({'y'}), Payload(4));
    }
    const std::string files = ReadDatabaseFiles(path);
    BOOST_CHECK(!FindStoredObfuscationKey(files));
    BOOST_CHECK(ContainsBytes(files, Serialized(Payload(4))));

    // An unobfuscated database that is still empty is as good as new: it
    // gets a key when reopened with obfuscation asked for.
    const auto empty_path = tmp.m_path / "empty";
    { CDBWrapper db{OnDisk(empty_path, /*obfuscate=*/false)}; }
    {
        CDBWrapper db{OnDisk(empty_path, /*obfuscate=*/true)};
        BOOST_CHECK(db.GetObfuscation().IsActive());
    }
}

BOOST_AUTO_TEST_CASE(bad_obfuscation_key_size)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    {
        // Unobfuscated, so the entry is stored exactly as written.
        CDBWrapper db{OnDisk(path, /*obfuscate=*/false)};
        db.Write(OBFUSCATION_KEY_KEY, std::vector<unsigned char>{1, 2, 3, 4});
    }
    BOOST_CHECK_EXCEPTION(CDBWrapper{OnDisk(path, /*obfuscate=*/true)}, dbwrapper_error, [](const dbwrapper_error& e) {
        return std::string{e.what()} == "Obfuscation key of db has 4 bytes, expected 8";
    });
}

BOOST_AUTO_TEST_CASE(batch_is_atomic)
{
    for (const bool obfuscate : {true, false}) {
        BOOST_TEST_CONTEXT("obfuscate=" << obfuscate)
        {
            CDBWrapper db{DBParams{.path = "batch", .memory_only = true, .obfuscate = obfuscate}};
            db.Write(Key({'k', 1}), uint8_t{1});
            db.Write(Key({'k', 4}), uint8_t{4});

            CDBBatch batch{db};
            batch.Write(Key({'k', 2}), uint8_t{2});
            batch.Erase(Key({'k', 1}));
            batch.Write(Key({'k', 3}), uint8_t{3});
            // Later operations on the same key win within a batch.
            batch.Write(Key({'k', 4}), uint8_t{40});
            batch.Erase(Key({'k', 4}));
            batch.Erase(Key({'k', 5}));
            batch.Write(Key({'k', 5}), uint8_t{50});

            // Nothing is visible before the batch is written.
            BOOST_CHECK(db.Exists(Key({'k', 1})));
            BOOST_CHECK(!db.Exists(Key({'k', 2})));
            BOOST_CHECK(!db.Exists(Key({'k', 3})));
            BOOST_CHECK(db.Exists(Key({'k', 4})));
            BOOST_CHECK(!db.Exists(Key({'k', 5})));

            db.WriteBatch(batch, /*sync=*/true);

            struct Expect {
                unsigned char key;
                std::optional<uint8_t> value;
            };
            for (const auto& [key, value] : {Expect{1, {}}, Expect{2, 2}, Expect{3, 3}, Expect{4, {}}, Expect{5, 50}}) {
                uint8_t stored{0};
                BOOST_CHECK_EQUAL(db.Read(Key({'k', key}), stored), value.has_value());
                BOOST_CHECK_EQUAL(db.Exists(Key({'k', key})), value.has_value());
                if (value) BOOST_CHECK_EQUAL(stored, *value);
            }
        }
    }
}

// InKeyOrder: true while each record's key is above the last one's, until
// Clear(). Equal keys count as out of order (the later record must win).
BOOST_AUTO_TEST_CASE(batch_in_key_order)
{
    struct Case {
        std::vector<unsigned char> keys; // each is Key({'k', key}), all written or all erased
        bool in_order;
    };
    const std::vector<Case> cases{
        {{}, true},
        {{0x10}, true},
        {{0x10, 0x20, 0x30}, true},
        {{0x10, 0x30, 0x20}, false},
        {{0x10, 0x10}, false},
        {{0x30, 0x10}, false},
    };
    CDBWrapper db{DBParams{.path = "in_key_order", .memory_only = true}};
    CDBBatch batch{db};
    for (const auto& [keys, in_order] : cases) {
        for (const bool erase : {false, true}) {
            batch.Clear();
            BOOST_CHECK(batch.InKeyOrder());
            for (const unsigned char key : keys) {
                if (erase) {
                    batch.Erase(Key({'k', key}));
                } else {
                    batch.Write(Key({'k', key}), uint8_t{1});
                }
            }
            BOOST_CHECK_MESSAGE(batch.InKeyOrder() == in_order, keys.size() << " keys, erase=" << erase);
        }
    }
    // Out of order stays out of order, whatever comes after.
    batch.Clear();
    batch.Write(Key({'k', 0x30}), uint8_t{1});
    batch.Write(Key({'k', 0x10}), uint8_t{1});
    batch.Write(Key({'k', 0xff}), uint8_t{1});
    BOOST_CHECK(!batch.InKeyOrder());
}

// A batch reaches LevelDB in descending key order whatever order its
// records were added in (see CDBBatch::Impl): reversed when they came in
// ascending order, sorted otherwise, where a key written twice, or written
// and then erased, in one batch still ends as the last record said.
BOOST_AUTO_TEST_CASE(batch_is_written_in_descending_key_order)
{
    struct Case {
        std::string name;
        std::function<void(CDBBatch&)> fill;
        std::vector<unsigned char> stored; // in descending order
        std::vector<unsigned char> gone;
        bool in_key_order;
    };
    const std::vector<Case> cases{
        {"ascending",
         [](CDBBatch& batch) {
             for (const unsigned char k : {0x10, 0x20, 0x30, 0x40, 0x50}) batch.Write(Key({'k', k}), Payload(k));
             batch.Erase(Key({'k', 0x60}));
         },
         {0x50, 0x40, 0x30, 0x20, 0x10},
         {0x60},
         true},
        {"out of order, with repeats",
         [](CDBBatch& batch) {
             for (const unsigned char k : {0x50, 0x20, 0x40, 0x10, 0x30}) batch.Write(Key({'k', k}), Payload(k));
             batch.Write(Key({'k', 0x20}), Payload(0x99)); // again: this one wins
             batch.Write(Key({'k', 0x60}), Payload(0x60));
             batch.Erase(Key({'k', 0x60}));                 // then gone
             batch.Erase(Key({'k', 0x70}));
             batch.Write(Key({'k', 0x70}), Payload(0x70)); // erased, then written
         },
         {0x70, 0x50, 0x40, 0x30, 0x99, 0x10},
         {0x60},
         false},
        // The sort compares 8-byte key prefixes first (zero-padded when
        // shorter): keys that tie there are ordered by all their bytes.
        {"keys that tie on their first 8 bytes",
         [](CDBBatch& batch) {
             batch.Write(Key({'k', 1, 1, 1, 1, 1, 1, 1, 0x05}), Payload(0x05));
             batch.Write(Key({'k', 1, 1, 1, 1, 1, 1, 1}), Payload(0x04));
             batch.Write(Key({'k', 1, 1, 1, 1, 1, 1, 1, 0x00}), Payload(0x03));
             batch.Write(Key({'k', 1, 1, 1, 1, 1, 1, 1, 0x06, 0x00}), Payload(0x06));
             batch.Write(Key({'k', 0x20}), Payload(0x20));
             batch.Write(Key({'k', 0x20, 0x00}), Payload(0x21));
             batch.Write(Key({'k', 0x20}), Payload(0x99)); // again: this one wins
         },
         {0x21, 0x99, 0x06, 0x05, 0x03, 0x04},
         {},
         false},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT(c.name)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "db";
            {
                CDBWrapper db{OnDisk(path, /*obfuscate=*/false)};
                CDBBatch batch{db};
                c.fill(batch);
                BOOST_CHECK_EQUAL(batch.InKeyOrder(), c.in_key_order);
                db.WriteBatch(batch);
                for (const unsigned char k : c.gone) BOOST_CHECK(!db.Exists(Key({'k', k})));
                std::vector<unsigned char> value;
                BOOST_CHECK(db.Read(Key({'k', 0x20}), value) && value == Payload(c.in_key_order ? 0x20 : 0x99));
            }
            // The write-ahead log holds the records in the order LevelDB got them.
            const std::string files = ReadDatabaseFiles(path);
            size_t last = 0;
            for (const unsigned char payload : c.stored) {
                const size_t at = files.find(AsString(Payload(payload)));
                BOOST_REQUIRE_MESSAGE(at != std::string::npos, "payload " << int{payload} << " not in the files");
                BOOST_CHECK_MESSAGE(at > last, "payload " << int{payload} << " before the one of a bigger key");
                last = at;
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(batch_reserve_keeps_pending_records)
{
    // Reserve moves the pending records into a bigger buffer: none is lost
    // or reordered, the size estimate is unchanged, and later records and
    // partial-batch reuse (Clear) work as before.
    CDBWrapper db{DBParams{.path = "reserve", .memory_only = true}};
    db.Write(Key({'r', 9}), uint8_t{9});
    CDBBatch batch{db};
    batch.Write(Key({'r', 1}), uint8_t{1});
    batch.Write(Key({'r', 2}), uint8_t{2});
    batch.Erase(Key({'r', 9}));
    batch.Write(Key({'r', 2}), uint8_t{20});
    const size_t pending = batch.SizeEstimate();
    batch.Reserve(size_t{1} << 20);
    BOOST_CHECK_EQUAL(batch.SizeEstimate(), pending);
    // Smaller than what is reserved, or than what is pending: no-ops.
    batch.Reserve(4096);
    batch.Reserve(1);
    BOOST_CHECK_EQUAL(batch.SizeEstimate(), pending);
    batch.Write(Key({'r', 3}), uint8_t{3});
    db.WriteBatch(batch);
    for (const auto& [key, value] : std::vector<std::pair<unsigned char, int>>{{1, 1}, {2, 20}, {3, 3}, {9, -1}}) {
        uint8_t stored{0};
        BOOST_CHECK_EQUAL(db.Read(Key({'r', key}), stored), value >= 0);
        if (value >= 0) BOOST_CHECK_EQUAL(stored, value);
    }
    batch.Clear();
    batch.Write(Key({'r', 4}), uint8_t{4});
    db.WriteBatch(batch);
    BOOST_CHECK(db.Exists(Key({'r', 4})));
    BOOST_CHECK(!db.Exists(Key({'r', 9})));
}

BOOST_AUTO_TEST_CASE(batch_reserve_holds_its_buffers)
{
    // A batch reserved for RESERVED bytes stages records up to that without
    // growing its buffer; the LevelDB batch built when it is written is
    // sized once, for exactly its records (what SizeLevelDBBatch relies on
    // in LevelDB): a doubling string would end at 15 << k bytes, well past
    // the three quarters of RESERVED filled here. Once built, the staged
    // copy is released, and the next record reserves it again.
    constexpr size_t RESERVED = size_t{1} << 20;
    const auto fill = [](CDBBatch& batch, size_t up_to, unsigned char seed) {
        for (uint32_t i = 0; batch.SizeEstimate() + 256 <= up_to; ++i) {
            const auto byte = [&](int shift) { return static_cast<unsigned char>(i >> shift); };
            batch.Write(Key({'q', byte(16), byte(8), byte(0)}), Payload(seed));
        }
    };
    CDBWrapper db{DBParams{.path = "reserve_buffers", .memory_only = true}};
    CDBBatch batch{db};
    batch.Reserve(RESERVED);
    const auto reserved = dbwrapper_private::GetBatchCapacity(batch);
    BOOST_CHECK_GE(reserved.staged, RESERVED);
    BOOST_CHECK_EQUAL(reserved.leveldb, 0U);
    for (const unsigned char seed : {1, 2}) {
        BOOST_TEST_CONTEXT("filled with payload " << int{seed})
        {
            fill(batch, RESERVED * 3 / 4, seed);
            const size_t size = batch.SizeEstimate();
            BOOST_CHECK_GT(size, RESERVED * 3 / 4 - 512);
            BOOST_CHECK_EQUAL(dbwrapper_private::GetBatchCapacity(batch).staged, reserved.staged);
            db.WriteBatch(batch);
            const auto written = dbwrapper_private::GetBatchCapacity(batch);
            // The one record SizeLevelDBBatch puts takes a few bytes more.
            BOOST_CHECK_GE(written.leveldb, size);
            BOOST_CHECK_LE(written.leveldb, size + 32);
            BOOST_CHECK_EQUAL(written.staged, 0U);
            batch.Clear();
            BOOST_CHECK_EQUAL(dbwrapper_private::GetBatchCapacity(batch).leveldb, 0U);
        }
    }
    // A batch that outgrows its staging buffer does grow it: the probe sees it.
    fill(batch, 2 * RESERVED, 3);
    BOOST_CHECK_GT(dbwrapper_private::GetBatchCapacity(batch).staged, reserved.staged);
}

// Records in strictly ascending key order are reversed, others sorted:
// random batches (ascending runs, repeats, erases, a Reserve midway)
// against a model must leave the same database and give the same size
// estimate as the records' LevelDB encoding.
BOOST_AUTO_TEST_CASE(batch_in_and_out_of_order_match_a_model)
{
    CDBWrapper db{DBParams{.path = "order_model", .memory_only = true}};
    std::map<unsigned char, std::optional<std::vector<unsigned char>>> model;
    TestRand rng{0x0dde12};
    const auto next = [&] { return static_cast<uint32_t>(rng.Next()); };
    const size_t empty = CDBBatch{db}.SizeEstimate();
    for (int round = 0; round < 200; ++round) {
        CDBBatch batch{db};
        std::map<unsigned char, std::optional<std::vector<unsigned char>>> pending;
        size_t expected_size = empty;
        const size_t records = next() % 40;
        // An ascending run first, of random length; then anything.
        const size_t ascending = next() % (records + 1);
        unsigned char key = static_cast<unsigned char>(next() % 8);
        for (size_t i = 0; i < records; ++i) {
            key = i < ascending ? static_cast<unsigned char>(std::min(255u, key + 1u + next() % 8)) : static_cast<unsigned char>(next());
            if (i == records / 2 && next() % 4 == 0) batch.Reserve(size_t{1} << 16);
            if (next() % 5 == 0) {
                batch.Erase(Key({'m', key}));
                pending[key] = std::nullopt;
                expected_size += 1 + 1 + 2;
            } else {
                const auto value = Payload(static_cast<unsigned char>(next()));
                batch.Write(Key({'m', key}), value);
                pending[key] = value;
                expected_size += 1 + 1 + 2 + 1 + 1 + value.size();
            }
            BOOST_CHECK_EQUAL(batch.SizeEstimate(), expected_size);
        }
        db.WriteBatch(batch);
        for (auto& [k, v] : pending) model[k] = v;
        for (const auto& [k, v] : model) {
            std::vector<unsigned char> stored;
            BOOST_CHECK_EQUAL(db.Read(Key({'m', k}), stored), v.has_value());
            if (v) BOOST_CHECK(stored == *v);
        }
    }
}

BOOST_AUTO_TEST_CASE(batch_size_estimate)
{
    CDBWrapper db{DBParams{.path = "sizes", .memory_only = true}};
    CDBBatch batch{db};
    const size_t empty = batch.SizeEstimate();
    BOOST_CHECK_GT(empty, 0U);

    // LevelDB's record of a put: tag, varint key length, key, varint value
    // length, value; of a delete: tag, varint key length, key.
    const RawBytes short_key = Key({'a', 'b', 'c'});
    const std::vector<unsigned char> small_value(10, 0x42);
    const std::vector<unsigned char> large_value(300, 0x42);
    struct Step {
        std::function<void()> apply;
        size_t growth;
    };
    const std::vector<Step> steps{
        {[&] { batch.Write(short_key, small_value); }, 1 + 1 + 3 + 1 + (1 + 10)},
        {[&] { batch.Erase(short_key); }, 1 + 1 + 3},
        // 302 serialized bytes need a two-byte varint length.
        {[&] { batch.Write(short_key, large_value); }, 1 + 1 + 3 + 2 + (3 + 300)},
        {[&] { batch.Write(Key({}), uint8_t{0}); }, 1 + 1 + 0 + 1 + 1},
    };
    size_t expected = empty;
    for (size_t i = 0; i < steps.size(); ++i) {
        steps[i].apply();
        expected += steps[i].growth;
        BOOST_CHECK_MESSAGE(batch.SizeEstimate() == expected,
                            "step " << i << ": estimate " << batch.SizeEstimate() << ", expected " << expected);
    }

    batch.Clear();
    BOOST_CHECK_EQUAL(batch.SizeEstimate(), empty);
    // A cleared batch writes nothing.
    db.WriteBatch(batch);
    BOOST_CHECK(!db.Exists(short_key));
    BOOST_CHECK(!db.Exists(Key({})));

    // And can be reused.
    batch.Write(short_key, small_value);
    db.WriteBatch(batch);
    BOOST_CHECK(db.Exists(short_key));
}

BOOST_AUTO_TEST_CASE(iteration_in_byte_order)
{
    const std::vector<RawBytes> keys{Key({0xff, 0xff}), Key({0x01, 0x00}), Key({0x80}), Key({0x02}), Key({0x00}),
                                     Key({0x01, 0xff}), Key({0x7f}), Key({0xff}), Key({0x01})};
    const std::vector<std::string> sorted{"00", "01", "0100", "01ff", "02", "7f", "80", "ff", "ffff"};

    struct SeekCase {
        std::optional<RawBytes> target;
        size_t first; // index into sorted of the first key expected
    };
    const std::vector<SeekCase> seeks{
        {std::nullopt, 0},
        {Key({0x00}), 0},
        {Key({0x01}), 1},
        {Key({0x01, 0x80}), 3},
        {Key({0x01, 0xff, 0x00}), 4},
        {Key({0x03}), 5},
        {Key({0xff}), 7},
        {Key({0xff, 0xff, 0x00}), sorted.size()},
    };

    for (const bool obfuscate : {false, true}) {
        TempDirFixture tmp;
        CDBWrapper db{OnDisk(tmp.m_path / "db", obfuscate)};
        for (const auto& key : keys) db.Write(key, key.bytes);

        for (const auto& seek : seeks) {
            BOOST_TEST_CONTEXT("obfuscate=" << obfuscate << " seek "
                                            << (seek.target ? HexStr(seek.target->bytes) : std::string{"<first>"}))
            {
                std::vector<std::string> expected{sorted.begin() + seek.first, sorted.end()};
                // The key's own entry (0e 00 ...) sorts between 02 and 7f.
                if (obfuscate && seek.first <= 5) {
                    expected.insert(std::ranges::find(expected, "7f"), std::string{OBFUSCATION_KEY_KEY_HEX});
                }
                const auto actual = KeysFrom(db, seek.target ? &*seek.target : nullptr);
                BOOST_CHECK_EQUAL_COLLECTIONS(actual.begin(), actual.end(), expected.begin(), expected.end());
            }
        }

        // Values come back de-obfuscated and typed through the iterator.
        auto it = db.NewIterator();
        for (it->Seek(Key({0x01})); it->Valid() && HexStr(it->RawKey()) != "7f"; it->Next()) {
            RawBytes key;
            std::vector<unsigned char> value;
            BOOST_REQUIRE(it->GetKey(key));
            if (HexStr(key.bytes) == OBFUSCATION_KEY_KEY_HEX) continue;
            BOOST_REQUIRE(it->GetValue(value));
            BOOST_CHECK(value == key.bytes);
        }
        // A value that does not parse as the asked type is reported, not thrown.
        it->Seek(Key({0x01, 0x00}));
        BOOST_REQUIRE(it->Valid());
        uint64_t too_wide{0};
        BOOST_CHECK(!it->GetValue(too_wide));
    }
}

BOOST_AUTO_TEST_CASE(exists_read_erase)
{
    CDBWrapper db{DBParams{.path = "exists", .memory_only = true}};
    const RawBytes key = Key({'e'});
    uint32_t value{0};

    BOOST_CHECK(!db.Exists(key));
    BOOST_CHECK(!db.Read(key, value));
    // Erasing what is not there is not an error.
    BOOST_CHECK_NO_THROW(db.Erase(key));

    db.Write(key, uint32_t{77});
    BOOST_CHECK(db.Exists(key));
    BOOST_CHECK(db.Read(key, value));
    BOOST_CHECK_EQUAL(value, 77U);
    // A value too short for the asked type does not read.
    uint64_t wide{0};
    BOOST_CHECK(!db.Read(key, wide));

    db.Write(key, uint32_t{78});
    BOOST_CHECK(db.Read(key, value));
    BOOST_CHECK_EQUAL(value, 78U);

    db.Erase(key, /*sync=*/true);
    BOOST_CHECK(!db.Exists(key));
    BOOST_CHECK(!db.Read(key, value));
    // Only the obfuscation key is left.
    BOOST_CHECK(!db.IsEmpty());
    db.Erase(OBFUSCATION_KEY_KEY);
    BOOST_CHECK(db.IsEmpty());
}

BOOST_AUTO_TEST_CASE(estimate_size)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    constexpr size_t ENTRIES = 2000;
    constexpr size_t VALUE_SIZE = 100;
    {
        CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
        CDBBatch batch{db};
        for (size_t i = 0; i < ENTRIES; ++i) {
            batch.Write(Key({'a', static_cast<unsigned char>(i >> 8), static_cast<unsigned char>(i)}),
                        RawBytes{std::vector<unsigned char>(VALUE_SIZE, static_cast<unsigned char>(i))});
        }
        db.WriteBatch(batch);
    }
    // Estimates cover table files only: reopen with a compaction so the
    // data leaves the log.
    DBParams params = OnDisk(path, /*obfuscate=*/true);
    params.options.force_compact = true;
    CDBWrapper db{params};
    const size_t raw_bytes = ENTRIES * (3 + VALUE_SIZE);
    const size_t inside = db.EstimateSize(Key({'a'}), Key({'b'}));
    BOOST_CHECK_MESSAGE(inside >= raw_bytes / 2 && inside <= raw_bytes * 2,
                        "estimate " << inside << " for about " << raw_bytes << " bytes of keys and values");
    // Half the keys give about half the size.
    const size_t half = db.EstimateSize(Key({'a'}), Key({'a', 0x03, 0xe8}));
    BOOST_CHECK_LT(half, inside);
    BOOST_CHECK_GT(half, inside / 4);
    // Ranges holding nothing are (nearly) free.
    BOOST_CHECK_LT(db.EstimateSize(Key({'x'}), Key({'y'})), 1024U);
    BOOST_CHECK_LT(db.EstimateSize(Key({'a'}), Key({'a'})), 1024U);
}

BOOST_AUTO_TEST_CASE(table_files_are_written_in_large_writes)
{
    // LevelDB writes a table in 4 KiB blocks and flushes each; the
    // database's environment collects them into TABLE_WRITE_BYTES writes
    // (dbwrapper/env.h). A full compaction writes table files only
    // (and a MANIFEST record or two), so its writes average far above a
    // block. Without the buffering they average about 4 KiB.
    TempDirFixture tmp;
    CDBWrapper db{DBParams{.path = tmp.m_path / "db", .cache_bytes = TABLE_TEST_CACHE}};
    WriteTableEntries(db);

    const WriteCounters before = ReadWriteCounters();
    db.CompactFull();
    const WriteCounters after = ReadWriteCounters();
    const uint64_t bytes = after.bytes - before.bytes;
    const uint64_t calls = after.calls - before.calls;
    // The compaction wrote the whole database as tables: about 8 MB, once
    // out of the memtable and maybe again one level down.
    BOOST_REQUIRE_GT(bytes, TABLE_ENTRIES * TABLE_VALUE_SIZE);
    BOOST_REQUIRE_GT(calls, 0U);
    BOOST_TEST_MESSAGE(bytes << " bytes in " << calls << " writes");
    BOOST_CHECK_GE(bytes / calls, 64U * 1024);

    // And the tables hold what was written.
    for (size_t i = 0; i < TABLE_ENTRIES; i += 97) {
        std::vector<unsigned char> value;
        BOOST_REQUIRE(db.Read(TableKey(i), value));
        BOOST_CHECK(value == TableValue(i));
    }
}

// A disk that fills while LevelDB writes a table (here: the memtable's,
// during a compaction) fails one of the held-back 1 MiB writes. LevelDB
// drops that table and refuses further writes; the records stay in its log,
// and the database reopens with all of them.
BOOST_AUTO_TEST_CASE(full_disk_during_a_table_write_loses_nothing)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    {
        DBParams params{.path = path, .cache_bytes = TABLE_TEST_CACHE};
        // The log takes about 8.1 MB; the table that follows finds 2 MB.
        params.options.fail_writes_after_bytes = 10 << 20;
        CDBWrapper db{params};
        WriteTableEntries(db);
        BOOST_REQUIRE(!db.WriteFailure());
        db.CompactFull();
        BOOST_CHECK_EXCEPTION(db.Write(Key({'g'}), uint8_t{1}), dbwrapper_error, [](const dbwrapper_error& e) {
            return std::string{e.what()} == "Fatal LevelDB error in db: IO error: simulated full disk: No space left on device";
        });
        std::vector<unsigned char> value;
        BOOST_CHECK(db.Read(TableKey(TABLE_ENTRIES - 1), value) && value == TableValue(TABLE_ENTRIES - 1));
    }
    CDBWrapper reopened{DBParams{.path = path, .cache_bytes = TABLE_TEST_CACHE}};
    for (size_t i = 0; i < TABLE_ENTRIES; ++i) {
        std::vector<unsigned char> value;
        BOOST_REQUIRE_MESSAGE(reopened.Read(TableKey(i), value) && value == TableValue(i), "entry " << i);
    }
    BOOST_CHECK(!reopened.Exists(Key({'g'})));
}

BOOST_AUTO_TEST_CASE(memory_only)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "mem";
    {
        CDBWrapper db{DBParams{.path = path, .memory_only = true, .obfuscate = true}};
        BOOST_CHECK(db.GetObfuscation().IsActive());
        db.Write(Key({'m'}), Payload(1));
        std::vector<unsigned char> payload;
        BOOST_CHECK(db.Read(Key({'m'}), payload));
        BOOST_CHECK(payload == Payload(1));
        BOOST_CHECK_GT(db.DynamicMemoryUsage(), 0U);

        // Two in-memory databases of the same name do not share anything.
        CDBWrapper other{DBParams{.path = path, .memory_only = true, .obfuscate = false}};
        BOOST_CHECK(!other.Exists(Key({'m'})));
        BOOST_CHECK(!other.GetObfuscation().IsActive());
        BOOST_CHECK(other.IsEmpty());
    }
    // Nothing touched the disk, and nothing survives.
    BOOST_CHECK(!std::filesystem::exists(path));
    CDBWrapper again{DBParams{.path = path, .memory_only = true}};
    BOOST_CHECK(!again.Exists(Key({'m'})));
}

BOOST_AUTO_TEST_CASE(wipe_data)
{
    for (const bool obfuscate : {true, false}) {
        BOOST_TEST_CONTEXT("obfuscate=" << obfuscate)
        {
            TempDirFixture tmp;
            const auto path = tmp.m_path / "db";
            std::array<unsigned char, Obfuscation::KEY_SIZE> old_key;
            {
                CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
                old_key = db.GetObfuscation().Key();
                db.Write(Key({'w'}), uint8_t{1});
            }
            DBParams params = OnDisk(path, obfuscate);
            params.wipe_data = true;
            {
                CDBWrapper db{params};
                BOOST_CHECK(!db.Exists(Key({'w'})));
                BOOST_CHECK_EQUAL(db.GetObfuscation().IsActive(), obfuscate);
                // A wiped database is new: it gets a new key (or none).
                BOOST_CHECK(db.GetObfuscation().Key() != old_key);
                db.Write(Key({'n'}), uint8_t{2});
            }
            // Without wipe_data the new contents stay.
            CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
            BOOST_CHECK(!db.Exists(Key({'w'})));
            BOOST_CHECK(db.Exists(Key({'n'})));
            BOOST_CHECK_EQUAL(db.GetObfuscation().IsActive(), obfuscate);
        }
    }
}

BOOST_AUTO_TEST_CASE(open_errors)
{
    TempDirFixture tmp;

    // Damages a closed database in place.
    using Damage = std::function<void(const std::filesystem::path& dir)>;
    const auto overwrite = [](const std::filesystem::path& file, const std::string& contents) {
        std::ofstream out{file, std::ios::binary | std::ios::trunc};
        out << contents;
    };
    const auto find_file = [](const std::filesystem::path& dir, const std::string& prefix) {
        for (const auto& entry : std::filesystem::directory_iterator{dir}) {
            if (entry.path().filename().string().starts_with(prefix)) return entry.path();
        }
        BOOST_FAIL("no " << prefix << " file in " << dir);
        return std::filesystem::path{};
    };

    struct Case {
        std::string name;
        Damage damage;
        std::vector<std::string> message_parts;
    };
    const std::vector<Case> cases{
        {"CURRENT without newline", [&](const auto& dir) { overwrite(dir / "CURRENT", "MANIFEST-000002"); },
         {"Fatal LevelDB error in db: ", "Corruption", "CURRENT file does not end with newline"}},
        {"CURRENT names a missing MANIFEST", [&](const auto& dir) { overwrite(dir / "CURRENT", "MANIFEST-999999\n"); },
         {"Fatal LevelDB error in db: ", "CURRENT points to a non-existent file", "MANIFEST-999999"}},
        {"MANIFEST replaced by garbage",
         [&](const auto& dir) { overwrite(find_file(dir, "MANIFEST-"), std::string(200, '\x5a')); },
         {"Fatal LevelDB error in db: ", "Corruption", "descriptor"}},
    };

    for (const auto& test : cases) {
        BOOST_TEST_CONTEXT(test.name)
        {
            const auto path = tmp.m_path / test.name / "db";
            {
                CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
                db.Write(Key({'d'}), Payload(9), /*sync=*/true);
            }
            std::map<std::filesystem::path, std::string> originals;
            for (const auto& entry : std::filesystem::directory_iterator{path}) {
                originals[entry.path()] = ReadFileToString(entry.path());
            }
            test.damage(path);
            BOOST_CHECK_EXCEPTION(CDBWrapper{OnDisk(path, /*obfuscate=*/true)}, dbwrapper_error,
                                  [&](const dbwrapper_error& e) {
                                      const std::string what = e.what();
                                      BOOST_TEST_MESSAGE("message: " << what);
                                      return std::ranges::all_of(test.message_parts, [&](const std::string& part) {
                                          return what.find(part) != std::string::npos;
                                      });
                                  });
            // The failed open destroyed nothing: undoing the damage brings
            // the data back.
            for (const auto& [file, contents] : originals) overwrite(file, contents);
            CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
            std::vector<unsigned char> payload;
            BOOST_CHECK(db.Read(Key({'d'}), payload));
            BOOST_CHECK(payload == Payload(9));
        }
    }
}

BOOST_AUTO_TEST_CASE(path_errors)
{
    TempDirFixture tmp;
    const auto file = tmp.m_path / "plain_file";
    std::ofstream{file} << "not a database";

    for (const auto& path : {file, file / "db"}) {
        BOOST_TEST_CONTEXT(path)
        {
            BOOST_CHECK_EXCEPTION(CDBWrapper{OnDisk(path, /*obfuscate=*/true)}, dbwrapper_error,
                                  [&](const dbwrapper_error& e) {
                                      const std::string what = e.what();
                                      return what.starts_with("Cannot create database directory " + path.string()) &&
                                             what.find("Not a directory") != std::string::npos;
                                  });
        }
    }
    // The file was left alone.
    BOOST_CHECK_EQUAL(ReadFileToString(file), "not a database");

    // One open handle per directory.
    const auto path = tmp.m_path / "locked";
    CDBWrapper first{OnDisk(path, /*obfuscate=*/true)};
    BOOST_CHECK_EXCEPTION(CDBWrapper{OnDisk(path, /*obfuscate=*/true)}, dbwrapper_error, [](const dbwrapper_error& e) {
        const std::string what = e.what();
        return what.starts_with("Fatal LevelDB error in locked: IO error: ") && what.find("LOCK") != std::string::npos;
    });
}

BOOST_AUTO_TEST_CASE(corrupt_table_file)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    {
        CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
        for (unsigned char i = 0; i < 50; ++i) db.Write(Key({'t', i}), Payload(i));
    }
    {
        // Move the log into a table file.
        DBParams params = OnDisk(path, /*obfuscate=*/true);
        params.options.force_compact = true;
        CDBWrapper db{params};
    }
    std::filesystem::path table;
    for (const auto& entry : std::filesystem::directory_iterator{path}) {
        if (entry.path().extension() == ".ldb") table = entry.path();
    }
    BOOST_REQUIRE_MESSAGE(!table.empty(), "no .ldb file after a compaction");
    {
        // Flip bytes inside the first data block; the index and footer at
        // the end stay intact, so the damage shows when the block is read.
        std::fstream f{table, std::ios::in | std::ios::out | std::ios::binary};
        f.seekp(64);
        f.write("\xde\xad\xbe\xef\xde\xad\xbe\xef", 8);
    }
    // Opening reads the obfuscation key, which sits in that same block.
    BOOST_CHECK_EXCEPTION(CDBWrapper{OnDisk(path, /*obfuscate=*/true)}, dbwrapper_error, [](const dbwrapper_error& e) {
        const std::string what = e.what();
        BOOST_TEST_MESSAGE("message: " << what);
        return what == "Fatal LevelDB error in db: Corruption: block checksum mismatch";
    });
}

// After a failed write (a full disk here) every later write is refused
// before it reaches LevelDB: appending behind the torn record the failure
// left in the log is what turns a full disk into "partial record without
// end" on the next open. Reads go on, and the database reopens with every
// write that succeeded.
BOOST_AUTO_TEST_CASE(failed_write_stops_all_writes)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    {
        DBParams params = OnDisk(path, /*obfuscate=*/true);
        params.options.fail_writes_after_bytes = 4096;
        CDBWrapper db{params};
        db.Write(Key({'a'}), Payload(1));
        BOOST_CHECK(!db.WriteFailure());
        CDBBatch big{db};
        for (unsigned char i = 0; i < 100; ++i) big.Write(Key({'b', i}), Payload(i));
        BOOST_CHECK_EXCEPTION(db.WriteBatch(big), dbwrapper_error, [](const dbwrapper_error& e) {
            return std::string{e.what()} == "Fatal LevelDB error in db: IO error: simulated full disk: No space left on device";
        });
        BOOST_REQUIRE(db.WriteFailure());
        // Even a write that would fit now is refused.
        BOOST_CHECK_EXCEPTION(db.Write(Key({'c'}), Payload(3)), dbwrapper_error, [](const dbwrapper_error& e) {
            return std::string{e.what()} == "Refusing to write to db after a failed write: IO error: simulated full disk: No space left on device";
        });
        BOOST_CHECK_THROW(db.Erase(Key({'a'})), dbwrapper_error);
        std::vector<unsigned char> value;
        BOOST_CHECK(db.Read(Key({'a'}), value) && value == Payload(1));
    }
    CDBWrapper reopened{OnDisk(path, /*obfuscate=*/true)};
    std::vector<unsigned char> value;
    BOOST_CHECK(reopened.Read(Key({'a'}), value) && value == Payload(1));
    BOOST_CHECK(!reopened.Exists(Key({'b', 0})));
    BOOST_CHECK(!reopened.Exists(Key({'c'})));
    reopened.Write(Key({'c'}), Payload(3));
    BOOST_CHECK(reopened.Exists(Key({'c'})));
}

// A block that does not read back, in the middle of a table. LevelDB's
// iterator steps over it to the next block and says so only in its
// status: a scan to the end throws once it gets there, and a scan that
// stops early throws at CheckStatus() once it has stepped over the block.
// Reads of keys elsewhere go on.
BOOST_AUTO_TEST_CASE(scan_over_a_corrupt_block_throws)
{
    TempDirFixture tmp;
    const auto path = tmp.m_path / "db";
    constexpr unsigned char RECORDS = 250; // about 3 KiB per 4 KiB block of 48-byte values: many blocks
    {
        DBParams params = OnDisk(path, /*obfuscate=*/true);
        CDBWrapper db{params};
        CDBBatch batch{db};
        for (unsigned char hi = 0; hi < 8; ++hi) {
            for (unsigned char lo = 0; lo < RECORDS; ++lo) batch.Write(Key({'t', hi, lo}), Payload(lo));
        }
        db.WriteBatch(batch);
        db.CompactFull();
    }
    std::filesystem::path table;
    for (const auto& entry : std::filesystem::directory_iterator{path}) {
        if (entry.path().extension() == ".ldb") table = entry.path();
    }
    BOOST_REQUIRE_MESSAGE(!table.empty(), "no .ldb file after a compaction");
    {
        // The middle of the file is one of the data blocks: they are most
        // of it, with the filter, the index and the footer at the end.
        std::fstream f{table, std::ios::in | std::ios::out | std::ios::binary};
        f.seekp(std::filesystem::file_size(table) / 2);
        f.write("\xde\xad\xbe\xef\xde\xad\xbe\xef", 8);
    }
    CDBWrapper db{OnDisk(path, /*obfuscate=*/true)};
    const auto is_corruption = [](const dbwrapper_error& e) { return std::string{e.what()} == "Fatal LevelDB error in db: Corruption: block checksum mismatch"; };
    size_t seen = 0;
    const auto scan_to_the_end = [&] {
        auto it = db.NewIterator();
        for (it->SeekToFirst(); it->Valid(); it->Next()) ++seen;
    };
    BOOST_CHECK_EXCEPTION(scan_to_the_end(), dbwrapper_error, is_corruption);
    // The obfuscation key and most records were seen, a block's worth not.
    BOOST_CHECK_GT(seen, 1U);
    BOOST_CHECK_LT(seen, 1U + 8 * RECORDS);

    // Stopping before the corrupt block: nothing skipped, nothing thrown.
    auto it = db.NewIterator();
    it->Seek(Key({'t', 0, 0}));
    for (int i = 0; i < 10; ++i) it->Next();
    BOOST_REQUIRE(it->Valid());
    BOOST_CHECK_NO_THROW(it->CheckStatus());
    // Stopping at the last record, past the corrupt block: Valid() is true,
    // CheckStatus() throws.
    it->Seek(Key({'t', 0, 0}));
    while (it->Valid()) {
        RawBytes key;
        BOOST_REQUIRE(it->GetKey(key));
        if (key == Key({'t', 7, RECORDS - 1})) break;
        it->Next();
    }
    BOOST_REQUIRE(it->Valid());
    BOOST_CHECK_EXCEPTION(it->CheckStatus(), dbwrapper_error, is_corruption);
    std::vector<unsigned char> value;
    BOOST_CHECK(db.Read(Key({'t', 0, 0}), value) && value == Payload(0));
}

// Known LevelDB properties have values, unknown names none.
BOOST_AUTO_TEST_CASE(properties)
{
    CDBWrapper db{DBParams{.path = "properties", .memory_only = true}};
    db.Write(Key({'p'}), RawBytes{Payload(1)});
    struct Case {
        const char* name;
        bool known;
    };
    // clang-format off
    const Case cases[]{
        {"leveldb.stats",                    true},
        {"leveldb.sstables",                 true},
        {"leveldb.approximate-memory-usage", true},
        {"leveldb.num-files-at-level0",      true},
        {"leveldb.num-files-at-level6",      true},
        {"leveldb.num-files-at-level7",      false},
        {"leveldb.no-such-property",         false},
        {"rocksdb.stats",                    false},
        {"",                                 false},
    };
    // clang-format on
    for (const Case& c : cases) BOOST_CHECK_MESSAGE(db.GetProperty(c.name).has_value() == c.known, "property \"" << c.name << "\"");
    BOOST_CHECK_NE(db.GetProperty("leveldb.stats")->find("Compactions"), std::string::npos);
    BOOST_CHECK_EQUAL(std::stoull(*db.GetProperty("leveldb.approximate-memory-usage")), db.DynamicMemoryUsage());
    BOOST_CHECK_EQUAL(*db.GetProperty("leveldb.num-files-at-level0"), "0");
}

// Erasing keys leaves their records in the table files; a full compaction,
// synchronous or not, drops them and the size estimate with them.
BOOST_AUTO_TEST_CASE(compact_full_drops_erased_records)
{
    TempDirFixture tmp;
    CDBWrapper db{OnDisk(tmp.m_path / "db", /*obfuscate=*/true)};
    constexpr size_t ENTRIES = 4000;
    const auto key = [](unsigned char prefix, size_t i) { return Key({prefix, static_cast<unsigned char>(i >> 8), static_cast<unsigned char>(i)}); };
    for (const unsigned char prefix : {'a', 'b'}) {
        CDBBatch batch{db};
        for (size_t i = 0; i < ENTRIES; ++i) batch.Write(key(prefix, i), RawBytes{std::vector<unsigned char>(100, static_cast<unsigned char>(i))});
        db.WriteBatch(batch);
    }
    // Into table files first: the estimate does not see the log.
    db.CompactFull();
    const size_t raw_bytes = ENTRIES * 103;
    const auto size_of = [&](unsigned char prefix) { return db.EstimateSize(Key({prefix}), Key({static_cast<unsigned char>(prefix + 1)})); };
    BOOST_REQUIRE_GE(size_of('a'), raw_bytes / 2);
    BOOST_REQUIRE_GE(size_of('b'), raw_bytes / 2);

    for (const unsigned char prefix : {'a', 'b'}) {
        CDBBatch batch{db};
        for (size_t i = 0; i < ENTRIES; ++i) batch.Erase(key(prefix, i));
        db.WriteBatch(batch);
    }
    BOOST_CHECK_GE(size_of('a'), raw_bytes / 2);
    db.CompactFull();
    BOOST_CHECK_LT(size_of('a'), 1024U);
    BOOST_CHECK_LT(size_of('b'), 1024U);
    BOOST_CHECK(!db.Exists(key('a', 7)));

    // The same asynchronously.
    {
        CDBBatch batch{db};
        for (size_t i = 0; i < ENTRIES; ++i) batch.Write(key('c', i), RawBytes{std::vector<unsigned char>(100, 0x5c)});
        db.WriteBatch(batch);
    }
    BOOST_REQUIRE(db.CompactFullAsync().wait_for(std::chrono::minutes{1}) == std::future_status::ready);
    BOOST_REQUIRE_GE(size_of('c'), raw_bytes / 2);
    {
        CDBBatch batch{db};
        for (size_t i = 0; i < ENTRIES; ++i) batch.Erase(key('c', i));
        db.WriteBatch(batch);
    }
    const std::shared_future<void> compaction = db.CompactFullAsync();
    BOOST_REQUIRE(compaction.wait_for(std::chrono::minutes{1}) == std::future_status::ready);
    compaction.get();
    BOOST_CHECK_LT(size_of('c'), 1024U);
}

// A write larger than LevelDB's write buffer stays in the memtable until
// LevelDB's next write; StartMemtableFlush makes that write (an empty one),
// so the records move into a table file without another write. A write
// within the buffer starts nothing.
BOOST_AUTO_TEST_CASE(memtable_flush_moves_a_large_write_into_a_table)
{
    // A write buffer of a quarter of this: 64 KiB.
    CDBWrapper db{DBParams{.path = "memtable_flush", .cache_bytes = 256 << 10, .memory_only = true}};
    const auto tables = [&] {
        const std::string listing = *db.GetProperty("leveldb.sstables");
        return std::count(listing.begin(), listing.end(), '[');
    };
    const auto key = [](size_t i) { return Key({'m', static_cast<unsigned char>(i >> 8), static_cast<unsigned char>(i)}); };

    db.Write(key(0), RawBytes{Payload(1)});
    db.StartMemtableFlush();
    // A later write waits for the one StartMemtableFlush started, if any.
    db.Write(key(1), RawBytes{Payload(1)});
    BOOST_CHECK_EQUAL(tables(), 0);

    CDBBatch batch{db};
    for (size_t i = 2; i < 2000; ++i) batch.Write(key(i), RawBytes{std::vector<unsigned char>(100, static_cast<unsigned char>(i))});
    db.WriteBatch(batch);
    BOOST_CHECK_EQUAL(tables(), 0);
    db.StartMemtableFlush();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes{1};
    while (tables() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds{5});
    BOOST_CHECK_EQUAL(tables(), 1);
    BOOST_CHECK(db.Exists(key(1999)));
}

// Closing a database while its compaction runs waits for the compaction.
BOOST_AUTO_TEST_CASE(close_waits_for_async_compaction)
{
    std::shared_future<void> compaction;
    {
        CDBWrapper db{DBParams{.path = "closing", .memory_only = true}};
        CDBBatch batch{db};
        for (size_t i = 0; i < 2000; ++i) batch.Write(Key({'k', static_cast<unsigned char>(i >> 8), static_cast<unsigned char>(i)}), RawBytes{Payload(3)});
        db.WriteBatch(batch);
        compaction = db.CompactFullAsync();
    }
    BOOST_CHECK(compaction.wait_for(std::chrono::seconds{0}) == std::future_status::ready);
}

BOOST_AUTO_TEST_SUITE_END()
