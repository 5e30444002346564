#ifndef COINSDB_KERNEL_SWIFTSYNC_AGGREGATE_H
#define COINSDB_KERNEL_SWIFTSYNC_AGGREGATE_H

// SwiftSync's aggregate (BIP 457, the assume-valid variant): a hinted replay
// adds the hash of every outpoint it creates and does not store, and
// subtracts the hash of every outpoint it spends. Every such output is spent
// before the hints' height H exactly when the sum is zero there, whatever
// order the blocks were hashed in.
//
//   hash(outpoint) = SHA-256(salt || txid (32 bytes, internal order) || LE32 n)
//   sum            = sum of added hashes - sum of subtracted hashes, mod 2^256,
//                    each hash read as a little-endian 256-bit number
//
// The salt is 32 random bytes the client picks: hints and blocks come from
// outside, and without a secret salt whoever wrote them could pick outpoints
// whose hashes cancel. btcd's variant sums unhashed outpoints under a salt
// that cancels out, which is why this one hashes.

#include <crypto/salted_sha256.h>
#include <primitives/transaction.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace kernel::swiftsync {

using Salt = std::array<unsigned char, SaltedSha256::SALT_SIZE>;

// A 256-bit sum modulo 2^256.
class AggregateSum
{
public:
    using Digest = std::array<unsigned char, SaltedSha256::OUTPUT_SIZE>;

    void Add(const Digest& digest);
    void Subtract(const Digest& digest);
    AggregateSum& operator+=(const AggregateSum& other);
    bool IsZero() const;
    // Most significant byte first, as a 64-digit hex number.
    std::string ToHex() const;
    // The limbs, least significant first (for saving and tests).
    const std::array<uint64_t, 4>& Limbs() const { return m_limbs; }
    static AggregateSum FromLimbs(const std::array<uint64_t, 4>& limbs);

    friend bool operator==(const AggregateSum&, const AggregateSum&) = default;

private:
    std::array<uint64_t, 4> m_limbs{};
};

// The salted hash of outpoints; one per replay, shared by its threads.
class OutpointHasher
{
public:
    explicit OutpointHasher(const Salt& salt) : m_sha{salt} {}
    AggregateSum::Digest Hash(const COutPoint& outpoint) const;

    // Adds to (subtracts from) `sum` the Hash() of every outpoint, hashed
    // in batches (SaltedSha256::HashEach): a block's outpoints at once.
    void AddAll(std::span<const COutPoint> outpoints, AggregateSum& sum) const;
    void SubtractAll(std::span<const COutPoint> outpoints, AggregateSum& sum) const;

private:
    SaltedSha256 m_sha;
};

// A random salt from the operating system's generator.
Salt NewSalt();

} // namespace kernel::swiftsync

#endif // COINSDB_KERNEL_SWIFTSYNC_AGGREGATE_H
