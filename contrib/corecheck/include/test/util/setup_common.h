#ifndef CORECHECK_TEST_UTIL_SETUP_COMMON_H
#define CORECHECK_TEST_UTIL_SETUP_COMMON_H

// Adapts: Bitcoin Core's test/util/setup_common.h. Core's builds a whole
// node context (chain parameters, logging, scheduler, validation
// interfaces); the six suites use only BasicTestingSetup's m_rng,
// m_args.GetDataDirBase() and SeedRandomForTest, plus names the real header
// brings in with it (CENT, HasReason, fs::, strprintf, 1_MiB, CKey). This
// stand-in gives exactly those.

#include <consensus/amount.h>
#include <key.h>
#include <random.h>
#include <test/util/common.h>
#include <test/util/random.h>
#include <tinyformat.h>
#include <util/byte_units.h>
#include <util/fs.h>

#include <cstdint>
#include <set>

static constexpr CAmount CENT{1000000};

// The part of Core's ArgsManager these tests call: the fixture's datadir.
class TestArgs
{
public:
    explicit TestArgs(fs::path datadir) : m_datadir{std::move(datadir)} {}
    const fs::path& GetDataDirBase() const { return m_datadir; }

private:
    fs::path m_datadir;
};

// As Core's: seeds the randomness (RANDOM_CTX_SEED, else a random seed)
// and gives each test case a fresh data directory, removed afterwards.
struct BasicTestingSetup {
    BasicTestingSetup();
    ~BasicTestingSetup();
    BasicTestingSetup(const BasicTestingSetup&) = delete;
    BasicTestingSetup& operator=(const BasicTestingSetup&) = delete;

    // Seeds the global state and reseeds m_rng from it, as Core's does.
    void SeedRandomForTest(SeedRand seed);

    FastRandomContext m_rng;
    TestArgs m_args;
};

#endif // CORECHECK_TEST_UTIL_SETUP_COMMON_H
