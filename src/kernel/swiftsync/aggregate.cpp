#include <kernel/swiftsync/aggregate.h>

#include <crypto/random.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace kernel::swiftsync {
namespace {

std::array<uint64_t, 4> LimbsOf(const AggregateSum::Digest& digest)
{
    std::array<uint64_t, 4> limbs;
    for (size_t i = 0; i < limbs.size(); ++i) {
        uint64_t limb = 0;
        for (size_t b = 0; b < 8; ++b) limb |= uint64_t{digest[i * 8 + b]} << (8 * b);
        limbs[i] = limb;
    }
    return limbs;
}

void AddLimbs(std::array<uint64_t, 4>& sum, const std::array<uint64_t, 4>& add)
{
    unsigned __int128 carry = 0;
    for (size_t i = 0; i < sum.size(); ++i) {
        carry += static_cast<unsigned __int128>(sum[i]) + add[i];
        sum[i] = static_cast<uint64_t>(carry);
        carry >>= 64;
    }
}

} // namespace

void AggregateSum::Add(const Digest& digest) { AddLimbs(m_limbs, LimbsOf(digest)); }

void AggregateSum::Subtract(const Digest& digest)
{
    // a - b = a + (~b + 1) modulo 2^256.
    std::array<uint64_t, 4> negated = LimbsOf(digest);
    for (uint64_t& limb : negated) limb = ~limb;
    AddLimbs(m_limbs, negated);
    AddLimbs(m_limbs, {1, 0, 0, 0});
}

AggregateSum& AggregateSum::operator+=(const AggregateSum& other)
{
    AddLimbs(m_limbs, other.m_limbs);
    return *this;
}

bool AggregateSum::IsZero() const
{
    return std::ranges::all_of(m_limbs, [](uint64_t limb) { return limb == 0; });
}

std::string AggregateSum::ToHex() const
{
    return fmt::format("{:016x}{:016x}{:016x}{:016x}", m_limbs[3], m_limbs[2], m_limbs[1], m_limbs[0]);
}

AggregateSum AggregateSum::FromLimbs(const std::array<uint64_t, 4>& limbs)
{
    AggregateSum sum;
    sum.m_limbs = limbs;
    return sum;
}

namespace {

constexpr size_t OUTPOINT_MESSAGE_SIZE = 36;

void WriteMessage(const COutPoint& outpoint, unsigned char* message)
{
    std::memcpy(message, outpoint.hash.data(), 32);
    for (size_t b = 0; b < 4; ++b) message[32 + b] = static_cast<unsigned char>(outpoint.n >> (8 * b));
}

// Hashes outpoints in batches small enough for the stack, handing each
// digest to `use`.
template <typename Use>
void ForEachHash(const SaltedSha256& sha, std::span<const COutPoint> outpoints, Use use)
{
    constexpr size_t BATCH = 128;
    std::array<unsigned char, BATCH * OUTPOINT_MESSAGE_SIZE> messages;
    std::array<unsigned char, BATCH * SaltedSha256::OUTPUT_SIZE> digests;
    for (size_t first = 0; first < outpoints.size(); first += BATCH) {
        const size_t count = std::min(BATCH, outpoints.size() - first);
        for (size_t i = 0; i < count; ++i) WriteMessage(outpoints[first + i], messages.data() + i * OUTPOINT_MESSAGE_SIZE);
        sha.HashEach(std::span{messages}.first(count * OUTPOINT_MESSAGE_SIZE), OUTPOINT_MESSAGE_SIZE,
                     std::span{digests}.first(count * SaltedSha256::OUTPUT_SIZE));
        for (size_t i = 0; i < count; ++i) {
            AggregateSum::Digest digest;
            std::memcpy(digest.data(), digests.data() + i * SaltedSha256::OUTPUT_SIZE, digest.size());
            use(digest);
        }
    }
}

} // namespace

AggregateSum::Digest OutpointHasher::Hash(const COutPoint& outpoint) const
{
    std::array<unsigned char, OUTPOINT_MESSAGE_SIZE> message;
    WriteMessage(outpoint, message.data());
    return m_sha.Hash(message);
}

void OutpointHasher::AddAll(std::span<const COutPoint> outpoints, AggregateSum& sum) const
{
    ForEachHash(m_sha, outpoints, [&](const AggregateSum::Digest& digest) { sum.Add(digest); });
}

void OutpointHasher::SubtractAll(std::span<const COutPoint> outpoints, AggregateSum& sum) const
{
    ForEachHash(m_sha, outpoints, [&](const AggregateSum::Digest& digest) { sum.Subtract(digest); });
}

Salt NewSalt()
{
    Salt salt;
    GetRandBytes(salt);
    return salt;
}

} // namespace kernel::swiftsync
