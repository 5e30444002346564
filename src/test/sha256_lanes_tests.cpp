// SHA-256's compression on lanes (crypto/sha256_lanes.h) against OpenSSL's
// SHA-256: whole messages, padded here and run block by block through 1 to
// 4 lanes that each hash a different message, so every lane's state
// carries from one block into the next. Skipped, and says so, on a CPU
// without the SHA extensions.

#include <crypto/sha256.h>
#include <crypto/sha256_lanes.h>
#include <test/util/random.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using sha256_lanes::BLOCK_SIZE;
using sha256_lanes::MAX_LANES;
using sha256_lanes::State;

// FIPS 180-4 padding: 0x80, zeros, the bit length as 64-bit big-endian.
std::vector<unsigned char> Padded(std::span<const unsigned char> message)
{
    std::vector<unsigned char> padded{message.begin(), message.end()};
    padded.push_back(0x80);
    while (padded.size() % BLOCK_SIZE != BLOCK_SIZE - 8) padded.push_back(0);
    const uint64_t bits = uint64_t{message.size()} * 8;
    for (int shift = 56; shift >= 0; shift -= 8) padded.push_back(static_cast<unsigned char>(bits >> shift));
    return padded;
}

// Hashes messages of the same padded length side by side, one lane each.
std::vector<std::string> LaneDigests(const std::vector<std::vector<unsigned char>>& messages)
{
    std::vector<std::vector<unsigned char>> padded;
    for (const auto& message : messages) padded.push_back(Padded(message));
    std::array<State, MAX_LANES> states;
    states.fill(sha256_lanes::INITIAL_STATE);
    for (size_t offset = 0; offset < padded.front().size(); offset += BLOCK_SIZE) {
        std::array<const unsigned char*, MAX_LANES> blocks{};
        for (size_t lane = 0; lane < padded.size(); ++lane) blocks[lane] = padded[lane].data() + offset;
        sha256_lanes::Compress(states.data(), blocks.data(), padded.size());
    }
    std::vector<std::string> digests;
    for (size_t lane = 0; lane < padded.size(); ++lane) {
        std::array<unsigned char, 32> digest;
        sha256_lanes::WriteDigest(states[lane], digest.data());
        digests.push_back(HexStr(digest));
    }
    return digests;
}

std::vector<unsigned char> Bytes(std::string_view text) { return {text.begin(), text.end()}; }

} // namespace

BOOST_AUTO_TEST_SUITE(sha256_lanes_tests)

BOOST_AUTO_TEST_CASE(fips180_vectors_in_every_lane)
{
    if (!sha256_lanes::Available()) {
        BOOST_TEST_MESSAGE("this CPU has no SHA extensions: sha256_lanes is not used, nothing to check");
        return;
    }
    // FIPS 180-2 appendix B: one block, and a 56-byte message whose padding
    // needs a second block.
    const std::string one_block = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const std::string two_blocks = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
    for (size_t lanes = 1; lanes <= MAX_LANES; ++lanes) {
        BOOST_TEST_CONTEXT(lanes << " lanes")
        {
            const std::vector<std::string> short_digests =
                LaneDigests(std::vector<std::vector<unsigned char>>(lanes, Bytes("abc")));
            for (const std::string& digest : short_digests) BOOST_CHECK_EQUAL(digest, one_block);
            const std::vector<std::string> long_digests = LaneDigests(std::vector<std::vector<unsigned char>>(
                lanes, Bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")));
            for (const std::string& digest : long_digests) BOOST_CHECK_EQUAL(digest, two_blocks);
        }
    }
}

BOOST_AUTO_TEST_CASE(random_messages_match_openssl_in_each_lane)
{
    if (!sha256_lanes::Available()) {
        BOOST_TEST_MESSAGE("this CPU has no SHA extensions: sha256_lanes is not used, nothing to check");
        return;
    }
    TestRand rand{0x5a256'1a4e5};
    for (int round = 0; round < 400; ++round) {
        const size_t lanes = 1 + rand.Below(MAX_LANES);
        // Lengths that pad to the same number of blocks (1 to 5), each lane
        // a different message and length.
        const size_t blocks = 1 + rand.Below(5);
        std::vector<std::vector<unsigned char>> messages(lanes);
        for (auto& message : messages) {
            const size_t longest = blocks * BLOCK_SIZE - 9;
            const size_t shortest = blocks == 1 ? 0 : longest - BLOCK_SIZE + 1;
            message.resize(shortest + rand.Below(longest - shortest + 1));
            for (auto& byte : message) byte = static_cast<unsigned char>(rand.Next());
        }
        const std::vector<std::string> digests = LaneDigests(messages);
        for (size_t lane = 0; lane < lanes; ++lane) {
            BOOST_TEST_CONTEXT("round " << round << ", lane " << lane << " of " << lanes << ", "
                                        << messages[lane].size() << " bytes")
            {
                BOOST_CHECK_EQUAL(digests[lane], HexStr(Sha256(messages[lane])));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(lane_count_out_of_range_is_refused)
{
    if (!sha256_lanes::Available()) {
        BOOST_TEST_MESSAGE("this CPU has no SHA extensions: sha256_lanes is not used, nothing to check");
        return;
    }
    std::array<State, MAX_LANES + 1> states{};
    const std::array<unsigned char, BLOCK_SIZE> block{};
    std::array<const unsigned char*, MAX_LANES + 1> blocks;
    blocks.fill(block.data());
    BOOST_CHECK_THROW(sha256_lanes::Compress(states.data(), blocks.data(), 0), std::invalid_argument);
    BOOST_CHECK_THROW(sha256_lanes::Compress(states.data(), blocks.data(), MAX_LANES + 1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(digest_bytes_are_big_endian_words)
{
    const State state{0x00010203, 0x04050607, 0x08090a0b, 0x0c0d0e0f, 0x10111213, 0x14151617, 0x18191a1b, 0x1c1d1e1f};
    std::array<unsigned char, 32> digest;
    sha256_lanes::WriteDigest(state, digest.data());
    for (size_t i = 0; i < digest.size(); ++i) BOOST_CHECK_EQUAL(digest[i], i);
}

BOOST_AUTO_TEST_SUITE_END()
