#include <primitives/transaction.h>

#include <hash.h>
#include <streams.h>

#include <algorithm>
#include <stdexcept>

namespace {

bool AnyWitness(const std::vector<CTxIn>& vin)
{
    return std::ranges::any_of(vin, [](const CTxIn& in) { return !in.scriptWitness.IsNull(); });
}

template <typename Tx>
uint256 HashTransaction(const Tx& tx, bool with_witness)
{
    HashWriter writer;
    SerializeTransaction(tx, writer, with_witness);
    return writer.GetHash();
}

} // namespace

std::string COutPoint::ToString() const
{
    return hash.GetHex().substr(0, 10) + ":" + std::to_string(n);
}

CTransaction::CTransaction(const CMutableTransaction& tx)
    : version{tx.version}, vin{tx.vin}, vout{tx.vout}, nLockTime{tx.nLockTime},
      m_has_witness{ComputeHasWitness()}, m_hash{ComputeHash()}, m_witness_hash{ComputeWitnessHash()} {}

CTransaction::CTransaction(CMutableTransaction&& tx)
    : version{tx.version}, vin{std::move(tx.vin)}, vout{std::move(tx.vout)}, nLockTime{tx.nLockTime},
      m_has_witness{ComputeHasWitness()}, m_hash{ComputeHash()}, m_witness_hash{ComputeWitnessHash()} {}

bool CTransaction::ComputeHasWitness() const { return AnyWitness(vin); }

uint256 CTransaction::ComputeHash() const { return HashTransaction(*this, /*with_witness=*/false); }

uint256 CTransaction::ComputeWitnessHash() const
{
    // Without a witness both forms are the same bytes; skip hashing them twice.
    return m_has_witness ? HashTransaction(*this, /*with_witness=*/true) : m_hash;
}

CTransaction::CTransaction(CMutableTransaction&& tx, std::span<const std::byte> read_from)
    : version{tx.version}, vin{std::move(tx.vin)}, vout{std::move(tx.vout)}, nLockTime{tx.nLockTime},
      m_has_witness{ComputeHasWitness()}, m_hash{ComputeHashFrom(read_from)},
      m_witness_hash{m_has_witness ? Hash256(read_from) : m_hash} {}

uint256 CTransaction::ComputeHashFrom(std::span<const std::byte> read_from) const
{
    if (!m_has_witness) return Hash256(read_from);
    // The legacy form is the witness form without the marker and flag (bytes
    // 4 and 5) and without the stacks between the outputs and nLockTime.
    size_t stack_bytes = 0;
    for (const CTxIn& in : vin) stack_bytes += GetSerializeSize(in.scriptWitness.stack);
    constexpr size_t version_bytes = 4, marker_and_flag = 2, locktime_bytes = 4;
    if (read_from.size() < version_bytes + marker_and_flag + stack_bytes + locktime_bytes) {
        throw std::logic_error("CTransaction: read_from is not the transaction's bytes");
    }
    HashWriter writer;
    writer.write(read_from.first(version_bytes));
    writer.write(read_from.subspan(version_bytes + marker_and_flag,
                                   read_from.size() - version_bytes - marker_and_flag - stack_bytes - locktime_bytes));
    writer.write(read_from.last(locktime_bytes));
    return writer.GetHash();
}

CAmount CTransaction::GetValueOut() const
{
    CAmount total = 0;
    for (const CTxOut& out : vout) {
        // Both terms are within 0..MAX_MONEY, so the sum cannot overflow.
        if (!MoneyRange(out.nValue) || !MoneyRange(total + out.nValue)) {
            throw std::runtime_error("CTransaction::GetValueOut: value out of range");
        }
        total += out.nValue;
    }
    return total;
}

CMutableTransaction::CMutableTransaction(const CTransaction& tx)
    : version{tx.version}, vin{tx.vin}, vout{tx.vout}, nLockTime{tx.nLockTime} {}

uint256 CMutableTransaction::GetHash() const { return HashTransaction(*this, /*with_witness=*/false); }

bool CMutableTransaction::HasWitness() const { return AnyWitness(vin); }
