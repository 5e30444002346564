#include <test/util/vectors.h>

#include <cstdlib>
#include <string>

std::filesystem::path VectorsRoot()
{
    if (const char* env = std::getenv("COINSDB_VECTORS"); env && *env) {
        return std::filesystem::exists(env) ? std::filesystem::path{env} : std::filesystem::path{};
    }
    const std::filesystem::path fallback{COINSDB_DEFAULT_VECTORS_DIR};
    return std::filesystem::exists(fallback) ? fallback : std::filesystem::path{};
}

boost::test_tools::assertion_result VectorsAvailable(boost::unit_test::test_unit_id)
{
    if (!VectorsRoot().empty()) return true;
    if (const char* ci = std::getenv("CI"); ci && std::string{ci} == "true") return true;
    boost::test_tools::assertion_result result{false};
    result.message() << "no Bitcoin Core vectors (set COINSDB_VECTORS or add ../shared/vectors)";
    return result;
}
