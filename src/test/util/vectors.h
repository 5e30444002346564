#ifndef COINSDB_TEST_UTIL_VECTORS_H
#define COINSDB_TEST_UTIL_VECTORS_H

#include <boost/test/unit_test.hpp>

#include <filesystem>

// Where Bitcoin Core's test vectors are: $COINSDB_VECTORS, else the
// shared/vectors directory beside the source tree. Empty when neither exists.
std::filesystem::path VectorsRoot();

// The precondition of every test case that reads the vectors, as
// `BOOST_AUTO_TEST_CASE(name, *boost::unit_test::precondition(VectorsAvailable))`:
// without them the case is reported as skipped, saying why, rather than
// passing with nothing checked. Under CI=true it always runs, so that the
// case fails there when the vectors are missing.
boost::test_tools::assertion_result VectorsAvailable(boost::unit_test::test_unit_id);

#endif // COINSDB_TEST_UTIL_VECTORS_H
