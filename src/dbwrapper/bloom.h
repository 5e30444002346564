#ifndef COINSDB_DBWRAPPER_BLOOM_H
#define COINSDB_DBWRAPPER_BLOOM_H

// For dbwrapper/table_encoder.cpp (and its tests) only: the filters of
// LevelDB's built-in bloom filter policy (leveldb::NewBloomFilterPolicy,
// named "leveldb.BuiltinBloomFilter2"), built without calling it.
//
// Byte format (util/bloom.cc and util/hash.cc of LevelDB 1.23), for n keys
// at b bits per key:
//
//   filter  the bit array, max(64, n * b) bits rounded up to whole bytes,
//           bit i being bit i % 8 of byte i / 8; then one byte, the probe
//           count k: b * 0.69 rounded down, at least 1 and at most 30
//   probes  a key whose hash is h sets, with d = h rotated right by 17,
//           the bits h, h + d, ..., h + (k - 1) * d (sums in 32 bits), each
//           taken modulo the number of bits
//   hash    LevelDB's Hash(key, seed 0xbc9f1d34), in 32 bits: start from
//           seed ^ (key size * 0xc6a4a793); for each whole 4 bytes of the
//           key, read little-endian as w: add w, multiply by 0xc6a4a793,
//           xor with itself shifted right by 16; if 1 to 3 bytes are left,
//           add byte i shifted left by 8 * i (as unsigned bytes), multiply
//           by 0xc6a4a793 and xor with itself shifted right by 24
//
// Why not the policy's CreateFilter: it divides for each probe of each key
// (six per key at coinsdb's 10 bits), and building the filters was a fifth
// of the CPU of building a snapshot load's table files. The bit count is
// fixed per filter, so here a probe's remainder is two multiplications.
// And a key is hashed as it is added, so no copy of the keys waits for the
// filter. (Copying them to hash four at a time, which the hash's chain of
// multiplications would allow, measured slower: 2429 ms of flushes against
// 2187 ms for a 20M-coin snapshot load, medians of 6 alternated runs of
// contrib/bench/alternate_snapshot.py; tag explore/round22-bloom-batched.)

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace leveldb {
class FilterPolicy;
} // namespace leveldb

namespace dbwrapper_ingest {

// The hash a key's probes start from.
uint32_t BloomHash(std::string_view key);

// Appends to `dst` the filter of the keys with these hashes at
// `bits_per_key` (1 or more), as the policy's CreateFilter appends it.
void AppendBloomFilter(std::span<const uint32_t> hashes, int bits_per_key, std::string& dst);

// The bits per key of `policy` if it is LevelDB's built-in bloom filter
// policy and AppendBloomFilter writes exactly what it writes, which is
// checked on sample keys; 0 otherwise (another policy, or a LevelDB whose
// filter is not this one).
int BuiltinBloomBitsPerKey(const leveldb::FilterPolicy& policy);

} // namespace dbwrapper_ingest

#endif // COINSDB_DBWRAPPER_BLOOM_H
