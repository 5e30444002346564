// BIP 456's Elias-Fano objects: the BIP's vectors both ways, the edge
// cases the vectors leave open (written out by hand from the grammar in
// kernel/swiftsync/elias_fano.h), random lists against the list itself,
// and every corruption of a valid object one field at a time.

#include <kernel/swiftsync/elias_fano.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <test/util/vectors.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace kernel::swiftsync;

namespace {

std::vector<uint8_t> Bytes(const std::string& hex) { return *TryParseHex(hex); }

std::string Encoded(const std::vector<uint32_t>& indices) { return HexStr(EncodeEliasFano(indices)); }

// The decoder's answer for `hex`: the indices, or "error: <message>".
std::string Decoded(const std::string& hex)
{
    const auto bytes = Bytes(hex);
    const auto decoded = DecodeEliasFano(bytes);
    if (!decoded) return "error: " + decoded.error();
    std::string text;
    for (const uint32_t index : decoded->indices) text += (text.empty() ? "" : ",") + std::to_string(index);
    return "[" + text + "] in " + std::to_string(decoded->bytes_read) + " bytes";
}

size_t ExpectedSize(const std::vector<uint32_t>& indices)
{
    if (indices.empty()) return 1;
    const uint64_t n = indices.size(), m = indices.back();
    unsigned l = 0;
    while ((n << (l + 1)) <= m + 1) ++l;
    auto compact = [](uint64_t v) { return v < 0xfd ? 1 : v <= 0xffff ? 3
                                                                      : 5; };
    return compact(n) + compact(m) + (n * l + 7) / 8 + (n + (m >> l) + 7) / 8;
}

} // namespace

BOOST_AUTO_TEST_SUITE(swiftsync_elias_fano_tests)

BOOST_AUTO_TEST_CASE(bip456_vectors_decode_and_encode, *boost::unit_test::precondition(VectorsAvailable))
{
    const auto path = VectorsRoot() / "swiftsync" / "elias_fano.json";
    BOOST_REQUIRE_MESSAGE(std::filesystem::exists(path), path << " is missing");
    const auto vectors = nlohmann::json::parse(ReadFileToString(path));
    BOOST_REQUIRE_EQUAL(vectors.size(), 3U);
    for (const auto& vector : vectors) {
        const auto indices = vector[0].get<std::vector<uint32_t>>();
        const std::string hex = vector[1].get<std::string>();
        BOOST_CHECK_EQUAL(Encoded(indices), hex);
        const auto bytes = Bytes(hex);
        const auto decoded = DecodeEliasFano(bytes);
        BOOST_REQUIRE_MESSAGE(decoded, hex << ": " << (decoded ? "" : decoded.error()));
        BOOST_CHECK(decoded->indices == indices);
        BOOST_CHECK_EQUAL(decoded->bytes_read, bytes.size());
    }
}

BOOST_AUTO_TEST_CASE(worked_example_and_edge_cases)
{
    struct Case {
        std::vector<uint32_t> indices;
        std::string hex;
    };
    const std::vector<Case> cases{
        {{3, 7, 12}, "030cf0a4"}, // the BIP's example, in the vectors' bit order
        {{}, "00"},               // no M: the reference code writes N alone
        {{0}, "010080"},          // M = 0 < N... = 1: l = 0, one code "1"
        {{1}, "01018080"},        // l = floor(log2(2/1)) = 1: (M + 1), not M
        {{5}, "01058040"},        // l = 2: field "10", code "01"
        {{0, 1, 2}, "0302a8"},    // M < N: l = 0, codes 1 01 01
        {{0, 1, 2, 3, 4, 5, 6, 7}, "0807aaaa"},
        {{111110}, "01fe06b20100604d40"}, // the greatest index: a 5-byte M, l = 16
        {{0, 111110}, "02fe06b201000000c09888"},
    };
    for (const auto& c : cases) {
        BOOST_CHECK_EQUAL(Encoded(c.indices), c.hex);
        const auto decoded = DecodeEliasFano(Bytes(c.hex + "ff")); // a next object's byte stays unread
        BOOST_REQUIRE_MESSAGE(decoded, c.hex << ": " << (decoded ? "" : decoded.error()));
        BOOST_CHECK(decoded->indices == c.indices);
        BOOST_CHECK_EQUAL(decoded->bytes_read, c.hex.size() / 2);
    }
    // Crate hintsfile 0.2.0 fills bytes from the other end (its own test).
    std::vector<uint8_t> other;
    const std::vector<uint32_t> example{3, 7, 12};
    EncodeEliasFano(example, other, BitOrder::LEAST_SIGNIFICANT_FIRST);
    BOOST_CHECK_EQUAL(HexStr(other), "030c0f25");
}

