// SHA-256 against FIPS 180 vectors, SHA256d as Bitcoin uses it (block
// hashes, txids, merkle nodes in runs of 64-byte inputs), and SipHash-2-4 against the vectors of the reference
// implementation, including the outpoint form the coins cache hashes with.

#include <crypto/sha256.h>
#include <crypto/siphash.h>
#include <hash.h>
#include <test/util/stream_helpers.h>
#include <uint256.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::span<const unsigned char> AsBytes(std::string_view text)
{
    return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

struct Sha256Case {
    std::string message;
    std::string_view digest;
};

// FIPS 180-2 appendix B and the NIST example messages.
const std::vector<Sha256Case> SHA256_CASES{
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    {std::string(1'000'000, 'a'), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
};

std::string Sha256Hex(std::span<const unsigned char> data) { return HexStr(Sha256(data)); }

std::string FinalizeHex(CSHA256& sha)
{
    std::array<unsigned char, CSHA256::OUTPUT_SIZE> out;
    sha.Finalize(out);
    return HexStr(out);
}

// The mainnet genesis block header (80 bytes).
constexpr std::string_view MAINNET_GENESIS_HEADER =
    "01000000"                                                         // version
    "0000000000000000000000000000000000000000000000000000000000000000" // previous block
    "3ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a" // merkle root
    "29ab5f49"                                                         // time 1231006505
    "ffff001d"                                                         // bits 0x1d00ffff
    "1dac2b7c";                                                        // nonce 2083236893

constexpr std::string_view GENESIS_MERKLE_ROOT = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";

uint256 HashHeader(int32_t version, const uint256& prev, const uint256& merkle_root, uint32_t time, uint32_t bits,
                   uint32_t nonce)
{
    HashWriter writer;
    writer << version << prev << merkle_root << time << bits << nonce;
    return writer.GetHash();
}

// SipHash-2-4 with key 00 01 .. 0f over the messages 00 01 .. (len-1),
// len = 0..63: the table of the SipHash reference implementation, the
// 15-byte entry being the paper's worked example.
constexpr uint64_t SIPHASH_KEY0 = 0x0706050403020100;
constexpr uint64_t SIPHASH_KEY1 = 0x0f0e0d0c0b0a0908;
constexpr std::array<uint64_t, 64> SIPHASH_VECTORS{
    0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d,
    0xcf2794e0277187b7, 0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137,
    0x93f5f5799a932462, 0x9e0082df0ba9e4b0, 0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7,
    0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee, 0xa129ca6149be45e5,
    0x3f2acc7f57c29bdb, 0x699ae9f52cbe4794, 0x4bc1b3f0968dd39c, 0xbb6dc91da77961bd,
    0xbed65cf21aa2ee98, 0xd0f2cbb02e3b67c7, 0x93536795e3a33e88, 0xa80c038ccd5ccec8,
    0xb8ad50c6f649af94, 0xbce192de8a85b8ea, 0x17d835b85bbb15f3, 0x2f2e6163076bcfad,
    0xde4daaaca71dc9a5, 0xa6a2506687956571, 0xad87a3535c49ef28, 0x32d892fad841c342,
    0x7127512f72f27cce, 0xa7f32346f95978e3, 0x12e0b01abb051238, 0x15e034d40fa197ae,
    0x314dffbe0815a3b4, 0x027990f029623981, 0xcadcd4e59ef40c4d, 0x9abfd8766a33735c,
    0x0e3ea96b5304a7d0, 0xad0c42d6fc585992, 0x187306c89bc215a9, 0xd4a60abcf3792b95,
    0xf935451de4f21df2, 0xa9538f0419755787, 0xdb9acddff56ca510, 0xd06c98cd5c0975eb,
    0xe612a3cb9ecba951, 0xc766e62cfcadaf96, 0xee64435a9752fe72, 0xa192d576b245165a,
    0x0a8787bf8ecb74b2, 0x81b3e73d20b49b6f, 0x7fa8220ba3b2ecea, 0x245731c13ca42499,
    0xb78dbfaf3a8d83bd, 0xea1ad565322a1a0b, 0x60e61c23a3795013, 0x6606d7e446282b93,
    0x6ca4ecb15c5f91e1, 0x9f626da15c9625f3, 0xe51b38608ef25f57, 0x958a324ceb064572,
};

std::array<unsigned char, 64> CountingBytes()
{
    std::array<unsigned char, 64> bytes;
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i);
    return bytes;
}

} // namespace

BOOST_AUTO_TEST_SUITE(hash_tests)

