// Transactions byte for byte: the legacy and BIP144 forms, txid and wtxid,
// the witness-flag errors Bitcoin Core raises, coinbase detection and the
// MoneyRange checks of GetValueOut. Known transactions are checked against
// the ids Bitcoin Core reports for them.

#include <hash.h>
#include <primitives/transaction.h>
#include <streams.h>
#include <test/util/stream_helpers.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <stdexcept>
#include <string>

namespace {

// The mainnet genesis coinbase (version 1, legacy form).
constexpr const char* GENESIS_COINBASE_HEX =
    "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468"
    "652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e642062"
    "61696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a8"
    "28e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000";
constexpr const char* GENESIS_COINBASE_TXID = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";

// Testnet3 transaction 4be105f1...: a coinbase in BIP144 form whose witness
// is the 32-byte reserved value.
constexpr const char* TESTNET_WITNESS_COINBASE_HEX =
    "010000000001010000000000000000000000000000000000000000000000000000000000000000ffffffff3603da1b0e000455"
    "03bd5704c7dd8a0d0ced13bb5785010800000000000a636b706f6f6c122f4e696e6a61506f6f6c2f5345475749542fffffffff"
    "02b4e5a212000000001976a914876fbb82ec05caa6af7a3b5e5a983aae6c6cc6d688ac0000000000000000266a24aa21a9edf9"
    "1c46b49eb8a29089980f02ee6b57e7d63d33b18b4fddac2bcd7db2a39837040120000000000000000000000000000000000000"
    "000000000000000000000000000000000000";
constexpr const char* TESTNET_WITNESS_COINBASE_TXID = "4be105f158ea44aec57bf12c5817d073a712ab131df6f37786872cfc70734188";
constexpr const char* TESTNET_WITNESS_COINBASE_WTXID = "4dec22f59b8c704faf29fd575e6895c1f6f88f0d45e3cfe1995998be36950fe7";

// A spend of two P2SH-P2WSH 3-of-3 multisig inputs into 11 outputs; txid and
// wtxid ("hash") as Bitcoin Core's decoderawtransaction reports them.
constexpr const char* P2WSH_SPEND_HEX =
    "01000000000102ff34f95a672bb6a4f6ff4a7e90fa8c7b3be7e70ffc39bc99be3bda67942e836c00000000"
    "23220020cde476664d3fa347b8d54ef3aee33dcb686a65ced2b5207cbf4ec5eda6b9b46e4f414d4c934ad8"
    "1d330314e888888e3bd22c7dde8aac2ca9227b30d7c40093248af7812201000000232200200af6f6a071a6"
    "9d5417e592ed99d256ddfd8b3b2238ac73f5da1b06fc0b2e79d54f414d4c0ba0c8f505000000001976a914"
    "dcb5898d9036afad9209e6ff0086772795b1441088ac033c0f000000000017a914889f8c10ff2bd4bb9dab"
    "b68c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87"
    "033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c0f000000000017a914"
    "889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb6"
    "8c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c8703"
    "3c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c0f000000000017a91488"
    "9f8c10ff2bd4bb9dabb68c5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c"
    "5c0d700a46925e6c87033c0f000000000017a914889f8c10ff2bd4bb9dabb68c5c0d700a46925e6c870500"
    "47304402200380b8663e727d7e8d773530ef85d5f82c0b067c97ae927800a0876a1f01d8e2022021ee611e"
    "f6507dfd217add2cd60a8aea3cbcfec034da0bebf3312d19577b8c290147304402207bd9943ce1c2c5547b"
    "120683fd05d78d23d73be1a5b5a2074ff586b9c853ed4202202881dcf435088d663c9af7b23efb3c03b9db"
    "c0c899b247aa94a74d9b4b3c84f501483045022100ba12bba745af3f18f6e56be70f8382ca8e107d1ed5ce"
    "aa3e8c360d5ecf78886f022069b38ebaac8fe6a6b97b497cbbb115f3176f7213540bef08f9292e5a72de52"
    "de01695321023c9cd9c6950ffee24772be948a45dc5ef1986271e46b686cb52007bac214395a2102756e27"
    "cb004af05a6e9faed81fd68ff69959e3c64ac8c9f6cd0e08fd0ad0e75d2103fa40da236bd82202a985a910"
    "4e851080b5940812685769202a3b43e4a8b13e6a53ae050048304502210098b9687b81d725a7970d1eee91"
    "ff6b89bc9832c2e0e3fb0d10eec143930b006f02206f77ce19dc58ecbfef9221f81daad90bb4f468df3912"
    "12abc4f084fe2cc9bdef01483045022100e5479f81a3ad564103da5e2ec8e12f61f3ac8d312ab68763c1dd"
    "d7bae94c20610220789b81b7220b27b681b1b2e87198897376ba9d033bc387f084c8b8310c8539c2014830"
    "45022100aa1cc48a2d256c0e556616444cc08ae4959d464e5ffff2ae09e3550bdab6ce9f02207192d5e332"
    "9a56ba7b1ead724634d104f1c3f8749fe6081e6233aee3e855817a016953210260de9cc68658c61af984e3"
    "ab0281d17cfca1cc035966d335f474932d5e6c5422210355fbb768ce3ce39360277345dbb5f376e706459e"
    "5a2b5e0e09a535e61690647021023222ceec58b94bd25925dd9743dae6b928737491bd940fc5dd7c6f5d5f"
    "2adc1e53ae00000000";
constexpr const char* P2WSH_SPEND_TXID = "9652aa62b0e748caeec40c4cb7bc17c6792435cc3dfe447dd1ca24f912a1c6ec";
constexpr const char* P2WSH_SPEND_WTXID = "d6ac4a5e61657c4c604dcde855a1db74ec6b3e54f32695d72c5e11c7761ea1b4";

// Parses a whole transaction; leftover bytes would mean the reader stopped early.
CMutableTransaction ParseMutable(const std::string& hex)
{
    DataStream stream{ParseHexOrThrow(hex)};
    CMutableTransaction tx;
    stream >> tx;
    BOOST_CHECK_EQUAL(stream.size(), 0U);
    return tx;
}

uint256 FilledHash(unsigned char byte)
{
    std::array<unsigned char, 32> bytes;
    bytes.fill(byte);
    return uint256{bytes};
}

// One input with a two-item witness, one output; the pieces of its expected
// encoding are spelled out in HAND_BUILT_* below.
CMutableTransaction HandBuilt()
{
    CMutableTransaction tx;
    tx.version = 2;
    tx.vin.emplace_back(COutPoint{FilledHash(0x11), 1}, CScript{}, 0xfffffffd);
    tx.vin[0].scriptWitness.stack = {{0x01}, {0xab, 0xcd}};
    tx.vout.emplace_back(1000, CScript{0x51});
    tx.nLockTime = 101;
    return tx;
}

const std::string HAND_BUILT_VERSION = "02000000";
const std::string HAND_BUILT_MARKER_FLAG = "0001";
const std::string HAND_BUILT_INPUTS = "01"                                                                // count
                                      "1111111111111111111111111111111111111111111111111111111111111111" // txid
                                      "01000000"                                                          // vout
                                      "00"                                                                // scriptSig
                                      "fdffffff";                                                         // nSequence
const std::string HAND_BUILT_OUTPUTS = "01" "e803000000000000" "0151";
const std::string HAND_BUILT_WITNESS = "02" "0101" "02abcd";
const std::string HAND_BUILT_LOCKTIME = "65000000";

// A transaction with one input and no outputs, in witness form with the given
// flag byte and the given witness stack bytes.
std::string WithFlag(const std::string& flag, const std::string& witness)
{
    return "02000000" "00" + flag + HAND_BUILT_INPUTS + "00" + witness + "00000000";
}

void CheckParseFails(const std::string& hex, const std::string& reason)
{
    DataStream stream{ParseHexOrThrow(hex)};
    CMutableTransaction tx;
    BOOST_CHECK_EXCEPTION(stream >> tx, std::ios_base::failure, HasReason{reason});
}

} // namespace

