#ifndef COINSDB_TEST_UTIL_VECTORS_H
#define COINSDB_TEST_UTIL_VECTORS_H

#include <primitives/amount.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

// Where Bitcoin Core's test vectors are: $COINSDB_VECTORS, else the
// shared/vectors directory beside the source tree. Empty when neither exists.
std::filesystem::path VectorsRoot();

// The precondition of every test case that reads the vectors, as
// `BOOST_AUTO_TEST_CASE(name, *boost::unit_test::precondition(VectorsAvailable))`:
// without them the case is reported as skipped, saying why, rather than
// passing with nothing checked. Under CI=true it always runs, so that the
// case fails there when the vectors are missing.
boost::test_tools::assertion_result VectorsAvailable(boost::unit_test::test_unit_id);

// One directory of the vectors (one chain Core built) and its expected.json,
// the figures Core reported for it.
struct CoreVector {
    std::filesystem::path dir;
    nlohmann::json expected;
};

// Every vector directory that holds `file`, in name order, with its
// expected.json parsed. Every suite walks the vectors through it, from a
// case with the VectorsAvailable precondition: when the vectors are missing
// (which only CI=true lets a case reach) or none holds `file`, it fails the
// case rather than return nothing to loop over.
std::vector<CoreVector> CoreVectors(const std::string& file);

// An amount as expected.json writes it, in BTC ("7689.46017941"), in satoshis.
CAmount ParseBtc(const std::string& text);

#endif // COINSDB_TEST_UTIL_VECTORS_H