BOOST_AUTO_TEST_CASE(sha256_fips180_vectors)
{
    for (const auto& [message, digest] : SHA256_CASES) {
        BOOST_TEST_CONTEXT(message.size() << "-byte message")
        {
            BOOST_CHECK_EQUAL(Sha256Hex(AsBytes(message)), digest);

            CSHA256 sha;
            sha.Write(AsBytes(message));
            BOOST_CHECK_EQUAL(FinalizeHex(sha), digest);

            // HashWriter's single SHA-256 keeps the digest in stored order.
            HashWriter writer;
            writer.write(std::as_bytes(AsBytes(message)));
            const uint256 single = writer.GetSHA256();
            BOOST_CHECK_EQUAL(HexStr(std::span{single.begin(), single.end()}), digest);
        }
    }
}

BOOST_AUTO_TEST_CASE(sha256_incremental_equals_one_shot)
{
    std::mt19937_64 rng{0x5a256};
    std::vector<unsigned char> message(300);
    for (auto& byte : message) byte = static_cast<unsigned char>(rng());

    // Every length across several 64-byte block boundaries, split at a
    // random point and also fed one byte at a time.
    for (size_t length = 0; length <= message.size(); ++length) {
        const auto data = std::span{message}.first(length);
        const std::string expected = Sha256Hex(data);
        const size_t split = length == 0 ? 0 : rng() % (length + 1);
        BOOST_TEST_CONTEXT("length " << length << " split " << split)
        {
            CSHA256 two_parts;
            two_parts.Write(data.first(split)).Write(data.subspan(split));
            BOOST_CHECK_EQUAL(FinalizeHex(two_parts), expected);

            CSHA256 bytewise;
            for (const unsigned char byte : data) bytewise.Write(std::span{&byte, 1});
            BOOST_CHECK_EQUAL(FinalizeHex(bytewise), expected);
        }
    }

    // One million 'a' written in uneven pieces.
    const std::string chunk(997, 'a');
    CSHA256 million;
    size_t written = 0;
    while (written + chunk.size() <= 1'000'000) {
        million.Write(AsBytes(chunk));
        written += chunk.size();
    }
    million.Write(AsBytes(std::string(1'000'000 - written, 'a')));
    BOOST_CHECK_EQUAL(FinalizeHex(million), SHA256_CASES.back().digest);
}

BOOST_AUTO_TEST_CASE(sha256_finalize_and_reset_start_over)
{
    CSHA256 sha;
    sha.Write(AsBytes("abc"));
    BOOST_CHECK_EQUAL(FinalizeHex(sha), SHA256_CASES[1].digest);
    // Finalize leaves a fresh state behind.
    BOOST_CHECK_EQUAL(FinalizeHex(sha), SHA256_CASES[0].digest);

    sha.Write(AsBytes("some discarded prefix"));
    sha.Reset();
    sha.Write(AsBytes("abc"));
    BOOST_CHECK_EQUAL(FinalizeHex(sha), SHA256_CASES[1].digest);

    CSHA256 moved_from;
    moved_from.Write(AsBytes("ab"));
    CSHA256 moved_to{std::move(moved_from)};
    moved_to.Write(AsBytes("c"));
    BOOST_CHECK_EQUAL(FinalizeHex(moved_to), SHA256_CASES[1].digest);
}

BOOST_AUTO_TEST_CASE(sha256d_vectors)
{
    struct Case {
        std::string_view message;
        std::string_view stored_hex; // digest bytes in the order SHA-256 outputs them
    };
    constexpr Case CASES[] = {
        {"", "5df6e0e2761359d30a8275058e299fcc0381534545f55cf43e41983f5d4c9456"},
        {"abc", "4f8b42c22dd3729b519ba6f68d2da7cc5b2d606d05daed5ad5128cc03e6c6358"},
    };
    for (const auto& [message, stored_hex] : CASES) {
        BOOST_TEST_CONTEXT("'" << message << "'")
        {
            const uint256 once_more = Hash256(AsBytes(message));
            BOOST_CHECK_EQUAL(HexStr(std::span{once_more.begin(), once_more.end()}), stored_hex);

            HashWriter writer;
            writer.write(std::as_bytes(AsBytes(message)));
            BOOST_CHECK(writer.GetHash() == once_more);

            // SHA256d is SHA-256 applied to the 32-byte digest.
            const auto first = Sha256(AsBytes(message));
            BOOST_CHECK_EQUAL(Sha256Hex(first), stored_hex);
        }
    }
}