BOOST_AUTO_TEST_SUITE(transaction_tests)

BOOST_AUTO_TEST_CASE(genesis_coinbase)
{
    const CTransaction tx{ParseMutable(GENESIS_COINBASE_HEX)};
    BOOST_CHECK_EQUAL(tx.GetHash().GetHex(), GENESIS_COINBASE_TXID);
    BOOST_CHECK(tx.GetWitnessHash() == tx.GetHash());
    BOOST_CHECK(!tx.HasWitness());
    BOOST_CHECK(tx.IsCoinBase());
    BOOST_CHECK_EQUAL(tx.version, 1);
    BOOST_CHECK_EQUAL(tx.nLockTime, 0U);
    BOOST_CHECK_EQUAL(tx.vin[0].nSequence, CTxIn::SEQUENCE_FINAL);
    BOOST_CHECK_EQUAL(tx.vin[0].scriptSig.size(), 0x4dU);
    BOOST_CHECK_EQUAL(tx.GetValueOut(), 50 * COIN);
    BOOST_CHECK_EQUAL(SerializedHex(tx), GENESIS_COINBASE_HEX);
}

BOOST_AUTO_TEST_CASE(witness_coinbase)
{
    const CTransaction tx{ParseMutable(TESTNET_WITNESS_COINBASE_HEX)};
    BOOST_CHECK(tx.HasWitness());
    BOOST_CHECK(tx.IsCoinBase());
    BOOST_CHECK_EQUAL(tx.GetHash().GetHex(), TESTNET_WITNESS_COINBASE_TXID);
    BOOST_CHECK_EQUAL(tx.GetWitnessHash().GetHex(), TESTNET_WITNESS_COINBASE_WTXID);
    // The wtxid is by definition the hash of the bytes as received.
    BOOST_CHECK(tx.GetWitnessHash() == Hash256(ParseHexOrThrow(TESTNET_WITNESS_COINBASE_HEX)));
    BOOST_REQUIRE_EQUAL(tx.vin[0].scriptWitness.stack.size(), 1U);
    BOOST_CHECK(tx.vin[0].scriptWitness.stack[0] == std::vector<unsigned char>(32, 0));
    BOOST_CHECK_EQUAL(SerializedHex(tx), TESTNET_WITNESS_COINBASE_HEX);
}

