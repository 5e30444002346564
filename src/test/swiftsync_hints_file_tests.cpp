// SwiftSync hints files (kernel/swiftsync/hints_file.h): the writer's bytes
// spelled out, random files read back against the lists written, and
// every way a file can be wrong, one field at a time, with the exact
// message: magic, version, header, objects, count against the header's
// height, trailing bytes, and the two other formats that share the
// version byte.

#include <kernel/swiftsync/elias_fano.h>
#include <kernel/swiftsync/hints_file.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace kernel::swiftsync;

namespace {

using Blocks = std::vector<std::vector<uint32_t>>;

struct HintsFileFixture : TempDirFixture {
    std::filesystem::path Write(const std::string& hex)
    {
        const auto path = m_path / ("file" + std::to_string(m_files++));
        const auto bytes = *TryParseHex(hex);
        std::ofstream{path, std::ios::binary}.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return path;
    }

    std::filesystem::path WriteBlocks(const Blocks& blocks)
    {
        const auto path = m_path / ("file" + std::to_string(m_files++));
        AutoFile file{std::fopen(path.c_str(), "wb")};
        HintsFileWriter writer{file, static_cast<uint32_t>(blocks.size())};
        for (const auto& hints : blocks) writer.Append(hints);
        writer.Finish();
        BOOST_REQUIRE_EQUAL(file.fclose(), 0);
        BOOST_REQUIRE_EQUAL(writer.BytesWritten(), std::filesystem::file_size(path));
        return path;
    }

    // The reader's answer for a file: its blocks, or "error: <message>".
    std::string Read(const std::filesystem::path& path)
    {
        const auto blocks = ReadHintsFile(path);
        if (!blocks) return "error: " + blocks.error();
        std::string text;
        for (const auto& hints : *blocks) {
            text += "[";
            for (size_t i = 0; i < hints.size(); ++i) text += (i ? "," : "") + std::to_string(hints[i]);
            text += "]";
        }
        return text;
    }

