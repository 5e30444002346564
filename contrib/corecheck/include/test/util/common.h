#ifndef CORECHECK_TEST_UTIL_COMMON_H
#define CORECHECK_TEST_UTIL_COMMON_H

// Adapts: Bitcoin Core's test/util/common.h (HasReason for
// BOOST_CHECK_EXCEPTION, and the operator<< overloads that let
// BOOST_CHECK_EQUAL print optionals, enums and anything with ToString()).
// Core's own copy of this header also carries ASSERT_* helpers for another
// test framework, which these suites do not use.

#include <concepts>
#include <exception>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

class HasReason
{
public:
    explicit HasReason(std::string_view reason) : m_reason(reason) {}
    bool operator()(std::string_view s) const { return s.find(m_reason) != std::string_view::npos; }
    bool operator()(const std::exception& e) const { return (*this)(e.what()); }

private:
    const std::string m_reason;
};

// In namespace std, as Core does, so that argument-dependent lookup finds
// them from inside Boost's printing.
namespace std {
template <typename T>
    requires std::is_enum_v<T>
inline std::ostream& operator<<(std::ostream& os, const T& e)
{
    return os << static_cast<std::underlying_type_t<T>>(e);
}

template <typename T>
inline std::ostream& operator<<(std::ostream& os, const std::optional<T>& v)
{
    return v ? os << *v : os << "std::nullopt";
}
} // namespace std

template <typename T>
concept HasToString = requires(const T& t) { t.ToString(); };

template <HasToString T>
inline std::ostream& operator<<(std::ostream& os, const T& obj)
{
    return os << obj.ToString();
}

#endif // CORECHECK_TEST_UTIL_COMMON_H