BOOST_AUTO_TEST_CASE(p2wsh_spend)
{
    const CTransaction tx{ParseMutable(P2WSH_SPEND_HEX)};
    BOOST_CHECK_EQUAL(tx.GetHash().GetHex(), P2WSH_SPEND_TXID);
    BOOST_CHECK_EQUAL(tx.GetWitnessHash().GetHex(), P2WSH_SPEND_WTXID);
    BOOST_CHECK(!tx.IsCoinBase());
    BOOST_REQUIRE_EQUAL(tx.vin.size(), 2U);
    BOOST_CHECK_EQUAL(tx.vout.size(), 11U);
    BOOST_CHECK_EQUAL(tx.vin[0].scriptWitness.stack.size(), 5U);
    BOOST_CHECK_EQUAL(tx.vin[1].scriptWitness.stack.size(), 5U);
    BOOST_CHECK_EQUAL(tx.GetValueOut(), 109'977'790);
    BOOST_CHECK_EQUAL(SerializedHex(tx), P2WSH_SPEND_HEX);

    // Stripped of its witness it has a shorter, legacy encoding with the same
    // txid, and that txid is now also its wtxid.
    CMutableTransaction stripped{tx};
    for (CTxIn& in : stripped.vin) in.scriptWitness.stack.clear();
    const CTransaction legacy{stripped};
    BOOST_CHECK(!legacy.HasWitness());
    BOOST_CHECK(legacy.GetHash() == tx.GetHash());
    BOOST_CHECK(legacy.GetWitnessHash() == tx.GetHash());
    const std::string legacy_hex = SerializedHex(legacy);
    BOOST_CHECK_EQUAL(legacy_hex.substr(8, 4), "02ff"); // input count, then the first txid byte: no marker
    BOOST_CHECK(Hash256(ParseHexOrThrow(legacy_hex)) == tx.GetHash());
    BOOST_CHECK(CTransaction{ParseMutable(legacy_hex)} == legacy);
}

