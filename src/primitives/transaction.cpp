#include <primitives/transaction.h>

#include <hash.h>

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
