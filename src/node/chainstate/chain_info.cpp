#include <node/chainstate/chain_info.h>

#include <kernel/pow.h>
#include <node/blockstorage/blockstorage.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace node {
namespace {

// How many blocks GetMedianTimePast looks at.
constexpr int MEDIAN_TIME_SPAN = 11;
// A tip younger than this counts as recent for the progress estimate.
constexpr int64_t RECENT_TIP_SECONDS = 2 * 60 * 60;

} // namespace

double GetDifficulty(uint32_t n_bits)
{
    const int exponent = static_cast<int>(n_bits >> 24);
    const double mantissa = n_bits & 0x00ffffff;
    // Scaling by a power of two is exact, as upstream's loop of *256 is.
    return std::ldexp(0xffff / mantissa, 8 * (29 - exponent));
}

std::string TargetHex(uint32_t n_bits)
{
    const CompactTarget decoded = DecodeCompact(n_bits);
    const arith_uint256 target = decoded.negative || decoded.overflow ? arith_uint256{0} : decoded.target;
    return ArithToUint256(target).GetHex();
}

int64_t GetMedianTimePast(const CBlockIndex& index)
{
    std::vector<int64_t> times;
    for (const CBlockIndex* walk = &index; walk && static_cast<int>(times.size()) < MEDIAN_TIME_SPAN; walk = walk->pprev) {
        times.push_back(walk->GetBlockTime());
    }
    std::ranges::sort(times);
    return times[times.size() / 2];
}

double GuessVerificationProgress(const CChainParams& params, const ProgressInput& input, int64_t now)
{
    if (input.chain_tx == 0) return 0.0;
    const ChainTxData& data = params.TxData();
    int64_t tip_time = input.tip_time;
    if (std::abs(now - tip_time) <= RECENT_TIP_SECONDS && input.best_header_height >= input.tip_height) {
        tip_time = now - static_cast<int64_t>(input.best_header_height - input.tip_height) * params.PowTargetSpacing();
    }
    // Before the count the parameters know, their count and rate say how
    // many there are now; past it, the chain's own count does.
    const double expected = input.chain_tx <= data.tx_count
                                ? data.tx_count + (now - data.time) * data.tx_rate
                                : input.chain_tx + (now - tip_time) * data.tx_rate;
    return std::min(input.chain_tx / expected, 1.0);
}

} // namespace node
