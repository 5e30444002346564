#ifndef COINSDB_TEST_UTIL_SETUP_H
#define COINSDB_TEST_UTIL_SETUP_H

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <string>

// A fresh directory under the system temp dir, removed with the fixture.
struct TempDirFixture {
    TempDirFixture();
    ~TempDirFixture();
    TempDirFixture(const TempDirFixture&) = delete;
    TempDirFixture& operator=(const TempDirFixture&) = delete;

    std::filesystem::path m_path;
};

std::string ReadFileToString(const std::filesystem::path& path);

#endif // COINSDB_TEST_UTIL_SETUP_H
