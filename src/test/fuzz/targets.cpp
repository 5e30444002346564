#include <test/fuzz/fuzz.h>

#include <streams.h>
#include <test/util/coin_compare.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace {

constexpr std::array<FuzzTarget, 5> TARGETS{{
    {"snapshot_reader", FuzzSnapshotReader},
    {"coin_decompression", FuzzCoinDecompression},
    {"rpc_request", FuzzRPCRequest},
    {"coins_cache_model", FuzzCoinsCacheModel},
    {"hints_decoder", FuzzHintsDecoder},
}};

} // namespace

std::span<const FuzzTarget> AllFuzzTargets() { return TARGETS; }

const FuzzTarget* FindFuzzTarget(std::string_view name)
{
    for (const auto& target : TARGETS) {
        if (target.name == name) return &target;
    }
    return nullptr;
}

void FuzzCheckFailed(const char* condition, const char* file, int line)
{
    throw FuzzCheckFailure{std::string{file} + ":" + std::to_string(line) + ": FUZZ_CHECK(" + condition + ") failed"};
}

void CheckCoinRoundTrip(const Coin& coin)
{
    DataStream original;
    original << coin;
    const std::vector<std::byte> encoding(original.Unread().begin(), original.Unread().end());

    Coin decoded;
    original >> decoded;
    FUZZ_CHECK(original.empty());
    FUZZ_CHECK(SameCoin(decoded, coin));
    // SameCoin treats all spent coins as the same; these coins are unspent,
    // but check the metadata it would skip anyway.
    FUZZ_CHECK(decoded.nHeight == coin.nHeight && decoded.fCoinBase == coin.fCoinBase);

    // One canonical encoding per coin: writing the decoded coin again must
    // give the very same bytes.
    DataStream again;
    again << decoded;
    FUZZ_CHECK(std::ranges::equal(again.Unread(), encoding));
}
