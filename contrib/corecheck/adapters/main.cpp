// The Boost.Test module of the corecheck binary: Core's test files bring
// their suites, this brings main().
#define BOOST_TEST_MODULE Bitcoin Core coins-layer tests against coinsdb
#include <boost/test/unit_test.hpp>
