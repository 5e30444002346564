// Amount and script compression (compressor.h) and the Coin value format
// (coins.h), byte for byte: hand-checked tables, real secp256k1 points, and
// coins that Bitcoin Core itself wrote to a regtest chainstate.

#include <coins.h>
#include <compressor.h>
#include <streams.h>
#include <test/util/coin_compare.h>
#include <test/util/stream_helpers.h>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

// secp256k1 points: the generator G, its negation and 2G. y of G and 2G is
// even, y of -G and -2G is odd.
constexpr std::string_view G_X = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
constexpr std::string_view G_Y = "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8";
constexpr std::string_view NEG_G_Y = "b7c52588d95c3b9aa25b0403f1eef75702e84bb7597aabe663b82f6f04ef2777";
constexpr std::string_view G2_X = "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5";
constexpr std::string_view G2_Y = "1ae168fea63dc339a3c58419466ceaeef7f632653266d0e1236431a950cfe52a";
constexpr std::string_view NEG_G2_Y = "e51e970159c23cc65c3a7be6b99315110809cd9acd992f1edc9bce55af301705";
// G's x with y + 1: not on the curve.
constexpr std::string_view OFF_CURVE_Y = "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b9";
// x = 0 and x = 5 have no y: x^3 + 7 is not a square mod p.
const std::string ZERO_32(64, '0');
constexpr std::string_view NO_Y_X = "0000000000000000000000000000000000000000000000000000000000000005";

constexpr std::string_view HASH20 = "00112233445566778899aabbccddeeff01234567";
constexpr std::string_view HASH32 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

std::string Cat(std::initializer_list<std::string_view> parts)
{
    std::string out;
    for (const auto part : parts) out += part;
    return out;
}

CScript ScriptFromHex(std::string_view hex) { return CScript{ParseHexOrThrow(hex)}; }

std::string CompressedScriptHex(const CScript& script)
{
    DataStream stream;
    SerializeCompressedScript(stream, script);
    return UnreadHex(stream);
}

CScript ReadCompressedScript(DataStream& stream)
{
    CScript script;
    UnserializeCompressedScript(stream, script);
    return script;
}

std::string VarIntHex(uint64_t value)
{
    DataStream stream;
    WriteVarInt(stream, value);
    return UnreadHex(stream);
}

struct AmountCase {
    uint64_t amount;
    uint64_t compressed;
};

constexpr AmountCase AMOUNT_CASES[] = {
    {0, 0},
    {1, 1},
    {2, 11},
    {3, 21},
    {9, 81},
    {11, 91},
    {99, 891},
    {101, 901},
    {546, 4911},
    {12345678, 111111101},
    {123456789, 1111111101},
    {COIN - 1, 899999991},
    {COIN + 1, 900000001},
    {COIN * 5 / 2, 228},
    {COIN, 9},
    {50 * COIN, 50},
    {50 * COIN + 1, 45000000001},
    {MAX_MONEY, 21000000},
    {MAX_MONEY - 1, 18899999999999991},
    // 1 followed by 0..10 zeros, then 123 followed by 0..10 zeros: the nine
    // strippable zeros and what happens beyond them.
    {1, 1},
    {10, 2},
    {100, 3},
    {1000, 4},
    {10000, 5},
    {100000, 6},
    {1000000, 7},
    {10000000, 8},
    {100000000, 9},
    {1000000000, 10},
    {10000000000, 100},
    {123, 1101},
    {1230, 1102},
    {12300, 1103},
    {123000, 1104},
    {1230000, 1105},
    {12300000, 1106},
    {123000000, 1107},
    {1230000000, 1108},
    {12300000000, 1109},
    {123000000000, 1230},
    {1230000000000, 12300},
};

struct ScriptCase {
    std::string_view name;
    std::string script;
    std::string compressed; // VARINT(nSize) then the body
};

