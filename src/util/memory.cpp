#include <util/memory.h>

#include <cstdio>
#include <unistd.h>

std::optional<size_t> GetResidentBytes()
{
    // statm: total program size, then resident pages; both in pages.
    std::FILE* file = std::fopen("/proc/self/statm", "r");
    if (!file) return std::nullopt;
    unsigned long size_pages = 0;
    unsigned long resident_pages = 0;
    const int fields = std::fscanf(file, "%lu %lu", &size_pages, &resident_pages);
    std::fclose(file);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (fields != 2 || page_size <= 0) return std::nullopt;
    return static_cast<size_t>(resident_pages) * static_cast<size_t>(page_size);
}
