// Proof of work (kernel/pow.h): compact target decoding at its edges
// (sign bit, overflow by exponent, zero), hash-versus-target comparison on
// both sides of the boundary, every network's genesis block against its pow
// limit, and the work that chain selection adds up.

#include <consensus/merkle.h>
#include <kernel/chainparams.h>
#include <kernel/pow.h>

#include <boost/test/unit_test.hpp>

#include <string>

namespace {

uint256 HashOf(std::string_view hex)
{
    auto hash = uint256::FromHex(hex);
    BOOST_REQUIRE_MESSAGE(hash, "bad hash literal " << hex);
    return *hash;
}

std::string TargetHex(uint32_t n_bits) { return ArithToUint256(DecodeCompact(n_bits).target).GetHex(); }

// 64 hex digits: the given leading digits, then zeros.
std::string Padded(std::string leading) { return leading + std::string(64 - leading.size(), '0'); }

} // namespace

BOOST_AUTO_TEST_SUITE(pow_tests)

BOOST_AUTO_TEST_CASE(arith_conversions)
{
    BOOST_CHECK(UintToArith256(uint256{}) == 0);
    BOOST_CHECK(UintToArith256(HashOf(std::string(63, '0') + "1")) == 1);
    // The hex shows the number big-endian: its first digit is the top nibble.
    BOOST_CHECK(UintToArith256(HashOf(Padded("8"))) == arith_uint256{1} << 255);
    const std::string mixed = "0123456789abcdef00112233445566778899aabbccddeeff0f1e2d3c4b5a6978";
    BOOST_CHECK(UintToArith256(HashOf(mixed)) == arith_uint256{"0x" + mixed});
    BOOST_CHECK_EQUAL(ArithToUint256(UintToArith256(HashOf(mixed))).GetHex(), mixed);
}

BOOST_AUTO_TEST_CASE(compact_decoding)
{
    struct Case {
        uint32_t n_bits;
        std::string target_hex;
        bool negative;
        bool overflow;
    };
    const std::vector<Case> cases{
        {0x00000000, Padded(""), false, false},
        {0x00123456, Padded(""), false, false},          // size 0 shifts everything out
        {0x01003456, Padded(""), false, false},
        {0x01123456, std::string(62, '0') + "12", false, false},
        {0x02008000, std::string(62, '0') + "80", false, false},
        {0x05009234, std::string(56, '0') + "92340000", false, false},
        {0x04123456, std::string(56, '0') + "12345600", false, false},
        {0x04923456, std::string(56, '0') + "12345600", true, false},  // sign bit set
        {0x01fedcba, std::string(62, '0') + "7e", true, false},         // sign survives the shift
        {0x04800000, Padded(""), false, false},                         // sign bit with zero mantissa
        {0x1d00ffff, Padded("00000000ffff"), false, false},             // main's difficulty 1
        {0x1e0377ae, Padded("00000377ae"), false, false},               // signet's
        {0x207fffff, Padded("7fffff"), false, false},                   // regtest's
        {0x20123456, Padded("123456"), false, false},
        {0x21008000, Padded("8"), false, false},                        // 2^255: still fits
        {0x220000ff, Padded("ff"), false, false},
        {0x21010000, Padded(""), false, true},                          // 3 significant bytes at size 33
        {0x22000100, Padded(""), false, true},                          // 2 significant bytes at size 34
        {0x23000001, Padded(""), false, true},                          // any mantissa at size 35
        {0xff123456, Padded(""), false, true},
        {0xff000000, Padded(""), false, false},                         // zero never overflows
    };
    for (const Case& c : cases) {
        const CompactTarget decoded = DecodeCompact(c.n_bits);
        BOOST_TEST_CONTEXT("nBits " << std::hex << c.n_bits)
        {
            BOOST_CHECK_EQUAL(decoded.negative, c.negative);
            BOOST_CHECK_EQUAL(decoded.overflow, c.overflow);
            if (!c.overflow) BOOST_CHECK_EQUAL(TargetHex(c.n_bits), c.target_hex);
        }
    }
}

BOOST_AUTO_TEST_CASE(hash_against_target)
{
    const uint256 main_limit = CChainParams::ForChain(ChainType::MAIN).PowLimit();
    const arith_uint256 target = DecodeCompact(0x1d00ffff).target;
    // Equal passes, one above fails.
    BOOST_CHECK(CheckProofOfWork(ArithToUint256(target), 0x1d00ffff, main_limit));
    BOOST_CHECK(!CheckProofOfWork(ArithToUint256(target + 1), 0x1d00ffff, main_limit));
    BOOST_CHECK(CheckProofOfWork(uint256{}, 0x1d00ffff, main_limit));

    // Even the zero hash fails an invalid target: zero, negative, overflowing.
    for (uint32_t invalid : {0x00000000u, 0x01003456u, 0x04923456u, 0x23000001u, 0xff123456u}) {
        BOOST_CHECK_MESSAGE(!CheckProofOfWork(uint256{}, invalid, main_limit), "nBits " << std::hex << invalid);
        BOOST_CHECK(GetBlockProof(invalid) == 0);
    }
    // A target easier than the chain's limit fails too.
    BOOST_CHECK(!CheckProofOfWork(uint256{}, 0x1d01ffff, main_limit));
    BOOST_CHECK(!CheckProofOfWork(uint256{}, 0x207fffff, main_limit));
    const uint256 regtest_limit = CChainParams::ForChain(ChainType::REGTEST).PowLimit();
    BOOST_CHECK(CheckProofOfWork(uint256{}, 0x207fffff, regtest_limit));
    BOOST_CHECK(!CheckProofOfWork(uint256{}, 0x21008000, regtest_limit));
}

