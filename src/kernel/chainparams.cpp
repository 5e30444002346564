#include <kernel/chainparams.h>

#include <consensus/merkle.h>
#include <primitives/amount.h>
#include <script/script.h>
#include <util/strencodings.h>

#include <stdexcept>

namespace {

uint256 HashFromHex(std::string_view hex)
{
    auto hash = uint256::FromHex(hex);
    if (!hash) throw std::logic_error("bad hash constant in chain parameters");
    return *hash;
}

AssumeutxoData Entry(int height, std::string_view blockhash, std::string_view hash_serialized, uint64_t tx_count)
{
    return {height, HashFromHex(blockhash), HashFromHex(hash_serialized), tx_count};
}

// Script bytes that push data (no OP_PUSHDATA2 needed: genesis pushes are short).
void AppendPush(CScript& script, std::span<const unsigned char> data)
{
    if (data.size() >= OP_PUSHDATA1) script.push_back(OP_PUSHDATA1);
    script.push_back(static_cast<unsigned char>(data.size()));
    script.insert(script.end(), data.begin(), data.end());
}

// The headline of the genesis coinbase shared by main, testnet3, signet and
// regtest, and the key its output pays to.
constexpr std::string_view SATOSHI_TIMESTAMP = "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks";
constexpr std::string_view SATOSHI_KEY =
    "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f";

// Testnet4 (BIP94) has its own headline, longer than 75 bytes, and pays to
// 33 zero bytes, which is no valid key: nobody can ever spend it.
constexpr std::string_view TESTNET4_TIMESTAMP = "03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e";
constexpr std::string_view TESTNET4_KEY = "000000000000000000000000000000000000000000000000000000000000000000";

// main, testnet3 and testnet4 share it: the target of difficulty 1.
constexpr std::string_view MAIN_POW_LIMIT = "00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

} // namespace

CBlock CChainParams::BuildGenesisBlock(const GenesisFacts& facts)
{
    // scriptSig: push of nBits 0x1d00ffff (4 bytes LE), push of the number 4,
    // push of the headline; upstream's exact bytes, since they feed the txid.
    CScript script_sig{0x04, 0xff, 0xff, 0x00, 0x1d, 0x01, 0x04};
    AppendPush(script_sig, std::span{reinterpret_cast<const unsigned char*>(facts.timestamp.data()), facts.timestamp.size()});
    const auto key = TryParseHex(facts.output_key_hex);
    if (!key) throw std::logic_error("bad genesis key in chain parameters");
    CScript output_script;
    AppendPush(output_script, *key);
    output_script.push_back(OP_CHECKSIG);

    CMutableTransaction coinbase;
    coinbase.version = 1;
    coinbase.vin.emplace_back(COutPoint{}, std::move(script_sig));
    coinbase.vout.emplace_back(50 * COIN, std::move(output_script));

    CBlock genesis;
    genesis.nVersion = 1;
    genesis.nTime = facts.time;
    genesis.nBits = facts.bits;
    genesis.nNonce = facts.nonce;
    genesis.vtx.push_back(MakeTransactionRef(std::move(coinbase)));
    genesis.hashMerkleRoot = BlockMerkleRoot(genesis);
    return genesis;
}

CChainParams::CChainParams(ChainType chain, MessageStartChars message_start, std::string_view genesis_hex,
                           const ConsensusFacts& consensus, uint16_t rpc_port, std::string data_dir,
                           std::vector<AssumeutxoData> assumeutxo)
    : m_chain{chain}, m_message_start{message_start}, m_genesis_hash{HashFromHex(genesis_hex)},
      m_genesis{BuildGenesisBlock(consensus.genesis)}, m_pow_limit{HashFromHex(consensus.pow_limit_hex)},
      m_subsidy_halving_interval{consensus.subsidy_halving_interval}, m_tx_data{consensus.tx_data}, m_rpc_port{rpc_port},
      m_data_dir{std::move(data_dir)}, m_assumeutxo{std::move(assumeutxo)}
{
    // A typo in the facts would otherwise surface as an unconnectable chain.
    if (m_genesis.GetHash() != m_genesis_hash) throw std::logic_error("genesis facts do not hash to the genesis block hash");
}