// Hashes taken from the bytes a transaction was read from (what a block read
// from memory does) are Bitcoin Core's txid and wtxid, with and without a
// witness.
BOOST_AUTO_TEST_CASE(hashes_from_read_bytes)
{
    struct Vector {
        const char* hex;
        std::string txid;
        std::string wtxid;
    };
    const std::vector<Vector> vectors{
        {GENESIS_COINBASE_HEX, GENESIS_COINBASE_TXID, GENESIS_COINBASE_TXID},
        {TESTNET_WITNESS_COINBASE_HEX, TESTNET_WITNESS_COINBASE_TXID, TESTNET_WITNESS_COINBASE_WTXID},
        {P2WSH_SPEND_HEX, P2WSH_SPEND_TXID, P2WSH_SPEND_WTXID},
    };
    for (const Vector& vector : vectors) {
        const auto bytes = ParseHexOrThrow(vector.hex);
        SpanReader reader{bytes};
        CMutableTransaction mtx;
        reader >> mtx;
        BOOST_REQUIRE(reader.empty());
        const CTransaction tx{std::move(mtx), std::as_bytes(std::span{bytes})};
        BOOST_CHECK_EQUAL(tx.GetHash().GetHex(), vector.txid);
        BOOST_CHECK_EQUAL(tx.GetWitnessHash().GetHex(), vector.wtxid);
        BOOST_CHECK_EQUAL(SerializedHex(tx), vector.hex);
    }
    // Bytes too short for the witness the transaction holds are a caller's
    // bug, refused rather than hashed out of bounds.
    const auto bytes = ParseHexOrThrow(P2WSH_SPEND_HEX);
    SpanReader reader{bytes};
    CMutableTransaction mtx;
    reader >> mtx;
    BOOST_CHECK_THROW((CTransaction{std::move(mtx), std::as_bytes(std::span{bytes}.first(20))}), std::logic_error);
}

BOOST_AUTO_TEST_CASE(hand_built_layout)
{
    const CMutableTransaction mtx = HandBuilt();
    const CTransaction tx{mtx};
    const std::string witness_hex = HAND_BUILT_VERSION + HAND_BUILT_MARKER_FLAG + HAND_BUILT_INPUTS +
                                    HAND_BUILT_OUTPUTS + HAND_BUILT_WITNESS + HAND_BUILT_LOCKTIME;
    const std::string legacy_hex = HAND_BUILT_VERSION + HAND_BUILT_INPUTS + HAND_BUILT_OUTPUTS + HAND_BUILT_LOCKTIME;
    BOOST_CHECK_EQUAL(SerializedHex(mtx), witness_hex);
    BOOST_CHECK_EQUAL(SerializedHex(tx), witness_hex);
    BOOST_CHECK(tx.GetHash() == Hash256(ParseHexOrThrow(legacy_hex)));
    BOOST_CHECK(tx.GetWitnessHash() == Hash256(ParseHexOrThrow(witness_hex)));
    BOOST_CHECK(mtx.GetHash() == tx.GetHash());

    // Both forms read back to the same fields, minus the witness for legacy.
    BOOST_CHECK(CTransaction{ParseMutable(witness_hex)} == tx);
    const CMutableTransaction from_legacy = ParseMutable(legacy_hex);
    BOOST_CHECK(!from_legacy.HasWitness());
    BOOST_CHECK(from_legacy.GetHash() == tx.GetHash());
}