    int m_files{0};
};

std::string FileHex(const std::filesystem::path& path)
{
    const std::string bytes = ReadFileToString(path);
    return HexStr(std::span{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

const std::string HEADER_H3 = "5554584f00"
                              "03000000";
// Blocks 1..3: [0], none, [0, 1, 2].
const std::string OBJECTS_3 = "010080"
                              "00"
                              "0302a8";

} // namespace

BOOST_FIXTURE_TEST_SUITE(swiftsync_hints_file_tests, HintsFileFixture)

BOOST_AUTO_TEST_CASE(writer_bytes_and_reader)
{
    const auto path = WriteBlocks({{0}, {}, {0, 1, 2}});
    BOOST_CHECK_EQUAL(FileHex(path), HEADER_H3 + OBJECTS_3);
    BOOST_CHECK_EQUAL(Read(path), "[0][][0,1,2]");

    auto reader = HintsFileReader::Open(path);
    BOOST_REQUIRE(reader);
    BOOST_CHECK_EQUAL(reader->Height(), 3U);
    for (uint32_t height = 1; height <= 3; ++height) {
        BOOST_CHECK_EQUAL(reader->NextHeight(), height);
        BOOST_CHECK(reader->Next());
    }
    BOOST_CHECK_THROW(reader->Next(), std::logic_error);
    const auto size = reader->Finish();
    BOOST_REQUIRE(size);
    BOOST_CHECK_EQUAL(*size, 9U + 7U);

    // H = 0: the header alone.
    const auto empty = WriteBlocks({});
    BOOST_CHECK_EQUAL(FileHex(empty), "5554584f0000000000");
    BOOST_CHECK_EQUAL(Read(empty), "");
}

BOOST_AUTO_TEST_CASE(writer_refuses_misuse)
{
    AutoFile file{std::fopen((m_path / "misuse").c_str(), "wb")};
    HintsFileWriter writer{file, 1};
    BOOST_CHECK_THROW(writer.Finish(), std::logic_error);
    const std::vector<uint32_t> falling{2, 1};
    BOOST_CHECK_THROW(writer.Append(falling), std::invalid_argument);
    writer.Append(std::vector<uint32_t>{0});
    BOOST_CHECK_THROW(writer.Append(std::vector<uint32_t>{0}), std::logic_error);
    BOOST_CHECK_NO_THROW(writer.Finish());
}

BOOST_AUTO_TEST_CASE(random_files_round_trip)
{
    TestRand rand{35};
    for (int round = 0; round < 50; ++round) {
        Blocks blocks(rand.Below(300));
        for (auto& hints : blocks) {
            std::set<uint32_t> set;
            const uint32_t outputs = 1 + rand.Below(rand.OneIn(10) ? 20'000 : 40);
            for (uint32_t i = 0; i < outputs; ++i) {
                if (rand.OneIn(3)) set.insert(i);
            }
            hints.assign(set.begin(), set.end());
        }
        const auto read = ReadHintsFile(WriteBlocks(blocks));
        BOOST_REQUIRE_MESSAGE(read, (read ? "" : read.error()));
        BOOST_REQUIRE(*read == blocks);
    }
}

BOOST_AUTO_TEST_CASE(every_corruption_is_refused_by_name)
{
    struct Case {
        std::string hex;
        std::string answer;
    };
    const std::string ends_early = "error: the file ends after block 3's hints, but its header says H=4: the header's height or the file is wrong";
    const std::vector<Case> cases{
        {HEADER_H3 + OBJECTS_3, "[0][][0,1,2]"},
        {"", "error: truncated header: the file is 0 bytes long, the header takes 9"},
        {"5554584f0003", "error: truncated header: the file is 6 bytes long, the header takes 9"},
        {"5554585000"
         "03000000" +
             OBJECTS_3,
         "error: not a SwiftSync hints file: it starts with 55545850, not 5554584f (\"UTXO\")"},
        {"7574786fff0200fabfb5da", "error: looks like a UTXO snapshot (dumptxoutset), not a hints file"},
        {"5554584f01"
         "03000000" +
             OBJECTS_3,
         "error: hints file version 1, but coinsdb reads version 0 only"},
        {"5554584f00"
         "04000000" +
             OBJECTS_3,
         ends_early},
        {"5554584f00"
         "02000000" +
             OBJECTS_3,
         "error: 3 bytes follow block 2's hints, the last the header announces: the header's height or the file is wrong"},
        {HEADER_H3 + OBJECTS_3 + "00", "error: 1 bytes follow block 3's hints, the last the header announces: the header's height or the file is wrong"},
        {HEADER_H3 + "010080"
                     "00"
                     "0302",
         "error: block 3's hints (byte 13): truncated: the object takes 3 bytes, the file ends after 2"},
        {HEADER_H3 + "010080"
                     "00",
         "error: the file ends after block 2's hints, but its header says H=3: the header's height or the file is wrong"},
        {HEADER_H3 + "010081"
                     "00"
                     "0302a8",
         "error: block 1's hints (byte 9): non-zero padding bits after the high part"},
        {HEADER_H3 + "010080"
                     "010000"
                     "0302a8",
         "error: block 2's hints (byte 12): the high part holds 0 ones, not N=1"},
        {HEADER_H3 + "010080"
                     "00"
                     "0303a8",
         "error: block 3's hints (byte 13): the last index is 2, not M=3"},
        {HEADER_H3 + "010080"
                     "00"
                     "fe08b20100",
         "error: block 3's hints (byte 13): count N=111112 is above the most outputs a block can have (111111)"},
        // Crate hintsfile 0.2.0's bits: [3, 7, 12] as its own test writes it,
        // and [0] as it writes it after a block it agrees on.
        {"5554584f00"
         "01000000"
         "030c0f25",
         "error: block 1's hints (byte 9): looks like a hints file of crate hintsfile 0.2.0 (bits filled from the least significant end), which coinsdb does not read"},
        {"5554584f00"
         "02000000"
         "00"
         "010001",
         "error: block 2's hints (byte 10): looks like a hints file of crate hintsfile 0.2.0 (bits filled from the least significant end), which coinsdb does not read"},
        // PR #34004: H = 2, a table of (LE32 height, LE64 offset) from
        // 9 + 24 = 33 on, then each block's bitmap (CompactSize bits, bytes).
        {"5554584f00"
         "02000000"
         "01000000"
         "2100000000000000"
         "02000000"
         "2300000000000000"
         "0101"
         "0201",
         "error: looks like a bitmap hints file (Bitcoin Core PR #34004), which coinsdb does not read: write a BIP 456 file with coinsdb-genhints"},
        {"5554584f00"
         "02000000"
         "00000000"
         "2100000000000000"
         "01000000"
         "2300000000000000"
         "0101"
         "0201",
         "error: looks like a bitmap hints file (Bitcoin Core PR #34004), which coinsdb does not read: write a BIP 456 file with coinsdb-genhints"},
    };
    for (const auto& c : cases) {
        const std::string answer = Read(Write(c.hex));
        BOOST_CHECK_MESSAGE(answer == c.answer, c.hex << ": " << answer);
    }
    // Every cut of a valid file is refused.
    const std::string valid = HEADER_H3 + OBJECTS_3;
    for (size_t cut = 0; cut < valid.size() / 2; ++cut) {
        BOOST_CHECK_MESSAGE(Read(Write(valid.substr(0, cut * 2))).starts_with("error: "), cut);
    }
    BOOST_CHECK_EQUAL(Read(m_path / "missing"), "error: cannot open: No such file or directory");
}

BOOST_AUTO_TEST_SUITE_END()
