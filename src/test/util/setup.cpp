#include <test/util/setup.h>

#include <crypto/random.h>
#include <util/strencodings.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

TempDirFixture::TempDirFixture()
{
    std::array<unsigned char, 8> suffix;
    GetRandBytes(suffix);
    m_path = std::filesystem::temp_directory_path() / ("coinsdb_test_" + HexStr(suffix));
    std::filesystem::create_directories(m_path);
}

TempDirFixture::~TempDirFixture()
{
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

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

std::string ReadFileToString(const std::filesystem::path& path)
{
    std::ifstream in{path, std::ios::binary};
    if (!in) throw std::runtime_error("cannot open " + path.string());
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}
