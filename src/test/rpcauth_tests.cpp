// -rpcauth: HMAC-SHA-256 against published vectors, how a value splits
// into user, salt and hash (as Bitcoin Core splits it), and which
// "user:password" pairs match.

#include <crypto/hmac_sha256.h>
#include <node/rpc/rpcauth_credentials.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::span<const unsigned char> Bytes(std::string_view text)
{
    return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

struct HmacVector {
    std::string_view key;
    std::string_view message;
    std::string_view hex;
};

constexpr HmacVector HMAC_VECTORS[]{
    // RFC 4231 test case 2.
    {"Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
    // Python's hmac module, the way rpcauth.py uses it: the salt's hex
    // characters are the key.
    {"a1b2c3d4e5f60718293a4b5c6d7e8f90", "correct horse", "c02b832cd7914092453bb6eedb68440ade6b028b7e41b0b27c5ff90add355bbd"},
    {"key", "The quick brown fox jumps over the lazy dog", "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"},
};

const std::string ALICE = "alice:a1b2c3d4e5f60718293a4b5c6d7e8f90$c02b832cd7914092453bb6eedb68440ade6b028b7e41b0b27c5ff90add355bbd";

struct ParseRow {
    std::string value;
    bool valid;
};

const ParseRow PARSE_ROWS[]{
    {ALICE, true},
    {"u:s$h", true},
    // Either separator splits, as upstream does.
    {"u$s:h", true},
    {"u:s:h", true},
    {"u:s", false},
    {"u", false},
    {"u:s$h$extra", false},
    {"us:er:s$h", false},
    {"", false},
};

} // namespace

BOOST_AUTO_TEST_SUITE(rpcauth_tests)

BOOST_AUTO_TEST_CASE(hmac_sha256_vectors)
{
    for (const auto& vector : HMAC_VECTORS) {
        BOOST_CHECK_EQUAL(HexStr(HmacSha256(Bytes(vector.key), Bytes(vector.message))), vector.hex);
    }
}

BOOST_AUTO_TEST_CASE(values_split_into_three_fields)
{
    for (const auto& row : PARSE_ROWS) {
        BOOST_TEST_CONTEXT("-rpcauth=" << row.value)
        {
            BOOST_CHECK_EQUAL(node::ParseRpcAuth({row.value}).has_value(), row.valid);
            // One bad value among good ones refuses them all.
            BOOST_CHECK_EQUAL(node::ParseRpcAuth({ALICE, row.value}).has_value(), row.valid);
        }
    }
    const auto entries = node::ParseRpcAuth({ALICE});
    BOOST_REQUIRE(entries && entries->size() == 1);
    BOOST_CHECK_EQUAL(entries->front().user, "alice");
    BOOST_CHECK_EQUAL(entries->front().salt, "a1b2c3d4e5f60718293a4b5c6d7e8f90");
    BOOST_CHECK_EQUAL(entries->front().hash, "c02b832cd7914092453bb6eedb68440ade6b028b7e41b0b27c5ff90add355bbd");
}

BOOST_AUTO_TEST_CASE(matching_user_and_password)
{
    const auto entries = node::ParseRpcAuth({"bob:00$" + std::string(64, '0'), ALICE});
    BOOST_REQUIRE(entries);
    BOOST_CHECK(node::RpcAuthMatches(*entries, "alice:correct horse"));
    BOOST_CHECK(!node::RpcAuthMatches(*entries, "alice:correct horse "));
    BOOST_CHECK(!node::RpcAuthMatches(*entries, "alice:wrong"));
    // The right password under another user name.
    BOOST_CHECK(!node::RpcAuthMatches(*entries, "bob:correct horse"));
    BOOST_CHECK(!node::RpcAuthMatches(*entries, "alicecorrect horse"));
    BOOST_CHECK(!node::RpcAuthMatches({}, "alice:correct horse"));
    // The password may hold colons: only the first one separates.
    const std::string salt = "ff";
    const std::string hash = HexStr(HmacSha256(Bytes(salt), Bytes("p:w:d")));
    const auto colons = node::ParseRpcAuth({"carol:" + salt + "$" + hash});
    BOOST_REQUIRE(colons);
    BOOST_CHECK(node::RpcAuthMatches(*colons, "carol:p:w:d"));
}

BOOST_AUTO_TEST_SUITE_END()
