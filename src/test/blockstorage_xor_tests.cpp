// Obfuscated block files (node/blockstorage/obfuscation): XOR by file offset, reads
// at any offset, blocks/xor.dat, and Bitcoin Core's own obfuscated
// blk00000.dat from ../shared/vectors/regtest-small-xor.
//
// Expected bytes are written out in the tables, not computed with the code
// under test.

#include <node/blockstorage/obfuscation.h>
#include <streams.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using node::BlockFileXorKey;

namespace {

std::vector<std::byte> Bytes(std::string_view hex)
{
    const auto raw = TryParseHex(hex);
    if (!raw) throw std::invalid_argument("bad hex in a test table");
    const auto bytes = std::as_bytes(std::span{*raw});
    return {bytes.begin(), bytes.end()};
}

BlockFileXorKey KeyFromHex(std::string_view hex)
{
    const auto bytes = Bytes(hex);
    if (bytes.size() != 8) throw std::invalid_argument("a key is 8 bytes");
    BlockFileXorKey key;
    std::ranges::copy(bytes, key.begin());
    return key;
}

// The key of the reference Bitcoin Core datadir's blocks/xor.dat.
const BlockFileXorKey CORE_KEY{KeyFromHex("157be0885b75924a")};
const BlockFileXorKey NULL_KEY{};

void WriteFile(const std::filesystem::path& path, std::span<const std::byte> bytes)
{
    std::ofstream out{path, std::ios::binary | std::ios::trunc};
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::byte> ReadWholeFile(const std::filesystem::path& path)
{
    const std::string text = ReadFileToString(path);
    const auto bytes = std::as_bytes(std::span{text});
    return {bytes.begin(), bytes.end()};
}

// Plain bytes 00, 01, 02, ...
std::vector<std::byte> Counting(size_t size)
{
    std::vector<std::byte> out(size);
    for (size_t i = 0; i < size; ++i) out[i] = std::byte(i);
    return out;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(blockstorage_xor_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(xor_at_offset)
{
    struct Case {
        const BlockFileXorKey& key;
        uint64_t offset;
        const char* in;
        const char* out;
    };
    // clang-format off
    const std::vector<Case> cases{
        // key       offset          data in                 data out
        {NULL_KEY,   0,              "00112233445566778899", "00112233445566778899"},
        {NULL_KEY,   13,             "ffee",                 "ffee"},
        {CORE_KEY,   0,              "00000000000000000000", "157be0885b75924a157b"},
        {CORE_KEY,   8,              "00000000000000000000", "157be0885b75924a157b"},
        {CORE_KEY,   3,              "00000000000000000000", "885b75924a157be0885b"},
        {CORE_KEY,   13,             "00000000000000000000", "75924a157be0885b7592"},
        {CORE_KEY,   7,              "00",                   "4a"},
        {CORE_KEY,   (1ULL << 40) + 1, "0000",               "7be0"},
        {CORE_KEY,   5,              "",                     ""},
        // The first record of Core's blk00000.dat: regtest magic, then the
        // genesis block's size, 285 (0x11d).
        {CORE_KEY,   0,              "efc455524674924a",     "fabfb5da1d010000"},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        auto data = Bytes(cases[i].in);
        node::XorAtOffset(data, cases[i].offset, cases[i].key);
        BOOST_CHECK_MESSAGE(HexStr(data) == cases[i].out, "case " << i << ": " << HexStr(data));
        // The same call undoes it.
        node::XorAtOffset(data, cases[i].offset, cases[i].key);
        BOOST_CHECK_MESSAGE(data == Bytes(cases[i].in), "case " << i << " does not round-trip");
    }
}

BOOST_AUTO_TEST_CASE(xor_at_offset_matches_a_byte_at_a_time_model)
{
    // XorAtOffset works a word at a time: random keys, offsets and lengths
    // (tails and words, starts inside the key) against the definition.
    std::mt19937_64 rng{0x5a17};
    for (int round = 0; round < 2000; ++round) {
        BlockFileXorKey key;
        for (auto& b : key) b = std::byte(rng() & 0xff);
        const uint64_t offset = rng() % 4096;
        std::vector<std::byte> data(rng() % 80);
        for (auto& b : data) b = std::byte(rng() & 0xff);
        auto expected = data;
        if (!node::IsNullXorKey(key)) {
            for (size_t i = 0; i < expected.size(); ++i) expected[i] ^= key[(offset + i) % key.size()];
        }
        node::XorAtOffset(data, offset, key);
        BOOST_REQUIRE_MESSAGE(data == expected, "round " << round << ": offset " << offset << ", " << data.size() << " bytes");
    }
}

BOOST_AUTO_TEST_CASE(read_at_any_offset)
{
    // A 37-byte file of plain bytes 00..24, stored obfuscated with each key.
    const auto plain = Counting(37);
    struct Case {
        const BlockFileXorKey& key;
        uint64_t pos;
        size_t size;
        const char* stored; // the stored bytes at pos, for reference
    };
    // clang-format off
    const std::vector<Case> cases{
        // key       pos  size  stored bytes there
        {NULL_KEY,   0,   8,    "0001020304050607"},
        {NULL_KEY,   13,  3,    "0d0e0f"},
        {CORE_KEY,   0,   8,    "157ae28b5f70944d"},
        {CORE_KEY,   8,   8,    "1d72ea8357789c45"},
        {CORE_KEY,   1,   7,    "7ae28b5f70944d"},
        {CORE_KEY,   5,   9,    "70944d1d72ea835778"},
        {CORE_KEY,   13,  1,    "78"},
        {CORE_KEY,   30,  7,    "8c55355ac2ab7f"},
        {CORE_KEY,   36,  1,    "7f"},
        {CORE_KEY,   20,  0,    ""},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        const auto path = m_path / "blk00000.dat";
        auto stored = plain;
        for (size_t j = 0; j < stored.size(); ++j) stored[j] ^= c.key[j % 8];
        WriteFile(path, stored);
        BOOST_CHECK_MESSAGE(HexStr(std::span{stored}.subspan(c.pos, c.size)) == c.stored, "case " << i << ": stored bytes");

        AutoFile file{std::fopen(path.c_str(), "rb")};
        std::vector<std::byte> out(c.size);
        BOOST_CHECK_MESSAGE(node::ReadXored(file.Get(), c.pos, out, c.key), "case " << i);
        BOOST_CHECK_MESSAGE(out == std::vector(plain.begin() + c.pos, plain.begin() + c.pos + c.size), "case " << i << ": " << HexStr(out));
    }
}

BOOST_AUTO_TEST_CASE(read_past_the_end_or_with_the_wrong_key)
{
    const auto path = m_path / "blk00000.dat";
    WriteFile(path, Bytes("157ae28b5f70944d1d72"));
    AutoFile file{std::fopen(path.c_str(), "rb")};
    std::vector<std::byte> out(4);
    BOOST_CHECK(!node::ReadXored(file.Get(), 7, out, CORE_KEY));
    BOOST_CHECK(!node::ReadXored(file.Get(), 11, std::span{out}.first(1), CORE_KEY));
    BOOST_CHECK(node::ReadXored(file.Get(), 6, out, CORE_KEY));
    BOOST_CHECK_EQUAL(HexStr(out), "06070809");
    BOOST_CHECK(node::ReadXored(file.Get(), 6, out, NULL_KEY));
    BOOST_CHECK_EQUAL(HexStr(out), "944d1d72");
}

BOOST_AUTO_TEST_CASE(read_xor_key_file)
{
    struct Case {
        std::optional<std::string> file_hex; // nullopt: no xor.dat
        std::optional<std::string> key_hex;  // nullopt: an error
        std::string error;
    };
    // clang-format off
    const std::vector<Case> cases{
        // xor.dat               key                  error
        {std::nullopt,           "0000000000000000",  ""},
        {"0000000000000000",     "0000000000000000",  ""},
        {"157be0885b75924a",     "157be0885b75924a",  ""},
        {"157be0885b7592",       std::nullopt,        "must be exactly 8 bytes, not 7"},
        {"157be0885b75924a00",   std::nullopt,        "must be exactly 8 bytes, not 9"},
        {"",                     std::nullopt,        "must be exactly 8 bytes, not 0"},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        const auto path = m_path / node::XOR_KEY_FILE;
        std::filesystem::remove(path);
        if (cases[i].file_hex) WriteFile(path, Bytes(*cases[i].file_hex));
        std::string error;
        const auto key = node::ReadXorKey(m_path, error);
        BOOST_CHECK_MESSAGE(key.has_value() == cases[i].key_hex.has_value(), "case " << i << ": " << error);
        if (key && cases[i].key_hex) BOOST_CHECK_MESSAGE(HexStr(*key) == *cases[i].key_hex, "case " << i);
        if (!key) {
            BOOST_CHECK_EQUAL(error, "The block file XOR key " + path.string() + " " + cases[i].error);
        }
        BOOST_CHECK_MESSAGE(std::filesystem::exists(path) == cases[i].file_hex.has_value(), "case " << i << ": reading created xor.dat");
    }
}

BOOST_AUTO_TEST_CASE(load_or_create_key)
{
    enum class Want { RANDOM, ZEROS, STORED, ERROR };
    struct Case {
        std::vector<std::string> entries; // in the blocks dir before; "-" for no blocks dir at all
        std::optional<std::string> stored;
        bool use_xor;
        Want want;
    };
    // clang-format off
    const std::vector<Case> cases{
        // blocks dir holds              xor.dat               -blocksxor  key
        {{"-"},                          std::nullopt,         true,       Want::RANDOM},
        {{},                             std::nullopt,         true,       Want::RANDOM},
        {{"blk00000.dat"},               std::nullopt,         true,       Want::ZEROS},
        {{"index/"},                     std::nullopt,         true,       Want::ZEROS},
        {{"-"},                          std::nullopt,         false,      Want::ZEROS},
        {{},                             std::nullopt,         false,      Want::ZEROS},
        {{"blk00000.dat"},               "157be0885b75924a",   true,       Want::STORED},
        {{"blk00000.dat"},               "157be0885b75924a",   false,      Want::ERROR},
        {{"blk00000.dat"},               "0000000000000000",   false,      Want::STORED},
        {{},                             "0000000000000000",   true,       Want::STORED},
        {{},                             "157be0885b7592",     true,       Want::ERROR},
    };
    // clang-format on
    for (size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        const auto blocks_dir = m_path / ("blocks" + std::to_string(i));
        if (c.entries != std::vector<std::string>{"-"}) std::filesystem::create_directories(blocks_dir);
        for (const auto& entry : c.entries) {
            if (entry == "-") continue;
            if (entry.ends_with('/')) {
                std::filesystem::create_directories(blocks_dir / entry);
            } else {
                WriteFile(blocks_dir / entry, Bytes("00"));
            }
        }
        if (c.stored) WriteFile(blocks_dir / node::XOR_KEY_FILE, Bytes(*c.stored));

        std::string error;
        const auto key = node::LoadOrCreateXorKey(blocks_dir, c.use_xor, error);
        if (c.want == Want::ERROR) {
            BOOST_CHECK_MESSAGE(!key, "case " << i);
            BOOST_CHECK_MESSAGE(ReadWholeFile(blocks_dir / node::XOR_KEY_FILE) == Bytes(*c.stored), "case " << i << ": xor.dat changed");
            continue;
        }
        BOOST_REQUIRE_MESSAGE(key, "case " << i << ": " << error);
        // The key in use is the one in xor.dat, always.
        BOOST_CHECK_MESSAGE(ReadWholeFile(blocks_dir / node::XOR_KEY_FILE) == std::vector<std::byte>(key->begin(), key->end()), "case " << i);
        switch (c.want) {
        case Want::RANDOM: BOOST_CHECK_MESSAGE(!node::IsNullXorKey(*key), "case " << i); break;
        case Want::ZEROS: BOOST_CHECK_MESSAGE(node::IsNullXorKey(*key), "case " << i); break;
        case Want::STORED: BOOST_CHECK_MESSAGE(HexStr(*key) == *c.stored, "case " << i); break;
        case Want::ERROR: break;
        }
        // A second start finds the same key.
        const auto again = node::LoadOrCreateXorKey(blocks_dir, c.use_xor, error);
        BOOST_CHECK_MESSAGE(again && *again == *key, "case " << i);
    }
}

BOOST_AUTO_TEST_CASE(disabling_a_stored_key_is_refused)
{
    WriteFile(m_path / node::XOR_KEY_FILE, Bytes("157be0885b75924a"));
    std::string error;
    BOOST_CHECK(!node::LoadOrCreateXorKey(m_path, /*use_xor=*/false, error));
    BOOST_CHECK_EQUAL(error, "The blocksdir XOR-key can not be disabled when a random key was already stored! Stored key: "
                             "'157be0885b75924a', stored path: '" + (m_path / "xor.dat").string() + "'.");
}

BOOST_AUTO_TEST_CASE(two_new_keys_differ)
{
    std::string error;
    const auto first = node::LoadOrCreateXorKey(m_path / "a", /*use_xor=*/true, error);
    const auto second = node::LoadOrCreateXorKey(m_path / "b", /*use_xor=*/true, error);
    BOOST_REQUIRE(first && second);
    BOOST_CHECK(*first != *second);
}

BOOST_AUTO_TEST_CASE(core_obfuscated_block_file, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto root = VectorsRoot();
    BOOST_REQUIRE_MESSAGE(!root.empty(), "no vectors found (set COINSDB_VECTORS)");
    const auto dir = root / "regtest-small-xor";
    std::string error;
    const auto key = node::ReadXorKey(dir, error);
    BOOST_REQUIRE_MESSAGE(key, error);
    BOOST_CHECK(!node::IsNullXorKey(*key));
    const auto plain = ReadWholeFile(root / "regtest-small" / "blocks.dat");
    BOOST_REQUIRE_EQUAL(std::filesystem::file_size(dir / "blk00000.dat"), plain.size());

    // Read in pieces whose offsets and sizes are not multiples of 8.
    AutoFile file{std::fopen((dir / "blk00000.dat").c_str(), "rb")};
    BOOST_REQUIRE(!file.IsNull());
    std::vector<std::byte> read(plain.size());
    for (size_t pos = 0, piece = 1; pos < read.size(); pos += piece, piece = piece * 3 + 1) {
        piece = std::min(piece, read.size() - pos);
        BOOST_REQUIRE(node::ReadXored(file.Get(), pos, std::span{read}.subspan(pos, piece), *key));
    }
    BOOST_CHECK(read == plain);
}

BOOST_AUTO_TEST_SUITE_END()
