// Our BasicTestingSetup stand-in (include/test/util/setup_common.h).

#include <test/util/setup_common.h>

#include <atomic>
#include <string>
#include <unistd.h>

namespace {
fs::path NewDataDir()
{
    static std::atomic<unsigned> counter{0};
    fs::path dir{fs::temp_directory_path() / ("corecheck_" + std::to_string(getpid()) + "_" + std::to_string(counter++))};
    fs::create_directories(dir);
    return dir;
}
} // namespace

BasicTestingSetup::BasicTestingSetup() : m_args{NewDataDir()}
{
    SeedRandomForTest(SeedRand::FIXED_SEED);
}

BasicTestingSetup::~BasicTestingSetup()
{
    std::error_code ec;
    fs::remove_all(m_args.GetDataDirBase(), ec);
}

void BasicTestingSetup::SeedRandomForTest(SeedRand seed)
{
    SeedRandomStateForTest(seed);
    m_rng.Reseed(GetRandHash());
}
