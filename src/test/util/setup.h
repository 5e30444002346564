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

// Where Bitcoin Core's test vectors are: $COINSDB_VECTORS, else the
// shared/vectors directory beside the source tree. Empty when neither exists.
std::filesystem::path VectorsRoot();

// The precondition of every test case that reads the vectors, as
// `BOOST_AUTO_TEST_CASE(name, *boost::unit_test::precondition(VectorsAvailable))`:
// without them the case is reported as skipped, saying why, rather than
// passing with nothing checked. Under CI=true it always runs, so that the
// case fails there when the vectors are missing.
boost::test_tools::assertion_result VectorsAvailable(boost::unit_test::test_unit_id);

std::string ReadFileToString(const std::filesystem::path& path);

#endif // COINSDB_TEST_UTIL_SETUP_H
