#include <node/replay/hints_source.h>

#include <kernel/swiftsync/hints_file.h>

#include <stdexcept>
#include <utility>

namespace node {
namespace {

using kernel::swiftsync::HintsFileReader;

class FileHintSource final : public HintSource
{
public:
    explicit FileHintSource(HintsFileReader reader) : m_reader{std::move(reader)} {}

    int Height() const override { return static_cast<int>(m_reader.Height()); }

    bool Next(std::vector<uint32_t>& hints, std::string& error) override
    {
        if (m_reader.NextHeight() > m_reader.Height()) {
            error = "every block's hints were read";
            return false;
        }
        auto next = m_reader.Next();
        if (!next) {
            error = next.error();
            return false;
        }
        hints = std::move(*next);
        return true;
    }

    bool Finish(std::string& error) override
    {
        const auto size = m_reader.Finish();
        if (!size) error = size.error();
        return size.has_value();
    }

private:
    HintsFileReader m_reader;
};

[[noreturn]] void Refuse(const std::string& path, const std::string& why)
{
    throw std::runtime_error("-swiftsynchints: " + path + ": " + why);
}

HintsFileReader OpenReader(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) Refuse(path, "cannot open it");
    auto reader = HintsFileReader::Open(path);
    if (!reader) Refuse(path, reader.error());
    return std::move(*reader);
}

} // namespace

std::unique_ptr<HintSource> OpenHintsFile(const std::string& path)
{
    // One pass over the whole file first: a malformed object is refused
    // before any block is replayed. The objects are not kept (mainnet's
    // would take hundreds of MB); the replay reads the file again.
    HintsFileReader check = OpenReader(path);
    while (check.NextHeight() <= check.Height()) {
        if (auto hints = check.Next(); !hints) Refuse(path, hints.error());
    }
    if (auto size = check.Finish(); !size) Refuse(path, size.error());
    return std::make_unique<FileHintSource>(OpenReader(path));
}

} // namespace node