// Shapes stored in 21 or 33 bytes.
const std::vector<ScriptCase> SPECIAL_SCRIPTS{
    {"P2PKH", Cat({"76a914", HASH20, "88ac"}), Cat({"00", HASH20})},
    {"P2SH", Cat({"a914", HASH20, "87"}), Cat({"01", HASH20})},
    {"P2PK 02", Cat({"2102", G_X, "ac"}), Cat({"02", G_X})},
    {"P2PK 03", Cat({"2103", G_X, "ac"}), Cat({"03", G_X})},
    // Compressed keys are not checked against the curve, as upstream.
    {"P2PK 02 off-curve x", Cat({"2102", ZERO_32, "ac"}), Cat({"02", ZERO_32})},
    {"P2PK uncompressed G", Cat({"4104", G_X, G_Y, "ac"}), Cat({"04", G_X})},
    {"P2PK uncompressed -G", Cat({"4104", G_X, NEG_G_Y, "ac"}), Cat({"05", G_X})},
    {"P2PK uncompressed 2G", Cat({"4104", G2_X, G2_Y, "ac"}), Cat({"04", G2_X})},
    {"P2PK uncompressed -2G", Cat({"4104", G2_X, NEG_G2_Y, "ac"}), Cat({"05", G2_X})},
};

// Everything else is stored whole after VARINT(size + 6).
const std::vector<ScriptCase> GENERIC_SCRIPTS{
    {"empty", "", "06"},
    {"OP_TRUE", "51", "0751"},
    {"OP_RETURN data", "6a04deadbeef", "0c6a04deadbeef"},
    {"P2WPKH", Cat({"0014", HASH20}), Cat({"1c0014", HASH20})},
    {"P2WSH", Cat({"0020", HASH32}), Cat({"280020", HASH32})},
    {"P2TR", Cat({"5120", G_X}), Cat({"285120", G_X})},
    {"bare multisig 1-of-2", Cat({"5121", "02", G_X, "21", "03", G2_X, "52ae"}),
     Cat({"4d5121", "02", G_X, "21", "03", G2_X, "52ae"})},
    {"P2PK uncompressed off-curve", Cat({"4104", G_X, OFF_CURVE_Y, "ac"}), Cat({"494104", G_X, OFF_CURVE_Y, "ac"})},
    {"P2PK uncompressed zero point", Cat({"4104", ZERO_32, ZERO_32, "ac"}), Cat({"494104", ZERO_32, ZERO_32, "ac"})},
    {"P2PK hybrid 06 G", Cat({"4106", G_X, G_Y, "ac"}), Cat({"494106", G_X, G_Y, "ac"})},
    {"P2PK hybrid 07 -G", Cat({"4107", G_X, NEG_G_Y, "ac"}), Cat({"494107", G_X, NEG_G_Y, "ac"})},
    {"P2PK hybrid 07 with even y", Cat({"4107", G_X, G_Y, "ac"}), Cat({"494107", G_X, G_Y, "ac"})},
    // Near misses of the special shapes.
    {"P2PKH without OP_CHECKSIG", Cat({"76a914", HASH20, "88ad"}), Cat({"1f76a914", HASH20, "88ad"})},
    {"P2PKH pushing 21 bytes", Cat({"76a915", HASH20, "0088ac"}), Cat({"2076a915", HASH20, "0088ac"})},
    {"P2SH with OP_EQUALVERIFY", Cat({"a914", HASH20, "88"}), Cat({"1da914", HASH20, "88"})},
    {"P2PK 33 bytes with 04 prefix", Cat({"2104", G_X, "ac"}), Cat({"292104", G_X, "ac"})},
    {"P2PK 65-byte push of compressed prefix", Cat({"4102", G_X, G_Y, "ac"}), Cat({"494102", G_X, G_Y, "ac"})},
    {"P2PK uncompressed with trailing byte", Cat({"4104", G_X, G_Y, "ac00"}), Cat({"4a4104", G_X, G_Y, "ac00"})},
};