std::string ChainTypeToString(ChainType chain)
{
    switch (chain) {
    case ChainType::MAIN: return "main";
    case ChainType::TESTNET: return "test";
    case ChainType::TESTNET4: return "testnet4";
    case ChainType::SIGNET: return "signet";
    case ChainType::REGTEST: return "regtest";
    }
    return "unknown";
}

std::optional<ChainType> ChainTypeFromString(std::string_view name)
{
    for (ChainType chain : {ChainType::MAIN, ChainType::TESTNET, ChainType::TESTNET4, ChainType::SIGNET, ChainType::REGTEST}) {
        if (ChainTypeToString(chain) == name) return chain;
    }
    return std::nullopt;
}

std::optional<ChainType> ChainTypeFromMessageStart(const MessageStartChars& message_start)
{
    for (ChainType chain : {ChainType::MAIN, ChainType::TESTNET, ChainType::TESTNET4, ChainType::SIGNET, ChainType::REGTEST}) {
        if (CChainParams::ForChain(chain).MessageStart() == message_start) return chain;
    }
    return std::nullopt;
}

std::optional<AssumeutxoData> CChainParams::AssumeutxoForBlockhash(const uint256& blockhash) const
{
    for (const auto& entry : m_assumeutxo) {
        if (entry.blockhash == blockhash) return entry;
    }
    return std::nullopt;
}

std::optional<AssumeutxoData> CChainParams::AssumeutxoForHeight(int height) const
{
    for (const auto& entry : m_assumeutxo) {
        if (entry.height == height) return entry;
    }
    return std::nullopt;
}

void CChainParams::AddAssumeutxo(const AssumeutxoData& data)
{
    if (m_chain == ChainType::MAIN) throw std::invalid_argument("assumeutxo entries cannot be added on main");
    std::erase_if(m_assumeutxo, [&](const AssumeutxoData& e) { return e.blockhash == data.blockhash; });
    m_assumeutxo.push_back(data);
}

