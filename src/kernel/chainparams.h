#ifndef COINSDB_KERNEL_CHAINPARAMS_H
#define COINSDB_KERNEL_CHAINPARAMS_H

#include <primitives/block.h>
#include <uint256.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

enum class ChainType { MAIN, TESTNET, TESTNET4, SIGNET, REGTEST };

std::string ChainTypeToString(ChainType chain);
std::optional<ChainType> ChainTypeFromString(std::string_view name);

using MessageStartChars = std::array<unsigned char, 4>;

// A UTXO set a snapshot may be trusted to reproduce: at this block, with
// this hash_serialized_3.
struct AssumeutxoData {
    int height;
    uint256 blockhash;
    uint256 hash_serialized;
    uint64_t chain_tx_count;
};

// How many transactions a network had at a moment and how fast it grows
// (upstream's ChainTxData): the scale of verification progress estimates.
struct ChainTxData {
    int64_t time;      // UNIX time of the count
    uint64_t tx_count; // transactions from genesis to then
    double tx_rate;    // transactions per second after then
};

// What coinsdb needs to know of each network.
class CChainParams
{
public:
    // The built-in parameters of a chain; the caller owns the copy.
    static CChainParams ForChain(ChainType chain);

    ChainType GetChainType() const { return m_chain; }
    std::string GetChainTypeString() const { return ChainTypeToString(m_chain); }
    const MessageStartChars& MessageStart() const { return m_message_start; }
    const uint256& GenesisHash() const { return m_genesis_hash; }
    // Rebuilt from the chain's facts; its hash is checked against GenesisHash().
    const CBlock& GenesisBlock() const { return m_genesis; }
    const uint256& PowLimit() const { return m_pow_limit; }
    int SubsidyHalvingInterval() const { return m_subsidy_halving_interval; }
    // Every network aims at one block per ten minutes.
    int64_t PowTargetSpacing() const { return 10 * 60; }
    const ChainTxData& TxData() const { return m_tx_data; }
    uint16_t DefaultRPCPort() const { return m_rpc_port; }
    // Subdirectory of the datadir ("" for main).
    const std::string& DataDirName() const { return m_data_dir; }

    const std::vector<AssumeutxoData>& AssumeutxoEntries() const { return m_assumeutxo; }
    std::optional<AssumeutxoData> AssumeutxoForBlockhash(const uint256& blockhash) const;
    std::optional<AssumeutxoData> AssumeutxoForHeight(int height) const;

    // Test chains only: more trusted snapshots (-assumeutxo). Throws
    // std::invalid_argument on main.
    void AddAssumeutxo(const AssumeutxoData& data);

private:
    // What it takes to rebuild a chain's genesis block: its coinbase pays
    // 50 BTC to a bare public key (P2PK) and carries a headline in its
    // scriptSig; the header fields were ground until the hash met the target.
    struct GenesisFacts {
        std::string_view timestamp;
        std::string_view output_key_hex;
        uint32_t time;
        uint32_t nonce;
        uint32_t bits;
    };

    // The consensus rules coinsdb checks that differ between networks.
    struct ConsensusFacts {
        // The easiest target a block may claim (nBits above it is invalid).
        std::string_view pow_limit_hex;
        // Blocks between halvings of the coinbase subsidy.
        int subsidy_halving_interval;
        GenesisFacts genesis;
        ChainTxData tx_data;
    };

    static CBlock BuildGenesisBlock(const GenesisFacts& facts);

    CChainParams(ChainType chain, MessageStartChars message_start, std::string_view genesis_hex,
                 const ConsensusFacts& consensus, uint16_t rpc_port, std::string data_dir,
                 std::vector<AssumeutxoData> assumeutxo);

    ChainType m_chain;
    MessageStartChars m_message_start;
    uint256 m_genesis_hash;
    CBlock m_genesis;
    uint256 m_pow_limit;
    int m_subsidy_halving_interval;
    ChainTxData m_tx_data;
    uint16_t m_rpc_port;
    std::string m_data_dir;
    std::vector<AssumeutxoData> m_assumeutxo;
};

// Returns the chain whose network magic this is.
std::optional<ChainType> ChainTypeFromMessageStart(const MessageStartChars& message_start);

#endif // COINSDB_KERNEL_CHAINPARAMS_H
