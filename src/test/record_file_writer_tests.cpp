// RecordFileWriter (node/blockstorage/record_file_writer): records written
// on the writer's thread, with O_DIRECT where the file system allows it,
// against a model of the file's bytes: after each Flush or Sync the file is
// exactly the model (no padding left), records crossing the writer's buffer
// and 4 KiB blocks at every offset, a writer reopened in the middle of a
// block, obfuscation by file offset, and a failed write refusing every
// later call.

#include <node/blockstorage/obfuscation.h>
#include <node/blockstorage/record_file_writer.h>
#include <test/util/random.h>
#include <test/util/setup.h>

#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

using node::BlockFileXorKey;
using node::RecordFileWriter;

namespace {

std::vector<std::byte> RandomRecord(TestRand& rand, size_t size)
{
    std::vector<std::byte> record(size);
    for (auto& byte : record) byte = static_cast<std::byte>(rand.Next());
    return record;
}

std::string AsString(const std::vector<std::byte>& bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

// A record size: mostly small, sometimes past a 4 KiB block or the whole
// buffer, sometimes empty.
size_t RandomSize(TestRand& rand)
{
    if (rand.OneIn(10)) return RecordFileWriter::BUFFER_BYTES + rand.Below(3 * RecordFileWriter::ALIGN);
    if (rand.OneIn(10)) return 0;
    if (rand.OneIn(3)) return RecordFileWriter::ALIGN - 8 + rand.Below(16);
    return 1 + rand.Below(3000);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(record_file_writer_tests, TempDirFixture)

BOOST_AUTO_TEST_CASE(file_matches_a_model_after_every_flush)
{
    TestRand rand{0xb10c};
    const auto path = m_path / "blk00000.dat";
    std::string model;
    std::string error;
    bool direct_seen = false;
    for (int writer_round = 0; writer_round < 6; ++writer_round) {
        // A fresh writer goes on at the end of what the file has, as
        // BlockManager does after a restart (nSize, mid-block).
        auto writer = RecordFileWriter::Open(path, BlockFileXorKey{}, error);
        BOOST_REQUIRE_MESSAGE(writer, error);
        direct_seen |= writer->Direct();
        for (int step = 0; step < 25; ++step) {
            std::vector<std::byte> record = RandomRecord(rand, RandomSize(rand));
            const std::string bytes = AsString(record);
            BOOST_REQUIRE(writer->Write(model.size(), std::move(record), error));
            model += bytes;
            if (rand.OneIn(4)) {
                BOOST_REQUIRE(rand.Bool() ? writer->Flush(error) : writer->Sync(error));
                BOOST_REQUIRE_EQUAL(std::filesystem::file_size(path), model.size());
                BOOST_REQUIRE(ReadFileToString(path) == model);
            }
        }
        // Closing writes what is left.
    }
    BOOST_CHECK(ReadFileToString(path) == model);
    BOOST_TEST_MESSAGE("O_DIRECT " << (direct_seen ? "used" : "refused by this file system: the page cache path ran"));
}

// Bytes before the first write's offset are kept, whether the file has them
// or ends sooner (then zeros, as a gap in a file reads).
BOOST_AUTO_TEST_CASE(write_after_existing_bytes)
{
    const auto path = m_path / "rev00000.dat";
    std::string error;
    const std::string existing(5000, 'x');
    {
        std::ofstream out{path, std::ios::binary};
        out << existing;
    }
    {
        auto writer = RecordFileWriter::Open(path, BlockFileXorKey{}, error);
        BOOST_REQUIRE(writer);
        BOOST_REQUIRE(writer->Write(existing.size(), std::vector<std::byte>(10, std::byte{'y'}), error));
        BOOST_REQUIRE(writer->Flush(error));
    }
    BOOST_CHECK(ReadFileToString(path) == existing + std::string(10, 'y'));
    {
        auto writer = RecordFileWriter::Open(path, BlockFileXorKey{}, error);
        BOOST_REQUIRE(writer);
        BOOST_REQUIRE(writer->Write(9000, std::vector<std::byte>(3, std::byte{'z'}), error));
        BOOST_REQUIRE(writer->Sync(error));
    }
    BOOST_CHECK(ReadFileToString(path) == existing + std::string(10, 'y') + std::string(9000 - 5010, '\0') + "zzz");
}

// Each record is obfuscated by its own file offset, as blocks/xor.dat's key
// is applied to the whole file.
BOOST_AUTO_TEST_CASE(records_obfuscated_by_offset)
{
    TestRand rand{0x0b5c};
    const BlockFileXorKey key{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                              std::byte{5}, std::byte{6}, std::byte{7}, std::byte{8}};
    const auto path = m_path / "blk00001.dat";
    std::string error;
    std::vector<std::byte> plain;
    {
        auto writer = RecordFileWriter::Open(path, key, error);
        BOOST_REQUIRE(writer);
        for (int i = 0; i < 20; ++i) {
            std::vector<std::byte> record = RandomRecord(rand, 1 + rand.Below(5000));
            plain.insert(plain.end(), record.begin(), record.end());
            BOOST_REQUIRE(writer->Write(plain.size() - record.size(), std::move(record), error));
        }
        BOOST_REQUIRE(writer->Sync(error));
    }
    std::vector<std::byte> expected = plain;
    node::XorAtOffset(expected, 0, key);
    BOOST_CHECK(ReadFileToString(path) == AsString(expected));
    BOOST_CHECK(AsString(expected) != AsString(plain));
}

// /dev/full takes no byte: the failure surfaces at the flush, and every
// call after it fails too, because records queued before it are lost.
BOOST_AUTO_TEST_CASE(a_failed_write_fails_every_later_call)
{
    if (!std::filesystem::exists("/dev/full")) {
        BOOST_TEST_MESSAGE("no /dev/full here");
        return;
    }
    std::string error;
    auto writer = RecordFileWriter::Open("/dev/full", BlockFileXorKey{}, error);
    BOOST_REQUIRE_MESSAGE(writer, error);
    BOOST_REQUIRE(writer->Write(0, std::vector<std::byte>(100, std::byte{1}), error));
    BOOST_CHECK(!writer->Flush(error));
    BOOST_CHECK_MESSAGE(error.find("No space left") != std::string::npos, error);
    std::string later;
    BOOST_CHECK(!writer->Write(100, std::vector<std::byte>(10, std::byte{2}), later));
    BOOST_CHECK(!later.empty());
    later.clear();
    BOOST_CHECK(!writer->Sync(later));
    BOOST_CHECK(!later.empty());
}

BOOST_AUTO_TEST_SUITE_END()
