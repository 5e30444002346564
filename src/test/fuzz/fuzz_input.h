#ifndef COINSDB_TEST_FUZZ_FUZZ_INPUT_H
#define COINSDB_TEST_FUZZ_FUZZ_INPUT_H

#include <algorithm>
#include <cstdint>
#include <span>

// Hands out a fuzz input piece by piece. Reads past the end yield zeros
// instead of failing, so every input, however short, is a complete run:
// libFuzzer's mutations then never land in an "input too short" dead end.
class FuzzInput
{
public:
    explicit FuzzInput(std::span<const uint8_t> data) : m_data{data} {}

    bool Empty() const { return m_data.empty(); }

    uint8_t Byte()
    {
        if (m_data.empty()) return 0;
        const uint8_t byte = m_data.front();
        m_data = m_data.subspan(1);
        return byte;
    }

    bool Bool() { return Byte() & 1; }

    // Little-endian, so that a byte the fuzzer flips changes the value by
    // a predictable amount.
    template <typename T>
    T Integral()
    {
        T value{0};
        for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(static_cast<T>(Byte()) << (8 * i));
        return value;
    }

    // A value in [0, count); count must be non-zero. One byte for small
    // ranges, so that each choice costs the fuzzer as little as possible.
    uint64_t Below(uint64_t count)
    {
        if (count <= 256) return Byte() % count;
        return Integral<uint64_t>() % count;
    }

    // Up to `count` bytes, fewer at the end of the input.
    std::span<const uint8_t> Bytes(size_t count)
    {
        const auto taken = m_data.first(std::min(count, m_data.size()));
        m_data = m_data.subspan(taken.size());
        return taken;
    }

private:
    std::span<const uint8_t> m_data;
};

#endif // COINSDB_TEST_FUZZ_FUZZ_INPUT_H
