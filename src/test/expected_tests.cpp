// util::Expected (util/expected.h): which side it holds, reading each side,
// moving the value out, and misuse throwing instead of reading garbage.

#include <util/expected.h>

#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <variant>

BOOST_AUTO_TEST_SUITE(expected_tests)

BOOST_AUTO_TEST_CASE(value_or_error)
{
    const util::Expected<int, std::string> value{7};
    BOOST_CHECK(value.has_value());
    BOOST_CHECK(static_cast<bool>(value));
    BOOST_CHECK_EQUAL(value.value(), 7);
    BOOST_CHECK_EQUAL(*value, 7);
    BOOST_CHECK_THROW(value.error(), std::bad_variant_access);

    const util::Expected<int, std::string> error{util::Unexpected{std::string{"why"}}};
    BOOST_CHECK(!error.has_value());
    BOOST_CHECK(!static_cast<bool>(error));
    BOOST_CHECK_EQUAL(error.error(), "why");
    BOOST_CHECK_THROW(error.value(), std::bad_variant_access);

    // The same type on both sides: which side is held still tells them apart.
    const util::Expected<int, int> same{util::Unexpected{3}};
    BOOST_CHECK(!same.has_value());
    BOOST_CHECK_EQUAL(same.error(), 3);

    const util::Expected<std::string, int> defaulted;
    BOOST_CHECK(defaulted.has_value());
    BOOST_CHECK_EQUAL(defaulted->size(), 0U);
}

BOOST_AUTO_TEST_CASE(move_only_value)
{
    util::Expected<std::unique_ptr<int>, int> held{std::make_unique<int>(5)};
    BOOST_REQUIRE(held);
    std::unique_ptr<int> taken = std::move(held).value();
    BOOST_REQUIRE(taken);
    BOOST_CHECK_EQUAL(*taken, 5);

    util::Expected<std::unique_ptr<int>, int> again{std::make_unique<int>(6)};
    std::unique_ptr<int> deref = *std::move(again);
    BOOST_CHECK_EQUAL(*deref, 6);
}

BOOST_AUTO_TEST_SUITE_END()