// Facts from Bitcoin Core's chain parameters (../shared/spec/formats.md). The
// assumeutxo entries are Core master b88bffe5's, every block hash, hash and
// transaction count checked present in the reference bitcoind binary; the
// networks' transaction counts and rates (ChainTxData) are Core master's of
// early 2026.
CChainParams CChainParams::ForChain(ChainType chain)
{
    switch (chain) {
    case ChainType::MAIN: return {ChainType::MAIN, {0xf9, 0xbe, 0xb4, 0xd9},
        "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        {MAIN_POW_LIMIT, 210000, {SATOSHI_TIMESTAMP, SATOSHI_KEY, 1231006505, 2083236893, 0x1d00ffff},
         {1772055173, 1315805869, 5.40111006496122}},
        8332, "", {
        Entry(840000, "0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5", "a2a5521b1b5ab65f67818e5e8eccabb7171a517f9e2382208f77687310768f96", 991032194),
        Entry(880000, "000000000000000000010b17283c3c400507969a9c2afd1dcf2082ec5cca2880", "dbd190983eaf433ef7c15f78a278ae42c00ef52e0fd2a54953782175fbadcea9", 1145604538),
        Entry(910000, "0000000000000000000108970acb9522ffd516eae17acddcb1bd16469194a821", "4daf8a17b4902498c5787966a2b51c613acdab5df5db73f196fa59a4da2f1568", 1226586151),
        Entry(935000, "0000000000000000000147034958af1652b2b91bba607beacc5e72a56f0fb5ee", "e4b90ef9eae834f56c4b64d2d50143cee10ad87994c614d7d04125e2a6025050", 1305397408),
    }};
    case ChainType::TESTNET: return {ChainType::TESTNET, {0x0b, 0x11, 0x09, 0x07},
        "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
        {MAIN_POW_LIMIT, 210000, {SATOSHI_TIMESTAMP, SATOSHI_KEY, 1296688602, 414098458, 0x1d00ffff},
         {1772051651, 536108416, 0.02691479016257117}},
        18332, "testnet3", {
        Entry(2500000, "0000000000000093bcb68c03a9a168ae252572d348a2eaeba2cdf9231d73206f", "f841584909f68e47897952345234e37fcd9128cd818f41ee6c3ca68db8071be7", 66484552),
        Entry(4840000, "00000000000000f4971a7fb37fbdff89315b69a2e1920c467654a382f0d64786", "ce6bb677bb2ee9789c4a1c9d73e6683c53fc20e8fdbedbdaaf468982a0c8db2a", 536078574),
    }};
    case ChainType::TESTNET4: return {ChainType::TESTNET4, {0x1c, 0x16, 0x3f, 0x28},
        "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
        {MAIN_POW_LIMIT, 210000, {TESTNET4_TIMESTAMP, TESTNET4_KEY, 1714777860, 393743547, 0x1d00ffff},
         {1772013387, 14191421, 0.01848579579528412}},
        48332, "testnet4", {
        Entry(90000, "0000000002ebe8bcda020e0dd6ccfbdfac531d2f6a81457191b99fc2df2dbe3b", "784fb5e98241de66fdd429f4392155c9e7db5c017148e66e8fdbc95746f8b9b5", 11347043),
        Entry(120000, "000000000bd2317e51b3c5794981c35ba894ce27d3e772d5c39ecd9cbce01dc8", "10b05d05ad468d0971162e1b222a4aa66caca89da2bb2a93f8f37fb29c4794b0", 14141057),
    }};
    case ChainType::SIGNET: return {ChainType::SIGNET, {0x0a, 0x03, 0xcf, 0x40},
        "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
        {"00000377ae000000000000000000000000000000000000000000000000000000", 210000, {SATOSHI_TIMESTAMP, SATOSHI_KEY, 1598918400, 52613770, 0x1e0377ae},
         {1772055248, 28676833, 0.06736623436338929}},
        38332, "signet", {
        Entry(160000, "0000003ca3c99aff040f2563c2ad8f8ec88bd0fd6b8f0895cfaf1ef90353a62c", "fe0a44309b74d6b5883d246cb419c6221bcccf0b308c9b59b7d70783dbdf928a", 2289496),
        Entry(290000, "0000000577f2741bb30cd9d39d6d71b023afbeb9764f6260786a97969d5c9ac0", "97267e000b4b876800167e71b9123f1529d13b14308abec2888bbd2160d14545", 28547497),
    }};
    case ChainType::REGTEST: return {ChainType::REGTEST, {0xfa, 0xbf, 0xb5, 0xda},
        "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
        {"7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", 150, {SATOSHI_TIMESTAMP, SATOSHI_KEY, 1296688602, 2, 0x207fffff},
         // No history; upstream's rate keeps the estimate below 1 on old tips.
         {0, 0, 0.001}},
        18443, "regtest", {
        Entry(110, "6affe030b7965ab538f820a56ef56c8149b7dc1d1c144af57113be080db7c397", "b952555c8ab81fec46f3d4253b7af256d766ceb39fb7752b9d18cdf4a0141327", 111),
        Entry(200, "385901ccbd69dff6bbd00065d01fb8a9e464dede7cfe0372443884f9b1dcf6b9", "17dcc016d188d16068907cdeb38b75691a118d43053b8cd6a25969419381d13a", 201),
        Entry(299, "7cc695046fec709f8c9394b6f928f81e81fd3ac20977bb68760fa1faa7916ea2", "d2b051ff5e8eef46520350776f4100dd710a63447a8e01d917e92e79751a63e2", 334),
    }};
    }
    throw std::logic_error("unknown chain type");
}