BOOST_AUTO_TEST_CASE(pow_limits)
{
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::MAIN).PowLimit().GetHex(), "00000000" + std::string(56, 'f'));
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::TESTNET).PowLimit().GetHex(), "00000000" + std::string(56, 'f'));
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::TESTNET4).PowLimit().GetHex(), "00000000" + std::string(56, 'f'));
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::SIGNET).PowLimit().GetHex(), Padded("00000377ae"));
    BOOST_CHECK_EQUAL(CChainParams::ForChain(ChainType::REGTEST).PowLimit().GetHex(), "7" + std::string(63, 'f'));
}

BOOST_AUTO_TEST_CASE(genesis_blocks_meet_their_targets)
{
    const std::string satoshi_root = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
    const std::vector<std::pair<ChainType, std::string>> roots{
        {ChainType::MAIN, satoshi_root},
        {ChainType::TESTNET, satoshi_root},
        {ChainType::TESTNET4, "7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e"},
        {ChainType::SIGNET, satoshi_root},
        {ChainType::REGTEST, satoshi_root},
    };
    for (const auto& [chain, root] : roots) {
        const auto params = CChainParams::ForChain(chain);
        const CBlock& genesis = params.GenesisBlock();
        BOOST_TEST_CONTEXT(params.GetChainTypeString())
        {
            BOOST_CHECK_EQUAL(genesis.GetHash().GetHex(), params.GenesisHash().GetHex());
            BOOST_CHECK_EQUAL(genesis.hashMerkleRoot.GetHex(), root);
            BOOST_CHECK_EQUAL(BlockMerkleRoot(genesis).GetHex(), root);
            BOOST_CHECK(genesis.hashPrevBlock.IsNull());
            BOOST_CHECK(CheckProofOfWork(genesis.GetHash(), genesis.nBits, params.PowLimit()));
            // The same hash under a target 2^16 times harder fails.
            const uint32_t harder = genesis.nBits - 0x02000000;
            BOOST_CHECK(!CheckProofOfWork(genesis.GetHash(), harder, params.PowLimit()));
        }
    }
}

BOOST_AUTO_TEST_CASE(block_proof)
{
    // regtest: 2^256 / (7fffff * 2^232 + 1) is just over 2.
    BOOST_CHECK(GetBlockProof(0x207fffff) == 2);
    // main's difficulty 1: getblockheader reports chainwork 0x100010001 for the genesis block.
    BOOST_CHECK(GetBlockProof(0x1d00ffff) == arith_uint256{"0x100010001"});
    BOOST_CHECK_EQUAL(ArithToUint256(GetBlockProof(0x1d00ffff)).GetHex(), std::string(55, '0') + "100010001");
    BOOST_CHECK(GetBlockProof(0x1e0377ae) == 4838420);
    BOOST_CHECK(GetBlockProof(0x17034219) == arith_uint256{"371041696979166003650763"});
    // The easiest valid target, 2^255, is worth one hash.
    BOOST_CHECK(GetBlockProof(0x21008000) == 1);
    // target = 1: 2^256 / 2, the top bit alone.
    BOOST_CHECK_EQUAL(ArithToUint256(GetBlockProof(0x03000001)).GetHex(), Padded("8"));
    // target = 2^23 - 1, the largest mantissa at exponent 3: exactly 2^233.
    BOOST_CHECK_EQUAL(ArithToUint256(GetBlockProof(0x037fffff)).GetHex(), Padded("000002"));
    // The largest target that does not overflow still proves 1.
    BOOST_CHECK(GetBlockProof(0x2100ffff) == 1);
    // Zero, shifted to zero, negative, overflowing: nothing.
    for (const uint32_t nothing : {0x00000000u, 0x01003456u, 0x04923456u, 0x23000001u, 0xff123456u, 0x21010000u}) {
        BOOST_CHECK_MESSAGE(GetBlockProof(nothing) == 0, "nBits " << nothing << " should prove nothing");
    }
    // Work adds up: three regtest blocks on a main-difficulty block.
    BOOST_CHECK(GetBlockProof(0x1d00ffff) + 3 * GetBlockProof(0x207fffff) == arith_uint256{"0x100010007"});
}

BOOST_AUTO_TEST_SUITE_END()
