#include <test/util/setup.h>

#include <crypto/random.h>
#include <util/strencodings.h>

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

std::string ReadFileToString(const std::filesystem::path& path)
{
    std::ifstream in{path, std::ios::binary};
    if (!in) throw std::runtime_error("cannot open " + path.string());
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}
