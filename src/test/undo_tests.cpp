// Undo data (kernel/undo.h), byte for byte: hand-checked encodings of known
// coins, the dummy byte only above height 0, round trips of every script
// shape, and refusal of truncated or out-of-range input.

#include <kernel/undo.h>
#include <streams.h>
#include <test/util/coin_compare.h>
#include <test/util/stream_helpers.h>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

const std::string HASH20(40, '1'); // 20 bytes of 0x11

CScript P2PKH() { return CScript{ParseHexOrThrow("76a914" + HASH20 + "88ac")}; }
CScript P2SH() { return CScript{ParseHexOrThrow("a914" + HASH20 + "87")}; }
// The genesis output key: a valid uncompressed point, so it compresses to 33 bytes.
CScript P2PKUncompressed()
{
    return CScript{ParseHexOrThrow("4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac")};
}
CScript P2PKCompressed()
{
    return CScript{ParseHexOrThrow("2102678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb6ac")};
}

std::string UndoCoinHex(const Coin& coin)
{
    DataStream stream;
    SerializeUndoCoin(stream, coin);
    return UnreadHex(stream);
}

Coin ReadUndoCoin(std::string_view hex)
{
    DataStream stream{ParseHexOrThrow(hex)};
    Coin coin;
    UnserializeUndoCoin(stream, coin);
    BOOST_CHECK_MESSAGE(stream.empty(), "bytes left over after " << hex);
    return coin;
}

template <typename T>
T FromHex(std::string_view hex)
{
    DataStream stream{ParseHexOrThrow(hex)};
    T value;
    stream >> value;
    BOOST_CHECK_MESSAGE(stream.empty(), "bytes left over after " << hex);
    return value;
}

// Coins of every compression shape, both flags, and heights at VARINT
// length boundaries (height * 2 + coinbase crosses 127 and 16511).
std::vector<Coin> VariedCoins()
{
    const std::vector<CScript> scripts{P2PKH(), P2SH(), P2PKUncompressed(), P2PKCompressed(), CScript{}, CScript{0x51},
                                       CScript(std::vector<unsigned char>(300, 0xab))};
    const std::vector<int> heights{0, 1, 63, 64, 8255, 8256, 840000, 0x7fffffff};
    const std::vector<CAmount> amounts{0, 1, 546, COIN, 50 * COIN, 1234567891, MAX_MONEY};
    std::vector<Coin> coins;
    for (size_t i = 0; i < heights.size() * scripts.size(); ++i) {
        coins.emplace_back(CTxOut{amounts[(i / scripts.size()) % amounts.size()], scripts[i % scripts.size()]}, heights[i % heights.size()], i % 3 == 0);
    }
    return coins;
}

} // namespace

BOOST_AUTO_TEST_SUITE(undo_tests)

BOOST_AUTO_TEST_CASE(known_coins_exact_bytes)
{
    // 50 BTC P2PKH coinbase output from height 1: code 1*2+1 = 03, dummy 00,
    // amount 50 BTC compresses to 50 = 0x32, script shape 00 + key hash.
    const Coin coinbase{CTxOut{50 * COIN, P2PKH()}, 1, true};
    BOOST_CHECK_EQUAL(UndoCoinHex(coinbase), "030032" "00" + HASH20);

    // 1 BTC P2SH from height 300, not coinbase: code 600 = VARINT 83 58,
    // dummy 00, 1 BTC compresses to 9, script shape 01 + script hash.
    const Coin p2sh{CTxOut{COIN, P2SH()}, 300, false};
    BOOST_CHECK_EQUAL(UndoCoinHex(p2sh), "8358" "00" "09" "01" + HASH20);

    // The same bytes as the chainstate's Coin format with the dummy inserted
    // after the code, for any height above 0.
    for (const Coin& coin : {coinbase, p2sh}) {
        std::string chainstate = SerializedHex(coin);
        const size_t code_length = coin.nHeight == 1 ? 2 : 4;
        chainstate.insert(code_length, "00");
        BOOST_CHECK_EQUAL(UndoCoinHex(coin), chainstate);
    }
}

BOOST_AUTO_TEST_CASE(height_zero_has_no_dummy)
{
    // Code 0 (height 0, not coinbase), amount 0, empty generic script (size 0 + 6).
    const Coin zero{CTxOut{0, CScript{}}, 0, false};
    BOOST_CHECK_EQUAL(UndoCoinHex(zero), "000006");
    // Coinbase flag alone: code 01, still no dummy.
    const Coin zero_coinbase{CTxOut{0, CScript{}}, 0, true};
    BOOST_CHECK_EQUAL(UndoCoinHex(zero_coinbase), "010006");
    BOOST_CHECK(SameCoin(ReadUndoCoin("010006"), zero_coinbase));

    // Read back, a 00 after a height-0 code is the amount, not a dummy.
    const Coin read = ReadUndoCoin("00" "09" "01" + HASH20);
    BOOST_CHECK_EQUAL(read.nHeight, 0u);
    BOOST_CHECK_EQUAL(read.out.nValue, COIN);
    BOOST_CHECK(read.out.scriptPubKey == P2SH());
}

BOOST_AUTO_TEST_CASE(dummy_accepts_any_32_bit_value)
{
    // Pre-0.15 writers stored the transaction version there; it is ignored,
    // and written back as 00.
    const Coin expected{CTxOut{COIN, P2SH()}, 300, false};
    for (const std::string dummy : {"00", "01", "7f", "8000", "8efefefe7f"}) {
        const Coin read = ReadUndoCoin("8358" + dummy + "0901" + HASH20);
        BOOST_CHECK_MESSAGE(SameCoin(read, expected), "dummy " << dummy);
        BOOST_CHECK_EQUAL(UndoCoinHex(read), "8358" "00" "0901" + HASH20);
    }
    // 2^32 (VARINT 8efefeff00) is beyond the 32-bit field upstream reads into.
    DataStream stream{ParseHexOrThrow("8358" "8efefeff00" "0901" + HASH20)};
    Coin coin;
    BOOST_CHECK_EXCEPTION(UnserializeUndoCoin(stream, coin), std::ios_base::failure, HasReason{"ReadVarInt(): size too large"});
}

