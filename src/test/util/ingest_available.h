#ifndef COINSDB_TEST_UTIL_INGEST_AVAILABLE_H
#define COINSDB_TEST_UTIL_INGEST_AVAILABLE_H

#include <dbwrapper/ingest.h>

#include <boost/test/unit_test.hpp>

// `*boost::unit_test::precondition(IngestAvailable)` for the cases that test
// table-file ingestion itself: in a build whose LevelDB version was not
// verified (the top CMakeLists.txt) ingestion is off by design, and such a
// case is reported as skipped, saying why, rather than failing.
inline boost::test_tools::assertion_result IngestAvailable(boost::unit_test::test_unit_id)
{
    const auto why = dbwrapper_ingest::IngestUnavailable();
    boost::test_tools::assertion_result result{!why};
    if (why) result.message() << "table-file ingestion is off in this build: " << *why;
    return result;
}

#endif // COINSDB_TEST_UTIL_INGEST_AVAILABLE_H
