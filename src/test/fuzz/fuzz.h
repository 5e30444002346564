#ifndef COINSDB_TEST_FUZZ_FUZZ_H
#define COINSDB_TEST_FUZZ_FUZZ_H

// Fuzz targets: functions that take arbitrary bytes and check properties
// that must hold for every input. The same functions run under libFuzzer
// (main.cpp, built with -DBUILD_FUZZ=ON, see contrib/fuzz.sh) and in the
// unit suite (fuzz_regression_tests), which replays every input kept under
// src/test/data/fuzz_regressions/<target>/ without needing clang.
//
// A target may throw only FuzzCheckFailure (a property did not hold) or
// crash on an assert of the code under test; every other exception the
// code under test throws is an answer the target checks and swallows.

#include <coins.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

using FuzzTargetFn = void (*)(std::span<const uint8_t> input);

struct FuzzTarget {
    std::string_view name;
    FuzzTargetFn run;
};

// Every target, in a fixed order; names are also the directory names under
// src/test/data/fuzz_regressions/ and the corpus names contrib/fuzz.sh uses.
std::span<const FuzzTarget> AllFuzzTargets();
const FuzzTarget* FindFuzzTarget(std::string_view name);

// Deliberately not a std::logic_error or std::runtime_error: the code under
// test and the targets catch those as ordinary answers, and a failed
// property must never be mistaken for one.
class FuzzCheckFailure : public std::exception
{
public:
    explicit FuzzCheckFailure(std::string message) : m_message{std::move(message)} {}
    const char* what() const noexcept override { return m_message.c_str(); }

private:
    std::string m_message;
};

[[noreturn]] void FuzzCheckFailed(const char* condition, const char* file, int line);

// Unlike assert, stays on in every build and can be reported by Boost.Test
// as a failure instead of ending the unit-test process.
#define FUZZ_CHECK(condition)                                          \
    do {                                                               \
        if (!(condition)) FuzzCheckFailed(#condition, __FILE__, __LINE__); \
    } while (false)

// Decodes a coin, encodes it again and decodes that: the two coins must be
// equal and the second encoding identical to the first re-encoding.
void CheckCoinRoundTrip(const Coin& coin);

// --- snapshot_reader ---------------------------------------------------

struct SnapshotReadOutcome {
    uint64_t coins_announced{0};
    uint64_t coins_read{0};
    // Every announced coin was read and the file ended right after.
    bool complete{false};
    // SnapshotError::what() when the file was refused.
    std::string error;
};
// Reads a regtest snapshot the way a load does (metadata, base check, every
// coin), checking each accepted coin; never throws SnapshotError.
SnapshotReadOutcome ReadSnapshotForFuzz(std::span<const uint8_t> file_bytes);
void FuzzSnapshotReader(std::span<const uint8_t> input);

// --- coin_decompression ------------------------------------------------

struct ReencodedCoin {
    Coin coin;
    // How many input bytes the coin took.
    size_t consumed{0};
    // The coin written again: compression picks the special script form
    // wherever one exists, so this differs from the input only where the
    // input used the generic form for a script that has a special one.
    std::vector<unsigned char> encoding;
};
// nullopt when the input does not start with a readable coin.
std::optional<ReencodedCoin> ReencodeCoin(std::span<const uint8_t> input);
void FuzzCoinDecompression(std::span<const uint8_t> input);

// --- rpc_request -------------------------------------------------------

struct RPCFuzzReply {
    int http_status{0};
    std::string body;
};
// One HTTP body answered by a small fixed RPCTable (see rpc_request.cpp),
// after checking the reply's shape.
RPCFuzzReply HandleRPCBodyForFuzz(std::string_view body);
void FuzzRPCRequest(std::span<const uint8_t> input);

// --- coins_cache_model -------------------------------------------------

struct CacheModelStats {
    size_t steps{0};
    size_t coins_added{0};
    size_t overwrites_refused{0};
    size_t db_writes{0};
    size_t simulated_crashes{0};
    size_t db_compares{0};
    size_t max_depth{0};
};
// Runs the operations the input encodes on stacked caches over a
// memory-only CCoinsViewDB, comparing against a std::map after every step.
CacheModelStats RunCacheModel(std::span<const uint8_t> input);
void FuzzCoinsCacheModel(std::span<const uint8_t> input);

// --- hints_decoder -----------------------------------------------------

struct HintsReadOutcome {
    uint32_t height{0};
    uint32_t blocks_read{0};
    // Every block's hints were read and the file ended right after.
    bool complete{false};
    // The reader's message when the file was refused.
    std::string error;
};
// Reads a hints file whole, checking each block's hints.
HintsReadOutcome ReadHintsForFuzz(std::span<const uint8_t> file_bytes);
void FuzzHintsDecoder(std::span<const uint8_t> input);

#endif // COINSDB_TEST_FUZZ_FUZZ_H