// Coins Bitcoin Core wrote to the regtest-small chainstate (de-obfuscated
// values from shared/vectors), with the script each stands for.
struct CoreCoinCase {
    std::string_view name;
    std::string_view value;
    uint32_t height;
    bool coinbase;
    CAmount amount;
    std::string_view script;
};

constexpr CoreCoinCase CORE_COINS[] = {
    {"OP_TRUE coinbase", "8067320751", 115, true, 5000000000, "51"},
    {"empty script", "81289e80cfd85106", 148, false, 924990943, ""},
    {"P2PKH", "812282ac92d1010075ff0180f526c53aa8d018e401c73f50fb19a565", 145, false, 100000001,
     "76a91475ff0180f526c53aa8d018e401c73f50fb19a56588ac"},
    {"P2SH", "8122857b01fda47685b1c0bf159b6c1e793eeb21fbcfd3dc93", 145, false, 99,
     "a914fda47685b1c0bf159b6c1e793eeb21fbcfd3dc9387"},
    {"P2PK 02", "811c0402adfdbc806d2cce8194d5d02e16bb4c78acf70aa2f4b6ced2f5f5340e4ac61f69", 142, false, 1000,
     "2102adfdbc806d2cce8194d5d02e16bb4c78acf70aa2f4b6ced2f5f5340e4ac61f69ac"},
    {"P2PK 03", "812000037d6223c12fe6bb2c3a2fb02a84d3df1d2f7b209613ecd5287311f42bf6051ec7", 144, false, 0,
     "21037d6223c12fe6bb2c3a2fb02a84d3df1d2f7b209613ecd5287311f42bf6051ec7ac"},
    {"P2PK uncompressed, even y", "811c0304cad0527d67aef89336a1ca505fb1d26f80dff06d563101310df3ac551fe65304", 142, false,
     100,
     "4104cad0527d67aef89336a1ca505fb1d26f80dff06d563101310df3ac551fe653043e1e8dde0a123ec3a3767419b07d008521a47226e1c6ad"
     "646a3227c79d72822cac"},
    {"P2PK uncompressed, odd y", "812284cda1b405052ebd7f91c3ec9a5e665e02cad98d9b607bb99fe3ce77768ba1008d5414b854d1", 145,
     false, 167368776,
     "41042ebd7f91c3ec9a5e665e02cad98d9b607bb99fe3ce77768ba1008d5414b854d1acb5ac3356bb694892a127104c0e1699b338704408301a"
     "1e5993ab06db1be5ddac"},
    {"P2PK uncompressed off-curve",
     "812206494104c86e98d29edb1b2f7f7127fb3c48005329295056fd432ce30771aad77ddb5664d8484fba899c983f38442e77e683d0f9ca1a64"
     "b67272f89be6a16a0aeb78d07fac",
     145, false, 100000,
     "4104c86e98d29edb1b2f7f7127fb3c48005329295056fd432ce30771aad77ddb5664d8484fba899c983f38442e77e683d0f9ca1a64b67272f8"
     "9be6a16a0aeb78d07fac"},
    {"P2PK hybrid 06",
     "811c004941066e8a199fcbce9dc81605cde16a2cc64f88270cdc43468ccffcb5c77291fcd528b0462dfcc1c8678f5e34733cb6de1927df94af"
     "a1a1dda67b06ac67d62185976cac",
     142, false, 0,
     "41066e8a199fcbce9dc81605cde16a2cc64f88270cdc43468ccffcb5c77291fcd528b0462dfcc1c8678f5e34733cb6de1927df94afa1a1dda6"
     "7b06ac67d62185976cac"},
    {"P2PK hybrid 07",
     "8120034941079d42d48dc9ebcc82be818a06ecf4715f004b20ace0fd4bd2c6409eeebeaf9819cd19c379c25305d5d93c21c849fa2024b56a44"
     "982f3c1fc81c005e4bd515808fac",
     144, false, 100,
     "41079d42d48dc9ebcc82be818a06ecf4715f004b20ace0fd4bd2c6409eeebeaf9819cd19c379c25305d5d93c21c849fa2024b56a44982f3c1f"
     "c81c005e4bd515808fac"},
    {"P2WPKH", "8122031c0014a8ce6712d269ee58ef65570c8f09830069dc535c", 145, false, 100,
     "0014a8ce6712d269ee58ef65570c8f09830069dc535c"},
    {"P2WSH", "8122b5f617280020ab8d7acb6f8ed29e8f546d597df80238dd5b001a54e030e8cf837627171648e3", 145, false, 99999,
     "0020ab8d7acb6f8ed29e8f546d597df80238dd5b001a54e030e8cf837627171648e3"},
    {"P2TR", "81220128512000e486f078ce438717bce12f4a733186dee38b7a44485d4aa42ff7d81a7b67a6", 145, false, 1,
     "512000e486f078ce438717bce12f4a733186dee38b7a44485d4aa42ff7d81a7b67a6"},
};

} // namespace

