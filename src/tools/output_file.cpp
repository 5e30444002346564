#include <tools/output_file.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace {

constexpr size_t FILE_BUFFER_BYTES = 1 << 20;

} // namespace

void WriteOutputFile(const std::filesystem::path& path, const std::function<void(AutoFile&)>& write)
{
    if (std::filesystem::exists(path)) {
        throw std::runtime_error(fmt::format("{} already exists: remove it or choose another -output", path.string()));
    }
    std::filesystem::path temp_path{path};
    temp_path += ".incomplete";
    // Declared before the file so that it outlives the FILE using it.
    std::vector<char> buffer(FILE_BUFFER_BYTES);
    AutoFile file{std::fopen(temp_path.c_str(), "wb")};
    if (file.IsNull()) {
        throw std::runtime_error(fmt::format("cannot create {}: {}", temp_path.string(), std::strerror(errno)));
    }
    std::setvbuf(file.Get(), buffer.data(), _IOFBF, buffer.size());
    try {
        write(file);
        if (file.fclose() != 0) {
            throw std::runtime_error(fmt::format("writing {} failed: {}", temp_path.string(), std::strerror(errno)));
        }
        std::filesystem::rename(temp_path, path);
    } catch (const std::exception& e) {
        file.fclose();
        std::error_code ignored;
        std::filesystem::remove(temp_path, ignored);
        throw std::runtime_error(fmt::format("generating {} failed: {}", path.string(), e.what()));
    }
}
