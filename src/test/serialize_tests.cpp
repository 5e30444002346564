// Byte-exact checks of serialize.h and streams.h: CompactSize and VARINT at
// every width boundary, the encodings a reader must refuse, little-endian
// fixed-width integers, vectors, and what each stream does at the end of
// its data, and BufferedFileReader against the file it reads.

#include <serialize.h>
#include <streams.h>
#include <test/util/stream_helpers.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

namespace {

struct IntHex {
    uint64_t value;
    std::string_view hex;
};

// Every CompactSize width, at both ends of its range.
constexpr IntHex COMPACT_SIZE_CASES[] = {
    {0, "00"},
    {1, "01"},
    {0xfc, "fc"},
    {0xfd, "fdfd00"},
    {0xfe, "fdfe00"},
    {0x1234, "fd3412"},
    {0xffff, "fdffff"},
    {0x10000, "fe00000100"},
    {MAX_SIZE, "fe00000002"},
    {MAX_SIZE + 1, "fe01000002"},
    {0xffffffff, "feffffffff"},
    {0x100000000, "ff0000000001000000"},
    {0x0102030405060708, "ff0807060504030201"},
    {UINT64_MAX, "ffffffffffffffffff"},
};

// Values a smaller width could have held.
constexpr std::string_view NON_CANONICAL_COMPACT_SIZES[] = {
    "fd0000",             // 0 in three bytes
    "fdfc00",             // 0xfc, the largest one-byte value
    "fe00000000",         // 0 in five bytes
    "feffff0000",         // 0xffff, the largest three-byte value
    "ff0000000000000000", // 0 in nine bytes
    "ffffffffff00000000", // 0xffffffff, the largest five-byte value
};

constexpr IntHex VARINT_CASES[] = {
    {0, "00"},
    {1, "01"},
    {127, "7f"},
    {128, "8000"},
    {255, "807f"},
    {256, "8100"},
    {16383, "fe7f"},
    {16511, "ff7f"},
    {16512, "808000"},
    {2097152, "feff00"},
    {0xffffffff, "8efefefe7f"},
    {0x100000000, "8efefeff00"},
    {0x8000000000000000, "fefefefefefefeff00"},
    {UINT64_MAX - 1, "80fefefefefefefefe7e"},
    {UINT64_MAX, "80fefefefefefefefe7f"},
};

// Each decodes to more than 2^64-1 and ends where the value ends, so a
// reader that wrapped around instead of refusing would return normally.
constexpr std::string_view VARINT_OVERFLOWS[] = {
    "80fefefefefefefeff00",   // 2^64
    "80fefefefefefefeff01",   // 2^64 + 1
    "80fefefefefefefefeff00", // UINT64_MAX with one more continuation
    "fefefefefefefefeff00",   // 2^70
    "8080808080808080808000",
    "ffffffffffffffffffff7f",
};

DataStream StreamFromHex(std::string_view hex) { return DataStream{ParseHexOrThrow(hex)}; }

std::vector<unsigned char> VarIntBytes(uint64_t value)
{
    DataStream stream;
    WriteVarInt(stream, value);
    const auto unread = stream.Unread();
    const auto* first = reinterpret_cast<const unsigned char*>(unread.data());
    return {first, first + unread.size()};
}

// Random values spread over every bit width rather than clustered near 2^64.
uint64_t RandomOfAnyWidth(std::mt19937_64& rng)
{
    const unsigned bits = std::uniform_int_distribution<unsigned>{0, 64}(rng);
    if (bits == 0) return 0;
    const uint64_t raw = rng();
    return bits == 64 ? raw : raw & ((uint64_t{1} << bits) - 1);
}

template <typename Int>
void CheckLittleEndian(Int value, std::string_view hex)
{
    BOOST_TEST_CONTEXT("value " << +value << " as " << sizeof(Int) << " bytes")
    {
        DataStream stream;
        stream << value;
        BOOST_CHECK_EQUAL(UnreadHex(stream), hex);
        BOOST_CHECK_EQUAL(GetSerializeSize(value), sizeof(Int));
        Int decoded{};
        stream >> decoded;
        BOOST_CHECK_EQUAL(+decoded, +value);
        BOOST_CHECK(stream.empty());
    }
}

template <typename T>
void CheckVectorBytes(const std::vector<T>& items, std::string_view hex)
{
    DataStream stream;
    stream << items;
    BOOST_CHECK_EQUAL(UnreadHex(stream), hex);
    BOOST_CHECK_EQUAL(GetSerializeSize(items), hex.size() / 2);
    std::vector<T> decoded;
    stream >> decoded;
    BOOST_CHECK(decoded == items);
    BOOST_CHECK(stream.empty());
}

} // namespace