BOOST_AUTO_TEST_CASE(input_from_txid_and_index)
{
    // Core's CTxIn(txid, n, ...) names the same input as CTxIn(COutPoint{txid, n}, ...).
    const uint256 txid{uint8_t{7}};
    const CScript script_sig{std::vector<unsigned char>{0x51}};
    BOOST_CHECK(CTxIn(txid, 3) == CTxIn(COutPoint(txid, 3)));
    BOOST_CHECK(CTxIn(txid, 3, script_sig, 5) == CTxIn(COutPoint{txid, 3}, script_sig, 5));
    const CTxIn in(txid, 3);
    BOOST_CHECK(in.prevout == COutPoint(txid, 3));
    BOOST_CHECK(in.scriptSig.empty());
    BOOST_CHECK_EQUAL(in.nSequence, CTxIn::SEQUENCE_FINAL);

    CMutableTransaction mtx;
    mtx.vin.emplace_back(txid, 0);
    BOOST_CHECK(mtx.vin[0].prevout == COutPoint(txid, 0));
}

BOOST_AUTO_TEST_CASE(txid_ignores_witness)
{
    CMutableTransaction mtx = HandBuilt();
    const CTransaction original{mtx};

    mtx.vin[0].scriptWitness.stack[1].push_back(0xef);
    const CTransaction other_witness{mtx};
    BOOST_CHECK(other_witness.GetHash() == original.GetHash());
    BOOST_CHECK(other_witness.GetWitnessHash() != original.GetWitnessHash());
    BOOST_CHECK(!(other_witness == original));

    mtx = HandBuilt();
    mtx.vin[0].scriptSig.push_back(0x00);
    const CTransaction other_script_sig{mtx};
    BOOST_CHECK(other_script_sig.GetHash() != original.GetHash());

    // An empty stack on every input means no witness at all.
    mtx = HandBuilt();
    mtx.vin[0].scriptWitness.stack.clear();
    BOOST_CHECK(!CTransaction{mtx}.HasWitness());
    BOOST_CHECK(CTransaction{mtx}.GetWitnessHash() == original.GetHash());
}

BOOST_AUTO_TEST_CASE(witness_flag_errors)
{
    // Flag 1 with every stack empty: the legacy form says the same in fewer bytes.
    CheckParseFails(WithFlag("01", "00"), "Superfluous witness record");
    // Bit 0 is the only flag defined; Core reads the witness for it first,
    // so flag 3 with empty stacks fails on the witness, not the unknown bit.
    CheckParseFails(WithFlag("03", "00"), "Superfluous witness record");
    CheckParseFails(WithFlag("03", "010101"), "Unknown transaction optional data");
    CheckParseFails(WithFlag("02", ""), "Unknown transaction optional data");
    CheckParseFails(WithFlag("80", ""), "Unknown transaction optional data");
    // The same bytes with flag 1 and a real stack are fine.
    const CMutableTransaction good = ParseMutable(WithFlag("01", "010101"));
    BOOST_CHECK(good.HasWitness());
    BOOST_CHECK(good.vout.empty());

    // A witness stack cut short (its count says two items, none follow) is
    // an ordinary end-of-data failure.
    DataStream truncated{ParseHexOrThrow(WithFlag("01", "02").substr(0, 2 * 50))};
    CMutableTransaction tx;
    BOOST_CHECK_THROW(truncated >> tx, std::ios_base::failure);
}