BOOST_AUTO_TEST_CASE(sha256d_mainnet_genesis_header)
{
    const auto header = ParseHexOrThrow(MAINNET_GENESIS_HEADER);
    BOOST_REQUIRE_EQUAL(header.size(), 80U);
    const uint256 expected = *uint256::FromHex("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");

    BOOST_CHECK_EQUAL(Hash256(header).GetHex(), expected.GetHex());

    HashWriter raw;
    raw.write(std::as_bytes(std::span{header}));
    BOOST_CHECK(raw.GetHash() == expected);

    // The same header built from its fields through the serializer.
    const uint256 merkle_root = *uint256::FromHex(GENESIS_MERKLE_ROOT);
    BOOST_CHECK(HashHeader(1, uint256{}, merkle_root, 1231006505, 0x1d00ffff, 2083236893) == expected);
    // One changed field changes the hash.
    BOOST_CHECK(HashHeader(1, uint256{}, merkle_root, 1231006505, 0x1d00ffff, 2083236894) != expected);
}

BOOST_AUTO_TEST_CASE(sha256d_regtest_genesis_header)
{
    const uint256 merkle_root = *uint256::FromHex(GENESIS_MERKLE_ROOT);
    BOOST_CHECK_EQUAL(HashHeader(1, uint256{}, merkle_root, 1296688602, 0x207fffff, 2).GetHex(),
                      "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206");
}

BOOST_AUTO_TEST_CASE(sha256d64_equals_hash256_of_each_input)
{
    // Counts around the four inputs hashed side by side, into a separate
    // buffer and in place (as a merkle level is).
    std::mt19937_64 rng{0xd64};
    for (size_t count = 0; count <= 13; ++count) {
        std::vector<unsigned char> in(64 * count);
        for (auto& byte : in) byte = static_cast<unsigned char>(rng());
        std::vector<unsigned char> out(32 * count);
        Sha256D64(out.data(), in.data(), count);
        std::vector<unsigned char> in_place = in;
        Sha256D64(in_place.data(), in_place.data(), count);
        for (size_t i = 0; i < count; ++i) {
            BOOST_TEST_CONTEXT("input " << i << " of " << count)
            {
                const uint256 expected = Hash256(std::span{in}.subspan(64 * i, 64));
                BOOST_CHECK_EQUAL(HexStr(std::span{out}.subspan(32 * i, 32)), HexStr(expected));
                BOOST_CHECK_EQUAL(HexStr(std::span{in_place}.subspan(32 * i, 32)), HexStr(expected));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(siphash24_reference_vectors)
{
    const auto message = CountingBytes();
    for (size_t length = 0; length < SIPHASH_VECTORS.size(); ++length) {
        BOOST_TEST_CONTEXT("length " << length)
        {
            BOOST_CHECK_EQUAL(SipHash24(SIPHASH_KEY0, SIPHASH_KEY1, std::span{message}.first(length)),
                              SIPHASH_VECTORS[length]);
        }
    }
    // The paper's example, spelled out.
    BOOST_CHECK_EQUAL(SipHash24(SIPHASH_KEY0, SIPHASH_KEY1, std::span{message}.first(15)), 0xa129ca6149be45e5U);
    // The key matters.
    BOOST_CHECK_NE(SipHash24(SIPHASH_KEY0 ^ 1, SIPHASH_KEY1, std::span{message}.first(15)), 0xa129ca6149be45e5U);
}

BOOST_AUTO_TEST_CASE(siphash_uint256_extra_reference_vector)
{
    // txid bytes 00..1f and n = 0x23222120 make the 36-byte message 00..23.
    const auto message = CountingBytes();
    BOOST_CHECK_EQUAL(SipHashUint256Extra(SIPHASH_KEY0, SIPHASH_KEY1, message.data(), 0x23222120), SIPHASH_VECTORS[36]);
}

BOOST_AUTO_TEST_CASE(siphash_uint256_extra_equals_general_form)
{
    std::mt19937_64 rng{0x51b};
    std::vector<uint32_t> indexes{0, 1, 0xff, 0x100, 0x7fffffff, 0xfffffffe, 0xffffffff};
    for (int i = 0; i < 200; ++i) indexes.push_back(static_cast<uint32_t>(rng()));

    for (const uint32_t n : indexes) {
        const uint64_t k0 = rng();
        const uint64_t k1 = rng();
        std::array<unsigned char, 36> message;
        for (size_t i = 0; i < 32; ++i) message[i] = static_cast<unsigned char>(rng());
        for (size_t i = 0; i < 4; ++i) message[32 + i] = static_cast<unsigned char>(n >> (8 * i));
        BOOST_TEST_CONTEXT("n " << n << " k0 " << k0 << " k1 " << k1)
        {
            BOOST_CHECK_EQUAL(SipHashUint256Extra(k0, k1, message.data(), n), SipHash24(k0, k1, message));
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
