#include <tools/coin_shape.h>

#include <compressor.h>

#include <algorithm>

namespace {

// Heights at which each type could first and last be created, in per mille
// of the base height: mainnet's activation heights over 840,000 (P2SH
// 173,805; segwit 481,824; taproot 709,632). Uncompressed keys stop at 30%:
// wallets had moved to compressed keys by about block 250,000.
struct Era {
    int from_per_mille;
    int to_per_mille;
};
constexpr std::array<Era, SCRIPT_TYPE_COUNT> ERA{{
    {574, 1000}, // P2WPKH
    {845, 1000}, // P2TR
    {0, 1000},   // P2PKH
    {207, 1000}, // P2SH
    {574, 1000}, // P2WSH
    {0, 1000},   // BARE_MULTISIG
    {0, 1000},   // P2PK_COMPRESSED
    {0, 300},    // P2PK_UNCOMPRESSED
    {0, 1000},   // ODD
}};
static_assert(ERA.size() == SCRIPT_MIX.size());

// Amount decades: weight of [10^d, 10^(d+1)) satoshis per 10,000 coins.
// Most coins hold 1,000 sat to 0.01 BTC; the tail above 1 BTC is thin so
// that the mean stays near mainnet's 0.11 BTC per coin (19.7 million BTC in
// 177 million coins at block 840,000). The last decade stops at 500 BTC.
constexpr std::array<uint32_t, 11> DECADE_WEIGHTS{100, 200, 1100, 1800, 2400, 2361, 1500, 450, 80, 8, 1};
// Benford's law for the leading digit 1..9: together with a uniform rest of
// the digits this is within a few percent of log-uniform inside a decade,
// without floating point.
constexpr std::array<uint32_t, 9> LEADING_DIGIT_WEIGHTS{301, 176, 125, 97, 79, 67, 58, 51, 46};

constexpr std::array<unsigned char, 4> PAY_TO_ANCHOR{OP_1, 0x02, 0x4e, 0x73};

// First bytes of the random nonstandard scripts: opcodes no recognised shape
// starts with, so that ClassifyScript can never mistake one for a standard
// type.
constexpr std::array<unsigned char, 6> ODD_FIRST_BYTES{OP_NOP, OP_IF, OP_DROP, OP_SIZE, OP_CHECKLOCKTIMEVERIFY,
                                                       OP_CHECKSEQUENCEVERIFY};

CAmount Pow10(int exponent)
{
    CAmount value = 1;
    while (exponent-- > 0) value *= 10;
    return value;
}

void AppendRandom(CScript& script, size_t count, GenRandom& rng)
{
    const size_t old_size = script.size();
    script.resize(old_size + count);
    rng.Fill(std::span{script}.subspan(old_size));
}

CScript WithRandomBody(std::initializer_list<unsigned char> head, size_t body, std::initializer_list<unsigned char> tail,
                       GenRandom& rng)
{
    CScript script{head};
    AppendRandom(script, body, rng);
    script.insert(script.end(), tail);
    return script;
}

// A valid uncompressed-key P2PK script. Half of all x coordinates are on the
// curve; the compressor's decompression (the one place allowed to call
// libsecp256k1) tells which and computes y.
CScript ValidUncompressedP2PK(GenRandom& rng)
{
    CompressedScript x(32, 0);
    CScript script;
    while (true) {
        rng.Fill(std::span{x});
        if (DecompressScript(script, 4 | static_cast<unsigned>(rng.Below(2)), x)) return script;
    }
}

CScript CompressedP2PK(GenRandom& rng)
{
    // The x of a valid uncompressed key with either parity byte is a valid
    // compressed key.
    const CScript full = ValidUncompressedP2PK(rng);
    CScript script(35);
    script[0] = 33;
    script[1] = static_cast<unsigned char>(0x02 | rng.Below(2));
    std::copy(full.begin() + 2, full.begin() + 34, script.begin() + 2);
    script[34] = OP_CHECKSIG;
    return script;
}

// m-of-n with n <= 3, mostly the 1-of-3 layout of data-carrying "stamps".
// The keys are random bytes, as a stamp's are: nothing checks them.
CScript BareMultisig(GenRandom& rng)
{
    static constexpr std::array<std::array<unsigned char, 2>, 4> M_OF_N{{{1, 3}, {1, 2}, {2, 3}, {1, 1}}};
    const auto [m, n] = M_OF_N[rng.Pick(std::array<uint32_t, 4>{50, 30, 15, 5})];
    CScript script{static_cast<unsigned char>(OP_1 - 1 + m)};
    for (unsigned i = 0; i < n; ++i) {
        const bool uncompressed = rng.Chance(1500);
        script.push_back(uncompressed ? 65 : 33);
        script.push_back(uncompressed ? 0x04 : static_cast<unsigned char>(0x02 | rng.Below(2)));
        AppendRandom(script, uncompressed ? 64 : 32, rng);
    }
    script.push_back(static_cast<unsigned char>(OP_1 - 1 + n));
    script.push_back(OP_CHECKMULTISIG);
    return script;
}

CScript OddScript(GenRandom& rng)
{
    switch (rng.Pick(std::array<uint32_t, 6>{25, 15, 5, 5, 35, 15})) {
    case 0: return CScript(PAY_TO_ANCHOR.begin(), PAY_TO_ANCHOR.end());
    case 1: { // a witness version no soft fork has defined yet
        const auto program = static_cast<unsigned char>(rng.Range(2, 40));
        return WithRandomBody({static_cast<unsigned char>(rng.Range(OP_2, OP_16)), program}, program, {}, rng);
    }
    case 2: return CScript{};
    case 3: return CScript{OP_1};
    }
    // Nonstandard: mostly short, a few up to the largest spendable size.
    const bool long_script = rng.Chance(3000);
    const size_t size = long_script ? rng.Range(101, rng.Chance(1000) ? MAX_SCRIPT_SIZE : 1000) : rng.Range(1, 100);
    CScript script{ODD_FIRST_BYTES[rng.Below(ODD_FIRST_BYTES.size())]};
    AppendRandom(script, size - 1, rng);
    return script;
}

bool IsBareMultisig(const CScript& s)
{
    if (s.size() < 37 || s.back() != OP_CHECKMULTISIG || s[0] < OP_1 || s[0] > OP_3) return false;
    const int m = s[0] - (OP_1 - 1);
    const int n = s[s.size() - 2] - (OP_1 - 1);
    if (n < 1 || n > 3 || m > n) return false;
    size_t pos = 1;
    for (int i = 0; i < n; ++i) {
        if (pos >= s.size() || (s[pos] != 33 && s[pos] != 65)) return false;
        pos += 1 + s[pos];
    }
    return pos == s.size() - 2;
}

// The heights [from, to] in 1..base_height where a type may appear.
std::pair<int, int> HeightWindow(ScriptType type, int base_height)
{
    const Era era = ERA[static_cast<size_t>(type)];
    const int from = std::max<int64_t>(1, int64_t{base_height} * era.from_per_mille / 1000);
    const int to = std::max<int64_t>(from, int64_t{base_height} * era.to_per_mille / 1000);
    return {from, std::min(to, base_height)};
}

CAmount DustAmount(ScriptType type, GenRandom& rng)
{
    switch (type) {
    // Inscriptions sit on 546-, 330- and 10,000-sat outputs.
    case ScriptType::P2TR: return std::array<CAmount, 3>{330, 546, 10'000}[rng.Below(3)];
    case ScriptType::P2WPKH: return 294;
    case ScriptType::P2WSH: return 330;
    case ScriptType::P2SH: return 540;
    default: return 546;
    }
}

} // namespace

std::string_view ScriptTypeName(ScriptType type)
{
    switch (type) {
    case ScriptType::P2WPKH: return "p2wpkh";
    case ScriptType::P2TR: return "p2tr";
    case ScriptType::P2PKH: return "p2pkh";
    case ScriptType::P2SH: return "p2sh";
    case ScriptType::P2WSH: return "p2wsh";
    case ScriptType::BARE_MULTISIG: return "bare_multisig";
    case ScriptType::P2PK_COMPRESSED: return "p2pk_compressed";
    case ScriptType::P2PK_UNCOMPRESSED: return "p2pk_uncompressed";
    case ScriptType::ODD: return "odd";
    }
    return "unknown";
}

ScriptType ClassifyScript(const CScript& s)
{
    const size_t n = s.size();
    if (n == 25 && s[0] == OP_DUP && s[1] == OP_HASH160 && s[2] == 20 && s[23] == OP_EQUALVERIFY && s[24] == OP_CHECKSIG) {
        return ScriptType::P2PKH;
    }
    if (n == 23 && s[0] == OP_HASH160 && s[1] == 20 && s[22] == OP_EQUAL) return ScriptType::P2SH;
    if (n == 22 && s[0] == OP_0 && s[1] == 20) return ScriptType::P2WPKH;
    if (n == 34 && s[0] == OP_0 && s[1] == 32) return ScriptType::P2WSH;
    if (n == 34 && s[0] == OP_1 && s[1] == 32) return ScriptType::P2TR;
    if (n == 35 && s[0] == 33 && (s[1] == 0x02 || s[1] == 0x03) && s[34] == OP_CHECKSIG) return ScriptType::P2PK_COMPRESSED;
    if (n == 67 && s[0] == 65 && s[1] == 0x04 && s[66] == OP_CHECKSIG) return ScriptType::P2PK_UNCOMPRESSED;
    if (IsBareMultisig(s)) return ScriptType::BARE_MULTISIG;
    return ScriptType::ODD;
}

CScript MakeScript(ScriptType type, GenRandom& rng)
{
    switch (type) {
    case ScriptType::P2WPKH: return WithRandomBody({OP_0, 20}, 20, {}, rng);
    case ScriptType::P2TR: return WithRandomBody({OP_1, 32}, 32, {}, rng);
    case ScriptType::P2PKH: return WithRandomBody({OP_DUP, OP_HASH160, 20}, 20, {OP_EQUALVERIFY, OP_CHECKSIG}, rng);
    case ScriptType::P2SH: return WithRandomBody({OP_HASH160, 20}, 20, {OP_EQUAL}, rng);
    case ScriptType::P2WSH: return WithRandomBody({OP_0, 32}, 32, {}, rng);
    case ScriptType::BARE_MULTISIG: return BareMultisig(rng);
    case ScriptType::P2PK_COMPRESSED: return CompressedP2PK(rng);
    case ScriptType::P2PK_UNCOMPRESSED: return ValidUncompressedP2PK(rng);
    case ScriptType::ODD: return OddScript(rng);
    }
    return CScript{OP_1};
}

ScriptType DrawScriptType(GenRandom& rng) { return static_cast<ScriptType>(rng.Pick(SCRIPT_MIX)); }

bool TypeExistsAt(ScriptType type, int height, int base_height)
{
    const auto [from, to] = HeightWindow(type, base_height);
    return height >= from && height <= to;
}

int DrawHeight(ScriptType type, int base_height, GenRandom& rng)
{
    const auto [from, to] = HeightWindow(type, base_height);
    const int span = to - from;
    // 55% anywhere in the window, 30% in its last fifth, 15% in its last 3%:
    // old coins get spent, so the set leans towards recent blocks.
    switch (rng.Pick(std::array<uint32_t, 3>{55, 30, 15})) {
    case 0: return static_cast<int>(rng.Range(from, to));
    case 1: return static_cast<int>(rng.Range(to - span / 5, to));
    default: return static_cast<int>(rng.Range(to - span * 3 / 100, to));
    }
}

CAmount DrawAmount(ScriptType type, const CScript& script, GenRandom& rng)
{
    if (std::ranges::equal(script, PAY_TO_ANCHOR)) return rng.Below(2) ? 240 : 0;
    if (rng.Chance(type == ScriptType::P2TR ? 2500 : 500)) return DustAmount(type, rng);

    const int decade = static_cast<int>(rng.Pick(DECADE_WEIGHTS));
    // The top decade stops at 500 BTC: leading digits 1..4 only.
    const auto digits = std::span{LEADING_DIGIT_WEIGHTS}.first(decade == 10 ? 4 : 9);
    const CAmount unit = Pow10(decade);
    // Two statements: the order of draws must not be left to the compiler.
    CAmount amount = static_cast<CAmount>(1 + rng.Pick(digits)) * unit;
    amount += static_cast<CAmount>(rng.Below(unit));
    // People pay round sums: a quarter of the larger amounts keep only 1-3
    // significant digits, which also exercises CompressAmount's zero
    // stripping.
    if (decade >= 3 && rng.Chance(2500)) {
        const CAmount step = Pow10(decade + 1 - static_cast<int>(rng.Range(1, 3)));
        amount -= amount % step;
    }
    return amount;
}

CAmount CoinbaseOutputAmount(int height, uint32_t outputs, GenRandom& rng)
{
    // Mainnet's schedule whatever the chain: the shape is meant to look like
    // mainnet's, and regtest's 150-block halvings would zero it out.
    const int halvings = height / 210'000;
    const CAmount subsidy = halvings >= 33 ? 0 : (50 * COIN) >> halvings;
    const CAmount fees = static_cast<CAmount>(rng.Below(height < 200'000 ? COIN / 100 : COIN / 2));
    return (subsidy + fees) / outputs;
}
