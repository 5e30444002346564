#define BOOST_TEST_MODULE coinsdb unit tests
#include <boost/test/unit_test.hpp>
