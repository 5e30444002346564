// uint256: hex is the reverse of the stored bytes, parsing accepts exactly
// 64 hex digits, comparison and serialization use the stored order.

#include <streams.h>
#include <test/util/stream_helpers.h>
#include <uint256.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";
constexpr std::string_view MAINNET_GENESIS = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";

uint256 FromHexOrFail(std::string_view hex)
{
    auto parsed = uint256::FromHex(hex);
    BOOST_REQUIRE_MESSAGE(parsed, "cannot parse " << hex);
    return *parsed;
}

// A value whose stored byte `index` is `byte` and every other byte is zero.
uint256 WithByte(size_t index, unsigned char byte)
{
    std::array<unsigned char, 32> bytes{};
    bytes[index] = byte;
    return uint256{bytes};
}

} // namespace

BOOST_AUTO_TEST_SUITE(uint256_tests)

BOOST_AUTO_TEST_CASE(hex_is_reversed_storage_order)
{
    const uint256 regtest = FromHexOrFail(REGTEST_GENESIS);
    BOOST_CHECK_EQUAL(regtest.data()[0], 0x06);
    BOOST_CHECK_EQUAL(regtest.data()[1], 0x22);
    BOOST_CHECK_EQUAL(regtest.data()[30], 0x91);
    BOOST_CHECK_EQUAL(regtest.data()[31], 0x0f);
    BOOST_CHECK_EQUAL(HexStr(std::span{regtest.begin(), regtest.end()}),
                      "06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f");

    const uint256 mainnet = FromHexOrFail(MAINNET_GENESIS);
    BOOST_CHECK_EQUAL(mainnet.data()[0], 0x6f);
    BOOST_CHECK_EQUAL(mainnet.data()[31], 0x00);
    BOOST_CHECK_EQUAL(mainnet.data()[26], 0x19);

    // Stored byte 0 is printed last.
    BOOST_CHECK_EQUAL(WithByte(0, 0xab).GetHex(), std::string(62, '0') + "ab");
    BOOST_CHECK_EQUAL(WithByte(31, 0xab).GetHex(), "ab" + std::string(62, '0'));
}

BOOST_AUTO_TEST_CASE(hex_round_trip)
{
    for (const auto hex : {REGTEST_GENESIS, MAINNET_GENESIS}) {
        const uint256 value = FromHexOrFail(hex);
        BOOST_CHECK_EQUAL(value.GetHex(), hex);
        BOOST_CHECK_EQUAL(value.ToString(), hex);
        BOOST_CHECK(FromHexOrFail(value.GetHex()) == value);
    }
    BOOST_CHECK_EQUAL(uint256{}.GetHex(), std::string(64, '0'));

    // Upper case is accepted; output is always lower case.
    std::string upper{REGTEST_GENESIS};
    std::ranges::transform(upper, upper.begin(), [](char c) { return static_cast<char>(std::toupper(c)); });
    BOOST_CHECK(FromHexOrFail(upper) == FromHexOrFail(REGTEST_GENESIS));
    BOOST_CHECK_EQUAL(FromHexOrFail(upper).GetHex(), REGTEST_GENESIS);
}

BOOST_AUTO_TEST_CASE(from_hex_rejects_bad_input)
{
    const std::string good{REGTEST_GENESIS};
    const std::vector<std::string> bad{
        "",
        "0",
        good.substr(0, 62),                       // 31 bytes
        good.substr(0, 63),                       // odd length
        good + "0",                               // 65 digits
        good + "00",                              // 33 bytes
        "0x" + good.substr(2),                    // prefix counted in the 64
        "0x" + good,                              // prefix not accepted
        good.substr(0, 63) + "g",                 // non-hex digit
        " " + good.substr(1),                     // leading space
        good.substr(0, 63) + " ",                 // trailing space
        good.substr(0, 31) + "-" + good.substr(32), // sign in the middle
        std::string(64, 'z'),
        std::string(32, '\0') + good.substr(32),  // embedded NULs
    };
    for (const auto& hex : bad) {
        BOOST_TEST_CONTEXT("'" << hex << "' (" << hex.size() << " chars)")
        {
            BOOST_CHECK(!uint256::FromHex(hex).has_value());
        }
    }
    BOOST_CHECK(uint256::FromHex(good).has_value());
}

BOOST_AUTO_TEST_CASE(from_user_hex_pads_and_takes_a_prefix)
{
    const std::string good{REGTEST_GENESIS};
    // input, the value it reads as (empty: refused)
    const std::vector<std::pair<std::string, std::string>> table{
        {"", std::string(64, '0')},
        {"0x", std::string(64, '0')},
        {"1", std::string(63, '0') + "1"},
        {"0x1", std::string(63, '0') + "1"},
        {"0xAbC", std::string(61, '0') + "abc"},
        {good, good},
        {"0x" + good, good},
        {good.substr(2), "00" + good.substr(2)},
        {good + "0", ""}, // 65 digits
        {"0X1", ""},      // only a lower-case prefix, as Core
        {"0x0x1", ""},
        {"g", ""},
        {" 1", ""},
        {"-1", ""},
    };
    for (const auto& [input, expected] : table) {
        BOOST_TEST_CONTEXT("'" << input << "'")
        {
            const auto parsed = uint256::FromUserHex(input);
            BOOST_CHECK_EQUAL(parsed.has_value(), !expected.empty());
            if (parsed) BOOST_CHECK_EQUAL(parsed->GetHex(), expected);
        }
    }
}

