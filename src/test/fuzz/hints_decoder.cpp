// hints_decoder: arbitrary bytes as one Elias-Fano object and as a whole
// hints file. Every input must end in an error message or in hints that
// are strictly rising, below MAX_BLOCK_OUTPUTS and encode back to exactly
// the bytes they came from (the strict decoder admits one spelling per
// list); nothing may throw, crash or allocate beyond what the bytes hold.

#include <test/fuzz/fuzz.h>

#include <kernel/swiftsync/elias_fano.h>
#include <kernel/swiftsync/hints_file.h>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace kernel::swiftsync;

namespace {

void CheckHints(const std::vector<uint32_t>& hints)
{
    for (size_t i = 0; i < hints.size(); ++i) {
        FUZZ_CHECK(hints[i] < MAX_BLOCK_OUTPUTS);
        FUZZ_CHECK(i == 0 || hints[i - 1] < hints[i]);
    }
}

void CheckObject(std::span<const uint8_t> input)
{
    const auto decoded = DecodeEliasFano(input);
    if (!decoded) {
        FUZZ_CHECK(!decoded.error().empty());
        return;
    }
    CheckHints(decoded->indices);
    FUZZ_CHECK(std::ranges::equal(EncodeEliasFano(decoded->indices), input.first(decoded->bytes_read)));
}

} // namespace

HintsReadOutcome ReadHintsForFuzz(std::span<const uint8_t> file_bytes)
{
    HintsReadOutcome outcome;
    // fmemopen wants a writable buffer, and glibc refuses a zero size.
    std::vector<uint8_t> buffer(file_bytes.begin(), file_bytes.end());
    buffer.push_back(0);
    std::FILE* file = fmemopen(buffer.data(), file_bytes.size() == 0 ? 1 : file_bytes.size(), "rb");
    FUZZ_CHECK(file != nullptr);
    if (file_bytes.empty()) std::fgetc(file);
    auto reader = HintsFileReader::Open(file);
    if (!reader) {
        outcome.error = reader.error();
        return outcome;
    }
    outcome.height = reader->Height();
    uint64_t object_bytes = 0;
    while (reader->NextHeight() <= reader->Height()) {
        const auto hints = reader->Next();
        if (!hints) {
            outcome.error = hints.error();
            return outcome;
        }
        CheckHints(*hints);
        object_bytes += EncodeEliasFano(*hints).size();
        ++outcome.blocks_read;
    }
    const auto size = reader->Finish();
    if (!size) {
        outcome.error = size.error();
        return outcome;
    }
    FUZZ_CHECK(*size == file_bytes.size());
    FUZZ_CHECK(*size == HINTS_HEADER_BYTES + object_bytes);
    outcome.complete = true;
    return outcome;
}

void FuzzHintsDecoder(std::span<const uint8_t> input)
{
    CheckObject(input);
    const HintsReadOutcome outcome = ReadHintsForFuzz(input);
    FUZZ_CHECK(outcome.complete != !outcome.error.empty());
    FUZZ_CHECK(outcome.blocks_read <= outcome.height);
}
