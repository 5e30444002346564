#include <node/init/init.h>

#ifdef COINSDB_MIMALLOC
#include <mimalloc.h>

#include <fmt/format.h>
#endif

#include <string>

int main(int argc, char* argv[])
{
    std::string allocator;
#ifdef COINSDB_MIMALLOC
    // Linked in for its malloc, which replaces the C library's in the whole
    // process (CMakeLists.txt). The call also keeps the library a needed
    // one for linkers that drop libraries nothing calls.
    const int version = mi_version();
    allocator = fmt::format("mimalloc {}.{}.{}", version / 100, version / 10 % 10, version % 10);
#endif
    return node::AppMain(argc, argv, allocator);
}