BOOST_AUTO_TEST_CASE(empty_transaction)
{
    // No inputs and no outputs: the byte after the empty input list is read
    // as a flag, and a zero flag means "legacy, no outputs follow".
    const std::string hex = "02000000" "00" "00" "00000000";
    const CMutableTransaction mtx = ParseMutable(hex);
    const CTransaction tx{mtx};
    BOOST_CHECK(tx.IsNull());
    BOOST_CHECK(!tx.IsCoinBase());
    BOOST_CHECK_EQUAL(SerializedHex(tx), hex);
}

BOOST_AUTO_TEST_CASE(coinbase_detection)
{
    CMutableTransaction mtx;
    mtx.vin.emplace_back(COutPoint{});
    mtx.vout.emplace_back(50 * COIN, CScript{0x51});
    BOOST_CHECK(CTransaction{mtx}.IsCoinBase());

    // A second input disqualifies it, even if the first is null.
    mtx.vin.emplace_back(COutPoint{FilledHash(0x22), 0});
    BOOST_CHECK(!CTransaction{mtx}.IsCoinBase());

    // Null means hash zero AND index 0xffffffff: index 0 spends a real slot.
    mtx.vin = {CTxIn{COutPoint{uint256{}, 0}}};
    BOOST_CHECK(!CTransaction{mtx}.IsCoinBase());

    mtx.vin = {CTxIn{COutPoint{FilledHash(0x22), COutPoint::NULL_INDEX}}};
    BOOST_CHECK(!CTransaction{mtx}.IsCoinBase());

    mtx.vin.clear();
    BOOST_CHECK(!CTransaction{mtx}.IsCoinBase());
}

BOOST_AUTO_TEST_CASE(value_out_range)
{
    CMutableTransaction mtx;
    mtx.vout = {CTxOut{MAX_MONEY - 1, {}}, CTxOut{1, {}}};
    BOOST_CHECK_EQUAL(CTransaction{mtx}.GetValueOut(), MAX_MONEY);

    mtx.vout = {CTxOut{0, {}}};
    BOOST_CHECK_EQUAL(CTransaction{mtx}.GetValueOut(), 0);

    mtx.vout = {CTxOut{-1, {}}};
    BOOST_CHECK_THROW(CTransaction{mtx}.GetValueOut(), std::runtime_error);

    mtx.vout = {CTxOut{MAX_MONEY + 1, {}}};
    BOOST_CHECK_THROW(CTransaction{mtx}.GetValueOut(), std::runtime_error);

    // Each output in range, the sum not.
    mtx.vout = {CTxOut{MAX_MONEY, {}}, CTxOut{1, {}}};
    BOOST_CHECK_THROW(CTransaction{mtx}.GetValueOut(), std::runtime_error);

    // A huge value that would wrap a naive sum back into range.
    mtx.vout = {CTxOut{INT64_MAX, {}}, CTxOut{INT64_MAX, {}}, CTxOut{2, {}}};
    BOOST_CHECK_THROW(CTransaction{mtx}.GetValueOut(), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(mutable_round_trip)
{
    const CTransaction tx{ParseMutable(P2WSH_SPEND_HEX)};
    CMutableTransaction copy{tx};
    BOOST_CHECK(copy.GetHash() == tx.GetHash());
    const CTransaction moved{std::move(copy)};
    BOOST_CHECK(moved == tx);
    BOOST_CHECK(moved.GetWitnessHash() == tx.GetWitnessHash());

    const CTransactionRef ref = MakeTransactionRef(CMutableTransaction{tx});
    BOOST_CHECK(ref->GetHash() == tx.GetHash());

    // Reading into a used object replaces every field, witness included.
    CMutableTransaction reused = HandBuilt();
    DataStream stream{ParseHexOrThrow(GENESIS_COINBASE_HEX)};
    stream >> reused;
    BOOST_CHECK(!reused.HasWitness());
    BOOST_CHECK_EQUAL(reused.GetHash().GetHex(), GENESIS_COINBASE_TXID);
}

BOOST_AUTO_TEST_SUITE_END()