BOOST_AUTO_TEST_SUITE(compressor_tests)

BOOST_AUTO_TEST_CASE(amount_table_both_ways)
{
    for (const auto& [amount, compressed] : AMOUNT_CASES) {
        BOOST_TEST_CONTEXT("amount " << amount)
        {
            BOOST_CHECK_EQUAL(CompressAmount(amount), compressed);
            BOOST_CHECK_EQUAL(DecompressAmount(compressed), amount);
        }
    }
    // As stored: 50 BTC is the single byte 32, 21e6 BTC four bytes.
    BOOST_CHECK_EQUAL(VarIntHex(CompressAmount(50 * COIN)), "32");
    BOOST_CHECK_EQUAL(VarIntHex(CompressAmount(COIN)), "09");
    BOOST_CHECK_EQUAL(VarIntHex(CompressAmount(MAX_MONEY)), "8980dd40");
}

BOOST_AUTO_TEST_CASE(amount_round_trip)
{
    // Every small value, both directions: the mapping is a bijection.
    for (uint64_t v = 0; v <= 100'000; ++v) {
        BOOST_CHECK_EQUAL(DecompressAmount(CompressAmount(v)), v);
        BOOST_CHECK_EQUAL(CompressAmount(DecompressAmount(v)), v);
    }
    std::mt19937_64 rng{0xa30047};
    std::uniform_int_distribution<uint64_t> money{0, static_cast<uint64_t>(MAX_MONEY)};
    for (int i = 0; i < 200'000; ++i) {
        // Values with many trailing zeros are the common case on chain.
        uint64_t v = money(rng);
        const unsigned zeros = rng() % 12;
        for (unsigned z = 0; z < zeros; ++z) v /= 10;
        for (unsigned z = 0; z < zeros; ++z) v *= 10;
        BOOST_TEST_CONTEXT("amount " << v)
        {
            BOOST_CHECK_EQUAL(DecompressAmount(CompressAmount(v)), v);
        }
    }
}