BOOST_AUTO_TEST_CASE(encoder_refuses_what_no_block_has)
{
    const std::vector<uint32_t> repeated{1, 1}, falling{2, 1}, too_big{MAX_BLOCK_OUTPUTS};
    BOOST_CHECK_THROW(EncodeEliasFano(repeated), std::invalid_argument);
    BOOST_CHECK_THROW(EncodeEliasFano(falling), std::invalid_argument);
    BOOST_CHECK_THROW(EncodeEliasFano(too_big), std::invalid_argument);
    BOOST_CHECK_EQUAL(MAX_BLOCK_OUTPUTS, 111'111U);
}

BOOST_AUTO_TEST_CASE(random_lists_round_trip)
{
    TestRand rand{456};
    for (int round = 0; round < 2000; ++round) {
        // Dense and sparse lists, short and long, near the bound too.
        const uint32_t universe = rand.OneIn(20) ? MAX_BLOCK_OUTPUTS : 1 + rand.Below(rand.OneIn(2) ? 64 : 5000);
        const uint32_t wanted = rand.Below(std::min<uint32_t>(universe, rand.OneIn(2) ? 16 : 3000) + 1);
        std::set<uint32_t> set;
        while (set.size() < wanted) set.insert(rand.Below(universe));
        const std::vector<uint32_t> indices(set.begin(), set.end());
        auto bytes = EncodeEliasFano(indices);
        BOOST_REQUIRE_EQUAL(bytes.size(), ExpectedSize(indices));
        const auto decoded = DecodeEliasFano(bytes);
        BOOST_REQUIRE_MESSAGE(decoded, (decoded ? "" : decoded.error()));
        BOOST_REQUIRE(decoded->indices == indices);
        BOOST_REQUIRE_EQUAL(decoded->bytes_read, bytes.size());
    }
}

BOOST_AUTO_TEST_CASE(every_corruption_names_its_field)
{
    // Vector 1: N = 10, M = 40, l = 2; low part 8d 8d 80 (20 bits used),
    // high part 16 ad 50 (20 bits used).
    const std::string valid = "0a28"
                              "8d8d80"
                              "16ad50";
    BOOST_CHECK_EQUAL(Decoded(valid), "[13,16,19,22,25,28,31,34,37,40] in 8 bytes");
    struct Case {
        std::string hex;
        std::string error;
    };
    const std::vector<Case> cases{
        {"", "truncated in its count N"},
        {"0a", "truncated in its greatest index M"},
        {"0a28", "truncated: the object takes 8 bytes, 2 are left"},
        {"0a288d8d8016ad", "truncated: the object takes 8 bytes, 7 are left"},
        {"fd0a00", "non-canonical CompactSize for its count N"},
        {"0afd2800", "non-canonical CompactSize for its greatest index M"},
        {"fd", "truncated in its count N"},
        {"0afe", "truncated in its greatest index M"},
        {"ff0000000001000000", "count N=4294967296 is above the most outputs a block can have (111111)"},
        {"ff0a00000000000000", "non-canonical CompactSize for its count N"},
        {"fe08b20100", "count N=111112 is above the most outputs a block can have (111111)"},
        {"01fe07b20100", "greatest index M=111111 is not below the most outputs a block can have (111111)"},
        {"0a08", "N=10 indices cannot rise strictly up to M=8"},
        {"0a28"
         "8d8d81"
         "16ad50",
         "non-zero padding bits after the low part"},
        {"0a28"
         "8d8d80"
         "96ad50",
         "the high part holds 11 ones, not N=10"},
        {"0a28"
         "8d8d80"
         "06ad50",
         "the high part holds 9 ones, not N=10"},
        {"0a28"
         "8d8d80"
         "16ad58",
         "non-zero padding bits after the high part"},
        {"0a29"
         "8d8d80"
         "16ad50",
         "the last index is 40, not M=41"},
        {"0203"
         "c0"
         "60",
         "index 3 follows 3: indices must rise strictly"},
        {"0203"
         "40"
         "60",
         "[2,3] in 4 bytes"},
    };
    for (const auto& c : cases) {
        const std::string expected = c.error.starts_with("[") ? c.error : "error: " + c.error;
        BOOST_CHECK_MESSAGE(Decoded(c.hex) == expected, c.hex << ": " << Decoded(c.hex));
    }
    // Every cut of the valid object is refused as truncated.
    for (size_t cut = 0; cut < valid.size() / 2; ++cut) {
        BOOST_CHECK_MESSAGE(Decoded(valid.substr(0, cut * 2)).starts_with("error: truncated"), cut);
    }
}

BOOST_AUTO_TEST_CASE(strict_decoding_admits_one_encoding_per_list)
{
    // Whatever bytes decode must be the list's own encoding: no padding,
    // width or count left free for a second spelling.
    TestRand rand{7};
    size_t accepted = 0;
    for (int round = 0; round < 20000; ++round) {
        std::vector<uint8_t> bytes(1 + rand.Below(12));
        for (auto& byte : bytes) byte = rand.Below(256);
        if (rand.Bool()) bytes[0] = rand.Below(4);
        if (bytes.size() > 1 && rand.Bool()) bytes[1] = rand.Below(16);
        const auto decoded = DecodeEliasFano(bytes);
        if (!decoded) continue;
        ++accepted;
        BOOST_REQUIRE_EQUAL(HexStr(EncodeEliasFano(decoded->indices)), HexStr(std::span{bytes}.first(decoded->bytes_read)));
    }
    BOOST_CHECK_GT(accepted, 100U);
}

BOOST_AUTO_TEST_SUITE_END()
