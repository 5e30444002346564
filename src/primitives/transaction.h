#ifndef COINSDB_PRIMITIVES_TRANSACTION_H
#define COINSDB_PRIMITIVES_TRANSACTION_H

#include <primitives/amount.h>
#include <script/script.h>
#include <serialize.h>
#include <uint256.h>

#include <compare>
#include <cstdint>
#include <ios>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

// A reference to one output of a transaction.
// Byte format (network, undo data): txid (32 bytes, internal order), LE32 n.
class COutPoint
{
public:
    static constexpr uint32_t NULL_INDEX = UINT32_MAX;

    uint256 hash;
    uint32_t n{NULL_INDEX};

    COutPoint() = default;
    COutPoint(const uint256& txid, uint32_t index) : hash{txid}, n{index} {}

    bool IsNull() const { return hash.IsNull() && n == NULL_INDEX; }
    std::string ToString() const;

    friend auto operator<=>(const COutPoint&, const COutPoint&) = default;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        hash.Serialize(s);
        WriteLE(s, n);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        hash.Unserialize(s);
        n = ReadLE<uint32_t>(s);
    }
};

// A transaction output: an amount locked by a script.
// Byte format (network): LE64 value, CompactSize script length, script.
// The chainstate stores it compressed instead (see compressor.h).
class CTxOut
{
public:
    CAmount nValue{-1};
    CScript scriptPubKey;

    CTxOut() = default;
    CTxOut(CAmount value, CScript script) : nValue{value}, scriptPubKey{std::move(script)} {}

    // The "null" output marks a spent Coin.
    void SetNull()
    {
        nValue = -1;
        // Give the heap block back: clear() would keep it, and a spent cache
        // entry must cost no script memory.
        CScript{}.swap(scriptPubKey);
    }
    bool IsNull() const { return nValue == -1; }

    friend bool operator==(const CTxOut&, const CTxOut&) = default;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        WriteLE(s, nValue);
        ::Serialize(s, static_cast<const CScriptBase&>(scriptPubKey));
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        nValue = ReadLE<int64_t>(s);
        ::Unserialize(s, static_cast<CScriptBase&>(scriptPubKey));
    }
};

// The witness stack of one input (BIP141): items the input's scripts consume
// that are left out of the txid. Not part of the input's own bytes; the
// transaction writes all stacks together, after its outputs.
// Byte format: CompactSize item count, then per item CompactSize length, bytes.
struct CScriptWitness {
    std::vector<std::vector<unsigned char>> stack;

    bool IsNull() const { return stack.empty(); }
    friend bool operator==(const CScriptWitness&, const CScriptWitness&) = default;
};

// A transaction input: the output it spends and the data that unlocks it.
// Byte format: prevout (COutPoint, 36 bytes), CompactSize length + scriptSig,
// LE32 nSequence. The witness stack is written by the transaction, not here.
class CTxIn
{
public:
    static constexpr uint32_t SEQUENCE_FINAL = 0xffffffff;

    COutPoint prevout;
    CScript scriptSig;
    uint32_t nSequence{SEQUENCE_FINAL};
    CScriptWitness scriptWitness;

    CTxIn() = default;
    explicit CTxIn(COutPoint prevout_in, CScript script_sig = {}, uint32_t sequence = SEQUENCE_FINAL)
        : prevout{prevout_in}, scriptSig{std::move(script_sig)}, nSequence{sequence} {}
    // Core's form: the outpoint as txid and index.
    CTxIn(const uint256& prev_txid, uint32_t prev_n, CScript script_sig = {}, uint32_t sequence = SEQUENCE_FINAL)
        : CTxIn{COutPoint{prev_txid, prev_n}, std::move(script_sig), sequence} {}

    friend bool operator==(const CTxIn&, const CTxIn&) = default;

    template <typename Stream>
    void Serialize(Stream& s) const
    {
        prevout.Serialize(s);
        ::Serialize(s, static_cast<const CScriptBase&>(scriptSig));
        WriteLE(s, nSequence);
    }
    template <typename Stream>
    void Unserialize(Stream& s)
    {
        prevout.Unserialize(s);
        ::Unserialize(s, static_cast<CScriptBase&>(scriptSig));
        nSequence = ReadLE<uint32_t>(s);
        // The stack comes later in the transaction's bytes, if at all; a
        // reused object must not keep the previous one.
        scriptWitness.stack.clear();
    }
};

// Transactions.
//
// Byte format (network and block files), BIP144:
//   legacy:  LE32 version | CompactSize #inputs | inputs | CompactSize #outputs | outputs | LE32 nLockTime
//   witness: LE32 version | 00 (marker) | 01 (flag) | CompactSize #inputs | inputs
//            | CompactSize #outputs | outputs | one witness stack per input | LE32 nLockTime
// The witness form is written exactly when some input has a non-empty stack.
// The marker reads as "zero inputs" to a legacy parser, which is what keeps
// old nodes from misreading witness transactions. A reader accepts both forms
// and refuses, as Bitcoin Core does:
//   - a flag with bit 0 set but every stack empty: "Superfluous witness record"
//     (the same transaction has a shorter legacy encoding, so the bytes would
//     not be canonical);
//   - any other flag bit: "Unknown transaction optional data".
// A legacy transaction with no inputs but some outputs cannot be read back:
// its output count lands where the flag is expected. No valid transaction
// has zero inputs, so Bitcoin Core accepts the same ambiguity.
//
// txid = SHA256d of the legacy form (witness left out, so signatures can't
// change it); wtxid = SHA256d of the form written here, equal to the txid
// when there is no witness.
template <typename Stream, typename Tx>
void SerializeTransaction(const Tx& tx, Stream& s, bool with_witness)
{
    const bool witness = with_witness && tx.HasWitness();
    WriteLE(s, tx.version);
    if (witness) {
        WriteCompactSize(s, 0);
        WriteLE<Stream, uint8_t>(s, 1);
    }
    ::Serialize(s, tx.vin);
    ::Serialize(s, tx.vout);
    if (witness) {
        for (const CTxIn& in : tx.vin) ::Serialize(s, in.scriptWitness.stack);
    }
    WriteLE(s, tx.nLockTime);
}

