#ifndef COINSDB_UTIL_EXPECTED_H
#define COINSDB_UTIL_EXPECTED_H

// util::Expected<T, E>: a T, or the E that says why there is none. Core's
// util/expected.h, which stands in for C++23's std::expected; only what
// coinsdb uses is here. Reading the side that is not held is misuse and
// throws std::bad_variant_access.

#include <type_traits>
#include <utility>
#include <variant>

namespace util {

// Wraps an error so that it converts to any Expected<T, E> as its error.
template <typename E>
class Unexpected
{
public:
    constexpr explicit Unexpected(E error) : m_error{std::move(error)} {}
    constexpr const E& error() const& noexcept { return m_error; }
    constexpr E&& error() && noexcept { return std::move(m_error); }

private:
    E m_error;
};

template <typename T, typename E>
class Expected
{
public:
    constexpr Expected() requires std::is_default_constructible_v<T> : m_data{std::in_place_index<0>} {}
    constexpr Expected(T value) : m_data{std::in_place_index<0>, std::move(value)} {}
    template <typename Err>
    constexpr Expected(Unexpected<Err> error) : m_data{std::in_place_index<1>, std::move(error).error()} {}

    constexpr bool has_value() const noexcept { return m_data.index() == 0; }
    constexpr explicit operator bool() const noexcept { return has_value(); }

    constexpr const T& value() const& { return std::get<0>(m_data); }
    constexpr T& value() & { return std::get<0>(m_data); }
    constexpr T&& value() && { return std::get<0>(std::move(m_data)); }
    constexpr const T& operator*() const& { return value(); }
    constexpr T& operator*() & { return value(); }
    constexpr T&& operator*() && { return std::move(*this).value(); }
    constexpr const T* operator->() const { return &value(); }
    constexpr T* operator->() { return &value(); }

    constexpr const E& error() const& { return std::get<1>(m_data); }
    constexpr E& error() & { return std::get<1>(m_data); }

private:
    std::variant<T, E> m_data;
};

} // namespace util

#endif // COINSDB_UTIL_EXPECTED_H