BOOST_AUTO_TEST_CASE(small_value_constructor_and_constants)
{
    // Core's uint256{n}: stored byte 0, the last one printed.
    BOOST_CHECK(uint256{uint8_t{0}} == uint256{});
    BOOST_CHECK(uint256{uint8_t{0xab}} == WithByte(0, 0xab));
    BOOST_CHECK_EQUAL(uint256{uint8_t{0xab}}.GetHex(), std::string(62, '0') + "ab");
    BOOST_CHECK(uint256::ZERO.IsNull());
    BOOST_CHECK(uint256::ZERO == uint256{});
    BOOST_CHECK_EQUAL(uint256::ONE.GetHex(), std::string(63, '0') + "1");
    BOOST_CHECK(uint256::ONE == uint256{uint8_t{1}});
}

BOOST_AUTO_TEST_CASE(ordering_follows_stored_bytes)
{
    // Comparison is memcmp-like from stored byte 0, the order LevelDB keys
    // holding a txid sort in; it is not the order of the hex strings.
    const uint256 low_byte_set = WithByte(0, 0x01);   // hex 00..0001
    const uint256 high_byte_set = WithByte(31, 0x01); // hex 0100..00
    BOOST_CHECK(high_byte_set < low_byte_set);
    BOOST_CHECK(low_byte_set > high_byte_set);
    BOOST_CHECK(high_byte_set.GetHex() > low_byte_set.GetHex());

    const uint256 zero{};
    for (size_t i = 0; i < uint256::SIZE; ++i) {
        BOOST_TEST_CONTEXT("byte " << i)
        {
            const uint256 one_set = WithByte(i, 0x80);
            BOOST_CHECK(zero < one_set);
            BOOST_CHECK(one_set != zero);
            BOOST_CHECK((one_set <=> one_set) == 0);
            if (i + 1 < uint256::SIZE) BOOST_CHECK(WithByte(i + 1, 0xff) < one_set);
        }
    }

    std::vector<uint256> values{WithByte(5, 2), WithByte(0, 3), WithByte(5, 1), zero, WithByte(31, 0xff)};
    std::ranges::sort(values);
    const std::vector<uint256> expected{zero, WithByte(31, 0xff), WithByte(5, 1), WithByte(5, 2), WithByte(0, 3)};
    BOOST_CHECK(values == expected);
}

BOOST_AUTO_TEST_CASE(equality_sees_every_bit_and_agrees_with_ordering)
{
    const uint256 base = *uint256::FromHex("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206");
    BOOST_CHECK(base == uint256{base});
    for (size_t i = 0; i < uint256::SIZE; ++i) {
        for (int bit = 0; bit < 8; ++bit) {
            BOOST_TEST_CONTEXT("byte " << i << " bit " << bit)
            {
                uint256 flipped = base;
                flipped.data()[i] ^= static_cast<unsigned char>(1 << bit);
                BOOST_CHECK(!(flipped == base));
                BOOST_CHECK(flipped != base);
                BOOST_CHECK((flipped <=> base) != 0);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(null_and_set_null)
{
    BOOST_CHECK(uint256{}.IsNull());
    BOOST_CHECK(FromHexOrFail(std::string(64, '0')).IsNull());
    for (size_t i = 0; i < uint256::SIZE; ++i) {
        BOOST_TEST_CONTEXT("byte " << i)
        {
            uint256 value = WithByte(i, 0x01);
            BOOST_CHECK(!value.IsNull());
            value.SetNull();
            BOOST_CHECK(value.IsNull());
            BOOST_CHECK(value == uint256{});
        }
    }
    uint256 genesis = FromHexOrFail(REGTEST_GENESIS);
    BOOST_CHECK(!genesis.IsNull());
    genesis.SetNull();
    BOOST_CHECK(genesis.IsNull());
    BOOST_CHECK_EQUAL(genesis.GetHex(), std::string(64, '0'));
}

BOOST_AUTO_TEST_CASE(get_uint64_reads_little_endian_words)
{
    const uint256 value = FromHexOrFail("1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100");
    BOOST_CHECK_EQUAL(value.GetUint64(0), 0x0706050403020100U);
    BOOST_CHECK_EQUAL(value.GetUint64(1), 0x0f0e0d0c0b0a0908U);
    BOOST_CHECK_EQUAL(value.GetUint64(2), 0x1716151413121110U);
    BOOST_CHECK_EQUAL(value.GetUint64(3), 0x1f1e1d1c1b1a1918U);
}

BOOST_AUTO_TEST_CASE(serialization_is_stored_order)
{
    const uint256 genesis = FromHexOrFail(REGTEST_GENESIS);
    DataStream stream;
    stream << genesis;
    BOOST_CHECK_EQUAL(UnreadHex(stream), "06226e46111a0b59caaf126043eb5bbf28c34f3a5e332a1fc7b2b73cf188910f");
    BOOST_CHECK_EQUAL(GetSerializeSize(genesis), 32U);

    uint256 decoded;
    stream >> decoded;
    BOOST_CHECK(decoded == genesis);
    BOOST_CHECK(stream.empty());

    // Inside a vector, each hash is 32 raw bytes after the count.
    const std::vector<uint256> pair{genesis, uint256{}};
    DataStream vector_stream;
    vector_stream << pair;
    BOOST_CHECK_EQUAL(UnreadHex(vector_stream), "02" + HexStr(std::span{genesis.begin(), genesis.end()}) + std::string(64, '0'));
    std::vector<uint256> pair_decoded;
    vector_stream >> pair_decoded;
    BOOST_CHECK(pair_decoded == pair);
}

BOOST_AUTO_TEST_CASE(unserialize_truncated)
{
    DataStream stream{ParseHexOrThrow(std::string(62, 'a'))}; // 31 bytes
    uint256 value;
    BOOST_CHECK_EXCEPTION(stream >> value, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});
}

BOOST_AUTO_TEST_SUITE_END()
