#include <test/util/vectors.h>

#include <test/util/setup.h>
#include <util/strencodings.h>

#include <algorithm>
#include <cstdlib>

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

std::vector<CoreVector> CoreVectors(const std::string& file)
{
    const auto root = VectorsRoot();
    BOOST_REQUIRE_MESSAGE(!root.empty(), "no vectors found (set COINSDB_VECTORS)");
    std::vector<CoreVector> vectors;
    for (const auto& entry : std::filesystem::directory_iterator{root}) {
        if (!entry.is_directory() || !std::filesystem::exists(entry.path() / file)) continue;
        vectors.push_back({entry.path(), nlohmann::json::parse(ReadFileToString(entry.path() / "expected.json"))});
    }
    BOOST_REQUIRE_MESSAGE(!vectors.empty(), "no " << file << " under " << root);
    std::ranges::sort(vectors, {}, &CoreVector::dir);
    return vectors;
}

CAmount ParseBtc(const std::string& text)
{
    const size_t dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
    fraction.resize(8, '0');
    return *ParseInt64(whole) * COIN + *ParseInt64(fraction);
}