BOOST_AUTO_TEST_SUITE(serialize_tests)

BOOST_AUTO_TEST_CASE(compactsize_table_both_ways)
{
    for (const auto& [value, hex] : COMPACT_SIZE_CASES) {
        BOOST_TEST_CONTEXT("CompactSize " << value)
        {
            DataStream written;
            WriteCompactSize(written, value);
            BOOST_CHECK_EQUAL(UnreadHex(written), hex);
            BOOST_CHECK_EQUAL(GetCompactSizeLength(value), hex.size() / 2);

            DataStream stream{StreamFromHex(hex)};
            BOOST_CHECK_EQUAL(ReadCompactSize(stream, /*range_check=*/false), value);
            BOOST_CHECK(stream.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(compactsize_range_check_applies_to_lengths_only)
{
    for (const auto& [value, hex] : COMPACT_SIZE_CASES) {
        BOOST_TEST_CONTEXT("CompactSize " << value)
        {
            DataStream checked{StreamFromHex(hex)};
            if (value <= MAX_SIZE) {
                BOOST_CHECK_EQUAL(ReadCompactSize(checked, /*range_check=*/true), value);
            } else {
                BOOST_CHECK_EXCEPTION(ReadCompactSize(checked, /*range_check=*/true), std::ios_base::failure,
                                      HasReason{"ReadCompactSize(): size too large"});
            }
            DataStream unchecked{StreamFromHex(hex)};
            BOOST_CHECK_EQUAL(ReadCompactSize(unchecked, /*range_check=*/false), value);
        }
    }
    // range_check is the default: a length is what callers read most.
    DataStream just_above{StreamFromHex("fe01000002")};
    BOOST_CHECK_EXCEPTION(ReadCompactSize(just_above), std::ios_base::failure,
                          HasReason{"ReadCompactSize(): size too large"});
    DataStream at_limit{StreamFromHex("fe00000002")};
    BOOST_CHECK_EQUAL(ReadCompactSize(at_limit), MAX_SIZE);
}

BOOST_AUTO_TEST_CASE(compactsize_non_canonical_rejected)
{
    for (const auto hex : NON_CANONICAL_COMPACT_SIZES) {
        for (const bool range_check : {true, false}) {
            BOOST_TEST_CONTEXT(hex << " range_check=" << range_check)
            {
                DataStream stream{StreamFromHex(hex)};
                BOOST_CHECK_EXCEPTION(ReadCompactSize(stream, range_check), std::ios_base::failure,
                                      HasReason{"non-canonical ReadCompactSize()"});
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(compactsize_truncated)
{
    for (const auto hex : {"", "fd", "fdff", "fe000001", "ff00000000000000"}) {
        BOOST_TEST_CONTEXT("'" << hex << "'")
        {
            DataStream stream{StreamFromHex(hex)};
            BOOST_CHECK_EXCEPTION(ReadCompactSize(stream, /*range_check=*/false), std::ios_base::failure,
                                  HasReason{"DataStream::read(): end of data"});
        }
    }
}

BOOST_AUTO_TEST_CASE(varint_table_both_ways)
{
    for (const auto& [value, hex] : VARINT_CASES) {
        BOOST_TEST_CONTEXT("VARINT " << value)
        {
            DataStream written;
            WriteVarInt(written, value);
            BOOST_CHECK_EQUAL(UnreadHex(written), hex);

            DataStream stream{StreamFromHex(hex)};
            BOOST_CHECK_EQUAL(ReadVarInt(stream), value);
            BOOST_CHECK(stream.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(varint_reader_stops_at_last_byte)
{
    // Bytes after a value belong to the next field.
    DataStream stream{StreamFromHex("ff7f" "00" "808000" "aa")};
    BOOST_CHECK_EQUAL(ReadVarInt(stream), 16511U);
    BOOST_CHECK_EQUAL(ReadVarInt(stream), 0U);
    BOOST_CHECK_EQUAL(ReadVarInt(stream), 16512U);
    BOOST_CHECK_EQUAL(UnreadHex(stream), "aa");

    DataStream truncated{StreamFromHex("8080")};
    BOOST_CHECK_EXCEPTION(ReadVarInt(truncated), std::ios_base::failure, HasReason{"DataStream::read(): end of data"});
}

BOOST_AUTO_TEST_CASE(varint_round_trip_random)
{
    std::mt19937_64 rng{0x5e7a11ce};
    for (int i = 0; i < 20'000; ++i) {
        const uint64_t value = RandomOfAnyWidth(rng);
        const auto bytes = VarIntBytes(value);
        BOOST_TEST_CONTEXT("VARINT " << value << " = " << HexStr(bytes))
        {
            BOOST_CHECK_LE(bytes.size(), 10U);
            // Only the last byte lacks the continuation bit.
            for (size_t j = 0; j + 1 < bytes.size(); ++j) BOOST_CHECK(bytes[j] & 0x80);
            BOOST_CHECK(!(bytes.back() & 0x80));
            DataStream stream{bytes};
            BOOST_CHECK_EQUAL(ReadVarInt(stream), value);
            BOOST_CHECK(stream.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(varint_overflow_rejected)
{
    for (const auto hex : VARINT_OVERFLOWS) {
        BOOST_TEST_CONTEXT(hex)
        {
            DataStream stream{StreamFromHex(hex)};
            BOOST_CHECK_EXCEPTION(ReadVarInt(stream), std::ios_base::failure, HasReason{"ReadVarInt(): size too large"});
        }
    }
}

BOOST_AUTO_TEST_CASE(varint_byte_order_matches_numeric_order_within_a_length)
{
    // Encodings of the same length compare like the numbers they hold, and
    // every one-byte encoding sorts before every longer one.
    std::vector<std::pair<uint64_t, uint64_t>> pairs{
        {0, 127}, {127, 128}, {128, 16511}, {16512, 2113663}, {UINT64_MAX - 1, UINT64_MAX}};
    std::mt19937_64 rng{0x0bde7};
    for (int i = 0; i < 20'000; ++i) pairs.emplace_back(RandomOfAnyWidth(rng), RandomOfAnyWidth(rng));
    for (uint64_t v = 0; v < 20'000; ++v) pairs.emplace_back(v, v + 1);

    size_t compared = 0;
    for (const auto& [a, b] : pairs) {
        const auto bytes_a = VarIntBytes(a);
        const auto bytes_b = VarIntBytes(b);
        if (bytes_a.size() != bytes_b.size() && bytes_a.size() != 1 && bytes_b.size() != 1) continue;
        ++compared;
        BOOST_TEST_CONTEXT(a << " vs " << b)
        {
            BOOST_CHECK_EQUAL(std::ranges::lexicographical_compare(bytes_a, bytes_b), a < b);
            BOOST_CHECK_EQUAL(std::ranges::lexicographical_compare(bytes_b, bytes_a), b < a);
            BOOST_CHECK_EQUAL(bytes_a == bytes_b, a == b);
        }
    }
    BOOST_CHECK_GT(compared, 20'000U);
}

BOOST_AUTO_TEST_CASE(varint_byte_order_is_not_numeric_across_lengths)
{
    // serialize.h, txdb.cpp and formats.md say VARINT keeps numeric order
    // under byte comparison. It does not once encodings differ in length
    // beyond one byte: 16511 = ff7f sorts after 16512 = 808000. These are
    // Bitcoin Core's bytes, so chainstate keys of a transaction with more
    // than 16511 outputs are not in output-index order, in Core as here.
    const auto last_two_byte = VarIntBytes(16511);
    const auto first_three_byte = VarIntBytes(16512);
    BOOST_CHECK(std::ranges::lexicographical_compare(first_three_byte, last_two_byte));
    const auto last_three_byte = VarIntBytes(2113663);
    const auto first_four_byte = VarIntBytes(2113664);
    BOOST_CHECK_EQUAL(HexStr(last_three_byte), "ffff7f");
    BOOST_CHECK_EQUAL(HexStr(first_four_byte), "80808000");
    BOOST_CHECK(std::ranges::lexicographical_compare(first_four_byte, last_three_byte));
}

BOOST_AUTO_TEST_CASE(fixed_width_integers_are_little_endian)
{
    CheckLittleEndian<uint8_t>(0xab, "ab");
    CheckLittleEndian<int8_t>(-1, "ff");
    CheckLittleEndian<uint16_t>(0x0102, "0201");
    CheckLittleEndian<int16_t>(INT16_MIN, "0080");
    CheckLittleEndian<uint32_t>(0x01020304, "04030201");
    CheckLittleEndian<uint32_t>(UINT32_MAX, "ffffffff");
    CheckLittleEndian<int32_t>(-1, "ffffffff");
    CheckLittleEndian<int32_t>(1, "01000000");
    CheckLittleEndian<uint64_t>(0x0102030405060708, "0807060504030201");
    CheckLittleEndian<int64_t>(-2, "feffffffffffffff");
    CheckLittleEndian<int64_t>(2'100'000'000'000'000, "0040075af0750700");
}

BOOST_AUTO_TEST_CASE(fields_read_back_in_write_order)
{
    DataStream stream;
    stream << uint8_t{0x01} << uint32_t{0x02030405} << std::vector<unsigned char>{0xaa, 0xbb} << int16_t{-3};
    BOOST_CHECK_EQUAL(UnreadHex(stream), "01" "05040302" "02aabb" "fdff");
    uint8_t a{};
    uint32_t b{};
    std::vector<unsigned char> c;
    int16_t d{};
    stream >> a >> b >> c >> d;
    BOOST_CHECK_EQUAL(a, 0x01);
    BOOST_CHECK_EQUAL(b, 0x02030405U);
    BOOST_CHECK(c == (std::vector<unsigned char>{0xaa, 0xbb}));
    BOOST_CHECK_EQUAL(d, -3);
    BOOST_CHECK(stream.empty());
}

BOOST_AUTO_TEST_CASE(vector_serialization)
{
    CheckVectorBytes(std::vector<unsigned char>{}, "00");
    CheckVectorBytes(std::vector<unsigned char>{0x01, 0x02, 0x03}, "03010203");
    CheckVectorBytes(std::vector<uint16_t>{1, 0xabcd}, "02" "0100" "cdab");
    CheckVectorBytes(std::vector<uint32_t>{0x01020304}, "01" "04030201");
    CheckVectorBytes(std::vector<int64_t>{-1}, "01" "ffffffffffffffff");
    CheckVectorBytes(std::vector<std::vector<unsigned char>>{{}, {0xff}, {0x01, 0x02}}, "03" "00" "01ff" "020102");

    // A count of 253 needs the three-byte CompactSize.
    const std::vector<unsigned char> long_bytes(253, 0x5a);
    std::string long_hex = "fdfd00";
    for (size_t i = 0; i < long_bytes.size(); ++i) long_hex += "5a";
    CheckVectorBytes(long_bytes, long_hex);
}

BOOST_AUTO_TEST_CASE(vector_unserialize_errors)
{
    struct Case {
        std::string_view hex;
        std::string_view reason;
    };
    constexpr Case BYTE_VECTOR_CASES[] = {
        {"0301", "DataStream::read(): end of data"},
        {"fd0100", "non-canonical ReadCompactSize()"},
        {"fe01000002", "ReadCompactSize(): size too large"},
        {"", "DataStream::read(): end of data"},
    };
    for (const auto& [hex, reason] : BYTE_VECTOR_CASES) {
        BOOST_TEST_CONTEXT("'" << hex << "'")
        {
            DataStream stream{StreamFromHex(hex)};
            std::vector<unsigned char> bytes;
            BOOST_CHECK_EXCEPTION(stream >> bytes, std::ios_base::failure, HasReason{std::string{reason}});
        }
    }
    DataStream short_ints{StreamFromHex("02" "01000000" "02")};
    std::vector<uint32_t> ints;
    BOOST_CHECK_EXCEPTION(short_ints >> ints, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});

    // Reading replaces what the vector held.
    DataStream one{StreamFromHex("0107")};
    std::vector<unsigned char> reused{9, 9, 9};
    one >> reused;
    BOOST_CHECK(reused == (std::vector<unsigned char>{7}));
}

// A vector of non-byte elements takes one allocation for its count, but a
// count is trusted with at most 64 KiB before its elements have been read.
BOOST_AUTO_TEST_CASE(vector_reserve_is_bounded)
{
    std::vector<uint32_t> three;
    DataStream stream{StreamFromHex("03"
                                    "01000000"
                                    "02000000"
                                    "03000000")};
    stream >> three;
    BOOST_CHECK_EQUAL(three.capacity(), 3U);

    // A count of 2^24 (under MAX_SIZE) with one element behind it: refused
    // at the end of the data, and what was reserved stays at 64 KiB.
    std::vector<uint32_t> lying;
    DataStream short_stream{StreamFromHex("fe00000001"
                                          "01000000")};
    BOOST_CHECK_THROW(short_stream >> lying, std::ios_base::failure);
    BOOST_CHECK_EQUAL(lying.capacity(), (64U << 10) / sizeof(uint32_t));
}

BOOST_AUTO_TEST_CASE(datastream_end_of_data)
{
    DataStream stream{StreamFromHex("010203")};
    uint32_t too_wide{};
    BOOST_CHECK_EXCEPTION(stream >> too_wide, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});
    // A failed read consumes nothing.
    BOOST_CHECK_EQUAL(stream.size(), 3U);
    BOOST_CHECK_EQUAL(UnreadHex(stream), "010203");

    uint16_t first{};
    stream >> first;
    BOOST_CHECK_EQUAL(first, 0x0201);
    uint8_t last{};
    stream >> last;
    BOOST_CHECK_EQUAL(last, 0x03);
    BOOST_CHECK(stream.empty());
    BOOST_CHECK_EXCEPTION(stream >> last, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});

    // Writing after everything was read starts a fresh buffer.
    stream << uint8_t{0x42};
    BOOST_CHECK_EQUAL(UnreadHex(stream), "42");
}

BOOST_AUTO_TEST_CASE(datastream_range_is_the_unread_bytes)
{
    DataStream stream{StreamFromHex("01020304")};
    BOOST_CHECK_EQUAL(HexStr(stream), "01020304");
    BOOST_CHECK_EQUAL(std::span<const std::byte>{stream}.size(), 4U);
    uint8_t first{};
    stream >> first;
    BOOST_CHECK_EQUAL(HexStr(stream), "020304");
    BOOST_CHECK(stream.data() == stream.Unread().data());
    BOOST_CHECK_EQUAL(stream.end() - stream.begin(), 3);
    // Writable through the range, as Core's.
    *stream.begin() = std::byte{0xff};
    BOOST_CHECK_EQUAL(HexStr(stream), "ff0304");
    uint32_t rest{};
    BOOST_CHECK_THROW(stream >> rest, std::ios_base::failure);
    stream >> first >> first >> first;
    BOOST_CHECK(stream.begin() == stream.end());
    BOOST_CHECK_EQUAL(HexStr(stream), "");
}

// DataStream keeps room past its last byte and grows it on its own: any
// mix of writes, reads, Clear and reserve leaves exactly the bytes a plain
// queue of bytes would hold.
BOOST_AUTO_TEST_CASE(datastream_matches_a_byte_queue_model)
{
    std::mt19937_64 rng{0xda7a57e4};
    const auto below = [&](uint64_t n) { return rng() % n; };
    for (int run = 0; run < 50; ++run) {
        DataStream stream;
        std::vector<std::byte> model;
        size_t model_read = 0;
        for (int step = 0; step < 400; ++step) {
            const auto op = below(10);
            if (op < 5) {
                // Mostly the small writes a coin's serialization makes, now
                // and then one bigger than everything so far.
                std::vector<std::byte> bytes(below(8) == 0 ? below(3000) : below(40));
                for (auto& b : bytes) b = std::byte(rng());
                stream.write(bytes);
                model.insert(model.end(), bytes.begin(), bytes.end());
            } else if (op < 8) {
                std::vector<std::byte> out(below(50));
                const size_t unread = model.size() - model_read;
                if (out.size() > unread) {
                    BOOST_CHECK_THROW(stream.read(out), std::ios_base::failure);
                } else {
                    stream.read(out);
                    BOOST_CHECK(std::equal(out.begin(), out.end(), model.begin() + model_read));
                    model_read += out.size();
                }
            } else if (op < 9) {
                stream.Clear();
                model.clear();
                model_read = 0;
            } else {
                stream.reserve(below(5000));
            }
            const std::span<const std::byte> expected{model.data() + model_read, model.size() - model_read};
            BOOST_REQUIRE_EQUAL(stream.size(), expected.size());
            BOOST_REQUIRE(std::ranges::equal(stream.Unread(), expected));
            BOOST_CHECK_GE(stream.capacity(), stream.size());
        }
    }
}

BOOST_AUTO_TEST_CASE(spanreader_end_of_data)
{
    const auto bytes = ParseHexOrThrow("0a0b0c");
    SpanReader reader{bytes};
    uint32_t too_wide{};
    BOOST_CHECK_EXCEPTION(reader >> too_wide, std::ios_base::failure, HasReason{"SpanReader::read(): end of data"});
    BOOST_CHECK_EQUAL(reader.size(), 3U);

    uint8_t first{};
    reader >> first;
    BOOST_CHECK_EQUAL(first, 0x0a);
    BOOST_CHECK_EQUAL(reader.size(), 2U);
    uint16_t rest{};
    reader >> rest;
    BOOST_CHECK_EQUAL(rest, 0x0c0b);
    BOOST_CHECK(reader.empty());
    BOOST_CHECK_EXCEPTION(reader >> first, std::ios_base::failure, HasReason{"SpanReader::read(): end of data"});
    BOOST_CHECK_EXCEPTION(ReadVarInt(reader), std::ios_base::failure, HasReason{"SpanReader::read(): end of data"});
}

BOOST_AUTO_TEST_CASE(spanreader_decodes_like_datastream)
{
    const auto bytes = ParseHexOrThrow("fdfd00" "ff7f" "0403020100");
    SpanReader reader{bytes};
    BOOST_CHECK_EQUAL(ReadCompactSize(reader), 0xfdU);
    BOOST_CHECK_EQUAL(ReadVarInt(reader), 16511U);
    std::vector<unsigned char> items;
    reader >> items;
    BOOST_CHECK(items == (std::vector<unsigned char>{0x03, 0x02, 0x01, 0x00}));
    BOOST_CHECK(reader.empty());

    const auto non_canonical = ParseHexOrThrow("fdfc00");
    SpanReader bad{non_canonical};
    BOOST_CHECK_EXCEPTION(ReadCompactSize(bad), std::ios_base::failure, HasReason{"non-canonical ReadCompactSize()"});
}

BOOST_AUTO_TEST_CASE(strings_and_pairs)
{
    // Table: value -> its CompactSize length; the bytes follow unchanged.
    const std::pair<std::string, std::string> strings[]{
        {"", "00"},
        {"abc", "03"},
        {std::string(252, 'x'), "fc"},
        {std::string(253, 'x'), "fdfd00"},
    };
    for (const auto& [text, length] : strings) {
        DataStream stream;
        stream << text;
        BOOST_CHECK_EQUAL(UnreadHex(stream), length + HexStr(std::as_bytes(std::span{text})));
        std::string back{"junk"};
        stream >> back;
        BOOST_CHECK_EQUAL(back, text);
        BOOST_CHECK(stream.empty());
    }

    // Core's dbwrapper keys: a tag byte and a value, nothing between.
    DataStream stream;
    stream << std::pair<uint8_t, uint32_t>{'B', 0x01020304} << std::pair<std::string, uint16_t>{"k", 7};
    BOOST_CHECK_EQUAL(UnreadHex(stream), "42" "04030201" "016b" "0700");
    std::pair<uint8_t, uint32_t> tagged;
    std::pair<std::string, uint16_t> named;
    stream >> tagged >> named;
    BOOST_CHECK_EQUAL(tagged.first, 'B');
    BOOST_CHECK_EQUAL(tagged.second, 0x01020304U);
    BOOST_CHECK_EQUAL(named.first, "k");
    BOOST_CHECK_EQUAL(named.second, 7);

    // A length past the data fails like any short read.
    DataStream short_string{StreamFromHex("05616263")};
    std::string partial;
    BOOST_CHECK_EXCEPTION(short_string >> partial, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});
}

// An empty vector goes through every stream as its CompactSize alone. Its
// data() may be null, which memcpy and fread/fwrite must never see (the
// sanitizer build in CI reports it).
BOOST_AUTO_TEST_CASE(empty_payload_through_every_stream)
{
    const std::vector<unsigned char> none;

    DataStream stream{};
    stream << none;
    BOOST_CHECK_EQUAL(UnreadHex(stream), "00");
    std::vector<unsigned char> back{0x01};
    stream >> back;
    BOOST_CHECK(back.empty());
    BOOST_CHECK(stream.empty());
    stream.read({});
    BOOST_CHECK(stream.empty());

    SpanReader reader{std::span<const unsigned char>{}};
    reader.read({});
    BOOST_CHECK(reader.empty());

    const auto path = std::filesystem::temp_directory_path() / ("coinsdb_empty_payload_" + std::to_string(::getpid()));
    {
        AutoFile file{std::fopen(path.c_str(), "wb")};
        BOOST_REQUIRE(!file.IsNull());
        file << none;
        file.write({});
    }
    {
        AutoFile file{std::fopen(path.c_str(), "rb")};
        BOOST_REQUIRE(!file.IsNull());
        std::vector<unsigned char> read_back{0x02};
        file >> read_back;
        BOOST_CHECK(read_back.empty());
        file.read({});
        BOOST_CHECK(file.AtEnd());
    }
    std::filesystem::remove(path);
}

namespace {

// A file of `size` bytes of a fixed pattern, removed with the object.
struct PatternFile {
    std::filesystem::path path;
    std::vector<std::byte> bytes;

    PatternFile(const std::string& name, size_t size)
        : path{std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))}
    {
        for (size_t i = 0; i < size; ++i) bytes.push_back(std::byte(i * 131 + (i >> 8)));
        AutoFile file{std::fopen(path.c_str(), "wb")};
        BOOST_REQUIRE(!file.IsNull());
        file.write(bytes);
    }
    ~PatternFile() { std::filesystem::remove(path); }
};

} // namespace

// BufferedFileReader against the bytes of the file: read in random sizes
// (0 to 2.5 buffers) at several buffer sizes, from an offset a plain
// AutoFile read reached first; Tell() counts the bytes read, not the
// bytes buffered.
BOOST_AUTO_TEST_CASE(buffered_file_reader_returns_the_file_in_order)
{
    const PatternFile data{"coinsdb_buffered_reader", 5000};
    constexpr size_t HEADER = 7;
    for (const size_t buffer_bytes : {size_t{1}, size_t{3}, size_t{64}, size_t{4096}, BufferedFileReader::DEFAULT_BUFFER_BYTES}) {
        BOOST_TEST_CONTEXT("buffer " << buffer_bytes)
        {
            AutoFile file{std::fopen(data.path.c_str(), "rb")};
            BOOST_REQUIRE(!file.IsNull());
            std::vector<std::byte> header(HEADER);
            file.read(header);
            BufferedFileReader reader{file, buffer_bytes};
            BOOST_CHECK_EQUAL(reader.Tell(), long{HEADER});
            std::mt19937_64 rng{buffer_bytes};
            size_t offset = HEADER;
            while (offset < data.bytes.size()) {
                const size_t want = std::min<size_t>(rng() % (5 * buffer_bytes / 2 + 2), data.bytes.size() - offset);
                std::vector<std::byte> got(want);
                BOOST_CHECK(!reader.AtEnd());
                reader.read(got);
                BOOST_REQUIRE(std::equal(got.begin(), got.end(), data.bytes.begin() + offset));
                offset += want;
                BOOST_REQUIRE_EQUAL(reader.Tell(), static_cast<long>(offset));
            }
            BOOST_CHECK(reader.AtEnd());
            std::byte one[1];
            BOOST_CHECK_EXCEPTION(reader.read(one), std::ios_base::failure, HasReason{"AutoFile::read: end of file"});
        }
    }
}

// A read past the end fails as AutoFile's does, after consuming what was
// left (Tell() is then the file's size); a null file fails as AutoFile's.
BOOST_AUTO_TEST_CASE(buffered_file_reader_fails_like_autofile)
{
    const PatternFile data{"coinsdb_buffered_reader_end", 100};
    for (const size_t buffer_bytes : {size_t{16}, size_t{1000}}) {
        BOOST_TEST_CONTEXT("buffer " << buffer_bytes)
        {
            AutoFile file{std::fopen(data.path.c_str(), "rb")};
            BufferedFileReader reader{file, buffer_bytes};
            std::vector<std::byte> first(60);
            reader.read(first);
            std::vector<std::byte> too_many(41);
            BOOST_CHECK_EXCEPTION(reader.read(too_many), std::ios_base::failure, HasReason{"AutoFile::read: end of file"});
            BOOST_CHECK_EQUAL(reader.Tell(), 100L);
            BOOST_CHECK(reader.AtEnd());
        }
    }
    AutoFile null_file{nullptr};
    BufferedFileReader reader{null_file};
    std::byte one[1];
    BOOST_CHECK_EXCEPTION(reader.read(one), std::ios_base::failure, HasReason{"AutoFile::read: file handle is null"});
    BOOST_CHECK_EQUAL(reader.Tell(), -1L);
    BOOST_CHECK(reader.AtEnd());
}

// What a snapshot reader decodes through it: the same values as from a
// DataStream of the same bytes, across buffer refills.
BOOST_AUTO_TEST_CASE(buffered_file_reader_unserializes_like_a_datastream)
{
    DataStream stream;
    for (uint64_t i = 0; i < 300; ++i) {
        WriteCompactSize(stream, i * 977);
        WriteVarInt(stream, i * i * 65537);
    }
    const auto path = std::filesystem::temp_directory_path() / ("coinsdb_buffered_reader_ser_" + std::to_string(::getpid()));
    {
        AutoFile file{std::fopen(path.c_str(), "wb")};
        BOOST_REQUIRE(!file.IsNull());
        file.write(stream.Unread());
    }
    AutoFile file{std::fopen(path.c_str(), "rb")};
    BufferedFileReader reader{file, 7};
    for (uint64_t i = 0; i < 300; ++i) {
        BOOST_CHECK_EQUAL(ReadCompactSize(reader, /*range_check=*/false), i * 977);
        BOOST_CHECK_EQUAL(ReadVarInt(reader), i * i * 65537);
    }
    BOOST_CHECK(reader.AtEnd());
    std::filesystem::remove(path);
}

BOOST_AUTO_TEST_SUITE_END()
