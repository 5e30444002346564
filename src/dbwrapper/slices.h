#ifndef COINSDB_DBWRAPPER_SLICES_H
#define COINSDB_DBWRAPPER_SLICES_H

// For the dbwrapper module only: LevelDB's Slice as the standard library's
// views and back, without copying.

#include <leveldb/slice.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace dbwrapper_ingest {

inline leveldb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }
inline leveldb::Slice ToSlice(std::span<const std::byte> bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }
inline std::string_view ToView(const leveldb::Slice& s) { return {s.data(), s.size()}; }
inline std::span<const std::byte> ToSpan(const leveldb::Slice& s) { return std::as_bytes(std::span{s.data(), s.size()}); }

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_SLICES_H