BOOST_AUTO_TEST_CASE(special_scripts)
{
    for (const auto& [name, script_hex, compressed_hex] : SPECIAL_SCRIPTS) {
        BOOST_TEST_CONTEXT(name)
        {
            const CScript script = ScriptFromHex(script_hex);
            CompressedScript special;
            BOOST_REQUIRE(CompressScript(script, special));
            // Core's layout: nSize, then the body; the serialized form is the same bytes.
            BOOST_CHECK_EQUAL(HexStr(special), compressed_hex);
            BOOST_CHECK_EQUAL(special.size(), 1 + GetSpecialScriptSize(special[0]));
            BOOST_CHECK_EQUAL(CompressedScriptHex(script), compressed_hex);

            // Decompression restores the exact script, y included.
            DataStream stream{ParseHexOrThrow(compressed_hex)};
            BOOST_CHECK_EQUAL(HexStr(ReadCompressedScript(stream)), script_hex);
            BOOST_CHECK(stream.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(generic_scripts)
{
    for (const auto& [name, script_hex, compressed_hex] : GENERIC_SCRIPTS) {
        BOOST_TEST_CONTEXT(name)
        {
            const CScript script = ScriptFromHex(script_hex);
            CompressedScript untouched{0xee};
            BOOST_CHECK(!CompressScript(script, untouched));
            BOOST_CHECK(untouched == CompressedScript{0xee});
            BOOST_CHECK_EQUAL(CompressedScriptHex(script), compressed_hex);
            BOOST_CHECK_EQUAL(CompressedScriptHex(script), VarIntHex(script.size() + 6) + script_hex);

            DataStream stream{ParseHexOrThrow(compressed_hex)};
            BOOST_CHECK_EQUAL(HexStr(ReadCompressedScript(stream)), script_hex);
            BOOST_CHECK(stream.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(uncompressed_key_parity_selects_nsize)
{
    // nSize is 4 | (last byte of y & 1), and decompression picks the y of
    // that parity: the stored 33 bytes rebuild the 67-byte script.
    const struct {
        std::string_view x, y;
        unsigned n_size;
    } points[] = {{G_X, G_Y, 4}, {G_X, NEG_G_Y, 5}, {G2_X, G2_Y, 4}, {G2_X, NEG_G2_Y, 5}};
    for (const auto& [x, y, n_size] : points) {
        BOOST_TEST_CONTEXT("x " << x << " y " << y)
        {
            const CScript script = ScriptFromHex(Cat({"4104", x, y, "ac"}));
            BOOST_REQUIRE_EQUAL(script.size(), 67U);
            CompressedScript special;
            BOOST_REQUIRE(CompressScript(script, special));
            BOOST_CHECK_EQUAL(special[0], n_size);
            const CompressedScript body{special.begin() + 1, special.end()};
            BOOST_CHECK_EQUAL(HexStr(body), x);
            CScript rebuilt;
            BOOST_REQUIRE(DecompressScript(rebuilt, n_size, body));
            BOOST_CHECK(rebuilt == script);
        }
    }
}

BOOST_AUTO_TEST_CASE(special_script_sizes_and_refusals)
{
    // Core's GetSpecialScriptSize: the body after nSize; 0 for nSize >= 6.
    const std::array<unsigned, 8> expected{20, 20, 32, 32, 32, 32, 0, 0};
    for (unsigned n_size = 0; n_size < expected.size(); ++n_size) BOOST_CHECK_EQUAL(GetSpecialScriptSize(n_size), expected[n_size]);

    // DecompressScript refuses what has no special form, or too short a
    // body, and leaves the script alone.
    const CScript before{std::vector<unsigned char>{0x51}};
    for (unsigned n_size = 0; n_size < 8; ++n_size) {
        BOOST_TEST_CONTEXT("nSize " << n_size)
        {
            CScript script = before;
            const CompressedScript short_body(n_size < 2 ? 19 : 31, 0x02);
            BOOST_CHECK(!DecompressScript(script, n_size, short_body));
            BOOST_CHECK(script == before);
            if (n_size >= SPECIAL_SCRIPT_COUNT) {
                BOOST_CHECK(!DecompressScript(script, n_size, CompressedScript(32, 0x02)));
                BOOST_CHECK(script == before);
            }
        }
    }
    // A longer body is read up to its size, as Core reads it.
    CScript p2pkh;
    BOOST_REQUIRE(DecompressScript(p2pkh, 0, CompressedScript(32, 0x11)));
    BOOST_CHECK_EQUAL(HexStr(p2pkh), "76a914" + std::string(40, '1') + "88ac");
}

BOOST_AUTO_TEST_CASE(stored_x_without_curve_point_rejected)
{
    for (const auto x : {std::string_view{ZERO_32}, NO_Y_X}) {
        for (const unsigned n_size : {4U, 5U}) {
            BOOST_TEST_CONTEXT("nSize " << n_size << " x " << x)
            {
                const auto bytes = ParseHexOrThrow(x);
                CScript untouched{std::vector<unsigned char>{0x51}};
                BOOST_CHECK(!DecompressScript(untouched, n_size, CompressedScript{bytes.begin(), bytes.end()}));
                BOOST_CHECK(untouched == CScript{std::vector<unsigned char>{0x51}});
                DataStream stream{ParseHexOrThrow(VarIntHex(n_size) + std::string{x})};
                BOOST_CHECK_EXCEPTION(ReadCompressedScript(stream), std::ios_base::failure,
                                      HasReason{"compressed script holds a public key that is not on the curve"});
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(truncated_special_body)
{
    const std::vector<std::string> truncated{"00", Cat({"00", HASH20.substr(0, 38)}), "01", "02", "04"};
    for (const auto& hex : truncated) {
        BOOST_TEST_CONTEXT(hex)
        {
            DataStream stream{ParseHexOrThrow(hex)};
            BOOST_CHECK_EXCEPTION(ReadCompressedScript(stream), std::ios_base::failure,
                                  HasReason{"DataStream::read(): end of data"});
        }
    }
}

BOOST_AUTO_TEST_CASE(script_size_limits)
{
    // The largest script a coin may hold round-trips.
    CScript largest(MAX_SCRIPT_SIZE, 0x51);
    largest[0] = 0x00;
    DataStream stream;
    SerializeCompressedScript(stream, largest);
    BOOST_CHECK_EQUAL(stream.size(), 2 + MAX_SCRIPT_SIZE);
    BOOST_CHECK_EQUAL(HexStr(stream.Unread().first(3)), "cd1600");
    BOOST_CHECK(ReadCompressedScript(stream) == largest);
    BOOST_CHECK(stream.empty());

    // One byte more is read back as a lone OP_RETURN, and the reader moves
    // past the body to whatever follows it.
    for (const size_t length : {MAX_SCRIPT_SIZE + 1, size_t{100'000}}) {
        BOOST_TEST_CONTEXT("length " << length)
        {
            const CScript too_long(length, 0x51);
            DataStream with_next_field;
            SerializeCompressedScript(with_next_field, too_long);
            with_next_field << uint32_t{0xfeedbeef};
            BOOST_CHECK_EQUAL(with_next_field.size(), VarIntHex(length + 6).size() / 2 + length + 4);
            CScript read_back{0x01, 0x02};
            UnserializeCompressedScript(with_next_field, read_back);
            BOOST_CHECK_EQUAL(HexStr(read_back), "6a");
            BOOST_CHECK_EQUAL(UnreadHex(with_next_field), "efbeedfe");
        }
    }
    BOOST_CHECK_EQUAL(CompressedScriptHex(CScript(MAX_SCRIPT_SIZE + 1, 0x51)).substr(0, 4), "cd17");
}

BOOST_AUTO_TEST_CASE(oversized_lengths_rejected)
{
    struct Case {
        std::string hex;
        std::string_view reason;
    };
    const std::vector<Case> cases{
        // A long body that is not there: the skip runs out of data.
        {VarIntHex(6 + 20'000) + "0102030405", "DataStream::read(): end of data"},
        {VarIntHex(UINT32_MAX), "DataStream::read(): end of data"},
        // nSize is a 32-bit quantity upstream.
        {VarIntHex(uint64_t{UINT32_MAX} + 1), "ReadVarInt(): size too large"},
        {VarIntHex(UINT64_MAX), "ReadVarInt(): size too large"},
        {"80fefefefefefefeff00", "ReadVarInt(): size too large"},
        // A short body.
        {VarIntHex(6 + 3) + "5151", "DataStream::read(): end of data"},
    };
    for (const auto& [hex, reason] : cases) {
        BOOST_TEST_CONTEXT(hex)
        {
            DataStream stream{ParseHexOrThrow(hex)};
            BOOST_CHECK_EXCEPTION(ReadCompressedScript(stream), std::ios_base::failure, HasReason{std::string{reason}});
        }
    }
}

BOOST_AUTO_TEST_CASE(coin_example_from_coins_h)
{
    // A coinbase output of 50 BTC to P2PKH at height 1.
    const Coin coin{CTxOut{50 * COIN, ScriptFromHex(Cat({"76a914", HASH20, "88ac"}))}, 1, true};
    const std::string expected = Cat({"03", "32", "00", HASH20});
    BOOST_CHECK_EQUAL(SerializedHex(coin), expected);

    DataStream stream{ParseHexOrThrow(expected)};
    Coin decoded;
    stream >> decoded;
    BOOST_CHECK(SameCoin(decoded, coin));
    BOOST_CHECK_EQUAL(decoded.nHeight, 1U);
    BOOST_CHECK(decoded.IsCoinBase());
    BOOST_CHECK_EQUAL(decoded.out.nValue, 50 * COIN);
    BOOST_CHECK(stream.empty());
}

BOOST_AUTO_TEST_CASE(coins_written_by_bitcoin_core)
{
    for (const auto& c : CORE_COINS) {
        BOOST_TEST_CONTEXT(c.name)
        {
            DataStream stream{ParseHexOrThrow(c.value)};
            Coin coin;
            stream >> coin;
            BOOST_CHECK(stream.empty());
            BOOST_CHECK_EQUAL(coin.nHeight, c.height);
            BOOST_CHECK_EQUAL(coin.IsCoinBase(), c.coinbase);
            BOOST_CHECK_EQUAL(coin.out.nValue, c.amount);
            BOOST_CHECK_EQUAL(HexStr(coin.out.scriptPubKey), c.script);
            // And back to Core's bytes.
            BOOST_CHECK_EQUAL(SerializedHex(coin), c.value);
            const Coin built{CTxOut{c.amount, ScriptFromHex(c.script)}, static_cast<int>(c.height), c.coinbase};
            BOOST_CHECK_EQUAL(SerializedHex(built), c.value);
        }
    }
}

BOOST_AUTO_TEST_CASE(coin_height_code_limits)
{
    const std::string rest = Cat({"00", "00", HASH20}); // amount 0, P2PKH

    // The largest code: height 2^31 - 1, coinbase.
    DataStream largest{ParseHexOrThrow(VarIntHex(UINT32_MAX) + rest)};
    Coin coin;
    largest >> coin;
    BOOST_CHECK_EQUAL(coin.nHeight, 0x7fffffffU);
    BOOST_CHECK(coin.IsCoinBase());
    BOOST_CHECK_EQUAL(coin.out.nValue, 0);
    BOOST_CHECK_EQUAL(SerializedHex(coin), VarIntHex(UINT32_MAX) + rest);

    const Coin non_coinbase{CTxOut{0, ScriptFromHex(Cat({"76a914", HASH20, "88ac"}))}, 0x7fffffff, false};
    BOOST_CHECK_EQUAL(SerializedHex(non_coinbase), VarIntHex(uint64_t{UINT32_MAX} - 1) + rest);

    for (const uint64_t code : {uint64_t{UINT32_MAX} + 1, uint64_t{1} << 40, UINT64_MAX}) {
        BOOST_TEST_CONTEXT("code " << code)
        {
            DataStream stream{ParseHexOrThrow(VarIntHex(code) + rest)};
            Coin rejected;
            BOOST_CHECK_EXCEPTION(stream >> rejected, std::ios_base::failure, HasReason{"ReadVarInt(): size too large"});
        }
    }
}

BOOST_AUTO_TEST_CASE(coin_truncated)
{
    const std::string full = Cat({"03", "32", "00", HASH20});
    for (size_t keep = 0; keep < full.size(); keep += 2) {
        BOOST_TEST_CONTEXT("first " << keep / 2 << " bytes")
        {
            DataStream stream{ParseHexOrThrow(full.substr(0, keep))};
            Coin coin;
            BOOST_CHECK_EXCEPTION(stream >> coin, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