template <typename Stream, typename Tx>
void UnserializeTransaction(Tx& tx, Stream& s)
{
    tx.version = ReadLE<int32_t>(s);
    tx.vout.clear();
    uint8_t flags = 0;
    ::Unserialize(s, tx.vin);
    if (tx.vin.empty()) {
        // The BIP144 marker, or a transaction with neither inputs nor outputs.
        flags = ReadLE<uint8_t>(s);
        if (flags != 0) {
            ::Unserialize(s, tx.vin);
            ::Unserialize(s, tx.vout);
        }
    } else {
        ::Unserialize(s, tx.vout);
    }
    if (flags & 1) {
        flags ^= 1;
        for (CTxIn& in : tx.vin) ::Unserialize(s, in.scriptWitness.stack);
        if (!tx.HasWitness()) throw std::ios_base::failure("Superfluous witness record");
    }
    if (flags) throw std::ios_base::failure("Unknown transaction optional data");
    tx.nLockTime = ReadLE<uint32_t>(s);
}

struct CMutableTransaction;

// An immutable transaction. The fields are const so that the hashes cached
// at construction can never disagree with the contents; build or edit one as
// a CMutableTransaction, then construct this from it. Deserialize the same
// way: read a CMutableTransaction, then move it in.
class CTransaction
{
public:
    static constexpr int32_t CURRENT_VERSION{2};

    const int32_t version;
    const std::vector<CTxIn> vin;
    const std::vector<CTxOut> vout;
    const uint32_t nLockTime;

    explicit CTransaction(const CMutableTransaction& tx);
    explicit CTransaction(CMutableTransaction&& tx);
    // For a reader that holds the bytes tx was just unserialized from
    // (`read_from`, exactly those): the hashes are taken from them instead of
    // from a second serialization of tx, which costs a copy of every field
    // into SHA-256's buffer. They are the bytes a serialization would give,
    // because the reader refuses every other encoding of the same transaction
    // (non-minimal CompactSizes, a superfluous witness flag: see
    // UnserializeTransaction), so the hashes still match the contents.
    CTransaction(CMutableTransaction&& tx, std::span<const std::byte> read_from);

    template <typename Stream>
    void Serialize(Stream& s) const { SerializeTransaction(*this, s, /*with_witness=*/true); }

    // txid: what outpoints and the merkle root refer to.
    const uint256& GetHash() const { return m_hash; }
    // wtxid: commits to the witness too.
    const uint256& GetWitnessHash() const { return m_witness_hash; }
    bool HasWitness() const { return m_has_witness; }

    bool IsNull() const { return vin.empty() && vout.empty(); }
    // A coinbase has exactly one input, spending the null outpoint.
    bool IsCoinBase() const { return vin.size() == 1 && vin[0].prevout.IsNull(); }
    // Sum of the output values. Throws std::runtime_error when an output or
    // the running sum leaves MoneyRange, so a caller can't get a wrapped total.
    CAmount GetValueOut() const;

    // Same bytes, witness included.
    friend bool operator==(const CTransaction& a, const CTransaction& b) { return a.m_witness_hash == b.m_witness_hash; }

private:
    // Declared after the fields they are computed from: members initialise in
    // declaration order.
    const bool m_has_witness;
    const uint256 m_hash;
    const uint256 m_witness_hash;

    bool ComputeHasWitness() const;
    uint256 ComputeHash() const;
    uint256 ComputeWitnessHash() const;
    uint256 ComputeHashFrom(std::span<const std::byte> read_from) const;
};

// A transaction under construction; nothing is cached, so GetHash()
// serializes the whole transaction on every call.
struct CMutableTransaction {
    int32_t version{CTransaction::CURRENT_VERSION};
    std::vector<CTxIn> vin;
    std::vector<CTxOut> vout;
    uint32_t nLockTime{0};

    CMutableTransaction() = default;
    explicit CMutableTransaction(const CTransaction& tx);

    template <typename Stream>
    void Serialize(Stream& s) const { SerializeTransaction(*this, s, /*with_witness=*/true); }
    template <typename Stream>
    void Unserialize(Stream& s) { UnserializeTransaction(*this, s); }

    uint256 GetHash() const;
    bool HasWitness() const;
};

// Blocks and anything else that shares transactions hold them this way.
using CTransactionRef = std::shared_ptr<const CTransaction>;

template <typename Tx>
CTransactionRef MakeTransactionRef(Tx&& tx)
{
    return std::make_shared<const CTransaction>(std::forward<Tx>(tx));
}

#endif // COINSDB_PRIMITIVES_TRANSACTION_H