BOOST_AUTO_TEST_CASE(tx_and_block_undo_exact_bytes)
{
    const Coin a{CTxOut{50 * COIN, P2PKH()}, 1, true};
    const Coin b{CTxOut{0, CScript{}}, 0, false};
    CBlockUndo block_undo;
    block_undo.vtxundo.push_back(CTxUndo{{a, b}});
    block_undo.vtxundo.push_back(CTxUndo{});
    const std::string a_hex = "030032" "00" + HASH20;
    const std::string expected = "02" "02" + a_hex + "000006" + "00";
    BOOST_CHECK_EQUAL(SerializedHex(block_undo), expected);
    BOOST_CHECK(SameUndo(FromHex<CBlockUndo>(expected), block_undo));

    // The block of the genesis or of a coinbase-only block: no records.
    BOOST_CHECK_EQUAL(SerializedHex(CBlockUndo{}), "00");
    BOOST_CHECK(FromHex<CBlockUndo>("00").vtxundo.empty());
}

BOOST_AUTO_TEST_CASE(round_trips)
{
    const auto coins = VariedCoins();
    for (const Coin& coin : coins) {
        const std::string hex = UndoCoinHex(coin);
        const Coin read = ReadUndoCoin(hex);
        BOOST_CHECK_MESSAGE(SameCoin(read, coin), "coin " << hex);
        BOOST_CHECK_EQUAL(read.nHeight, coin.nHeight);
        BOOST_CHECK_EQUAL(read.fCoinBase, coin.fCoinBase);
    }
    // Split the coins over transactions of 0..6 inputs.
    CBlockUndo block_undo;
    for (size_t i = 0, take = 0; i < coins.size(); i += take, take = (take + 1) % 7) {
        CTxUndo& tx_undo = block_undo.vtxundo.emplace_back();
        for (size_t j = i; j < i + take && j < coins.size(); ++j) tx_undo.vprevout.push_back(coins[j]);
    }
    const std::string hex = SerializedHex(block_undo);
    const auto read = FromHex<CBlockUndo>(hex);
    BOOST_CHECK(SameUndo(read, block_undo));
    BOOST_CHECK_EQUAL(SerializedHex(read), hex);
}

BOOST_AUTO_TEST_CASE(truncation_rejected)
{
    CBlockUndo block_undo;
    block_undo.vtxundo.push_back(CTxUndo{VariedCoins()});
    DataStream full;
    full << block_undo;
    const auto bytes = full.Unread();
    // Every strict prefix ends inside some field.
    for (size_t length = 0; length < bytes.size(); ++length) {
        DataStream stream{bytes.first(length)};
        CBlockUndo read;
        BOOST_CHECK_THROW(stream >> read, std::ios_base::failure);
    }
}

BOOST_AUTO_TEST_CASE(out_of_range_rejected)
{
    // Code 2^32: height * 2 + coinbase must fit 32 bits.
    {
        DataStream stream{ParseHexOrThrow("8efefeff00" "00" "0901" + HASH20)};
        Coin coin;
        BOOST_CHECK_EXCEPTION(UnserializeUndoCoin(stream, coin), std::ios_base::failure, HasReason{"ReadVarInt(): size too large"});
    }
    // One more coin record than upstream allows, refused before reading any.
    {
        BOOST_CHECK_EQUAL(MAX_INPUTS_PER_BLOCK, 97560u);
        DataStream stream;
        WriteCompactSize(stream, MAX_INPUTS_PER_BLOCK + 1);
        BOOST_CHECK_EQUAL(UnreadHex(stream), "fe197d0100");
        CTxUndo tx_undo;
        BOOST_CHECK_EXCEPTION(stream >> tx_undo, std::ios_base::failure, HasReason{"Too many input undo records"});
    }
    // The limit itself is a count, not an error: it fails only for lack of data.
    {
        DataStream stream;
        WriteCompactSize(stream, MAX_INPUTS_PER_BLOCK);
        CTxUndo tx_undo;
        BOOST_CHECK_EXCEPTION(stream >> tx_undo, std::ios_base::failure, HasReason{"DataStream::read(): end of data"});
    }
    // Transaction count beyond MAX_SIZE, and a non-canonical count.
    {
        DataStream stream{ParseHexOrThrow("fe01000002")};
        CBlockUndo read;
        BOOST_CHECK_EXCEPTION(stream >> read, std::ios_base::failure, HasReason{"ReadCompactSize(): size too large"});
    }
    {
        DataStream stream{ParseHexOrThrow("fd0100")};
        CBlockUndo read;
        BOOST_CHECK_EXCEPTION(stream >> read, std::ios_base::failure, HasReason{"non-canonical ReadCompactSize()"});
    }
    // An uncompressed-key shape whose x is not on the curve.
    {
        DataStream stream{ParseHexOrThrow("0300" "09" "04" + std::string(62, '0') + "05")};
        Coin coin;
        BOOST_CHECK_EXCEPTION(UnserializeUndoCoin(stream, coin), std::ios_base::failure,
                              HasReason{"compressed script holds a public key that is not on the curve"});
    }
}

BOOST_AUTO_TEST_SUITE_END()
