// coin_decompression: arbitrary bytes as a chainstate coin value, as a
// compressed script and as the pieces compression is built from (amounts,
// special script bodies). Decoding may refuse with std::ios_base::failure
// and nothing else; whatever it accepts must survive being written again.

#include <test/fuzz/fuzz.h>
#include <test/fuzz/fuzz_input.h>

#include <compressor.h>
#include <primitives/amount.h>
#include <streams.h>
#include <test/util/coin_compare.h>

#include <array>
#include <ios>

namespace {

void CheckAmounts(FuzzInput& input)
{
    const uint64_t raw = input.Integral<uint64_t>();
    // Every amount a valid transaction can hold comes back unchanged.
    const uint64_t amount = raw % (static_cast<uint64_t>(MAX_MONEY) + 1);
    FUZZ_CHECK(DecompressAmount(CompressAmount(amount)) == amount);
    // Any stored number decodes (a corrupt chainstate must not crash the
    // reader); amounts outside the money range are caught by the loaders.
    (void)DecompressAmount(raw);
}

void CheckSpecialScript(FuzzInput& input)
{
    const unsigned n_size = input.Below(SPECIAL_SCRIPT_COUNT);
    CompressedScript body(GetSpecialScriptSize(n_size), 0);
    const auto given = input.Bytes(body.size());
    std::ranges::copy(given, body.begin());

    CScript script;
    if (!DecompressScript(script, n_size, body)) {
        // Only an uncompressed key's x can fail: it may not be on the curve.
        FUZZ_CHECK(n_size == 4 || n_size == 5);
        return;
    }
    // The special form of the rebuilt script is the one it came from.
    CompressedScript compressed;
    FUZZ_CHECK(CompressScript(script, compressed));
    FUZZ_CHECK(compressed[0] == n_size);
    FUZZ_CHECK(std::ranges::equal(std::span{compressed}.subspan(1), body));
}

void CheckCompressedScript(std::span<const uint8_t> bytes)
{
    SpanReader reader{bytes};
    CScript script;
    try {
        UnserializeCompressedScript(reader, script);
    } catch (const std::ios_base::failure&) {
        return;
    }
    // An oversized script is read back as OP_RETURN, never allocated.
    FUZZ_CHECK(script.size() <= MAX_SCRIPT_SIZE);
    DataStream written;
    SerializeCompressedScript(written, script);
    CScript again;
    UnserializeCompressedScript(written, again);
    FUZZ_CHECK(written.empty());
    FUZZ_CHECK(again == script);
}

} // namespace

std::optional<ReencodedCoin> ReencodeCoin(std::span<const uint8_t> input)
{
    SpanReader reader{input};
    ReencodedCoin result;
    try {
        reader >> result.coin;
    } catch (const std::ios_base::failure&) {
        return std::nullopt;
    }
    result.consumed = input.size() - reader.size();
    // A coin whose amount decodes to -1 reads as spent, which nothing may
    // write: only coins with a valid amount are written again.
    if (!MoneyRange(result.coin.out.nValue)) return result;
    DataStream written;
    written << result.coin;
    const auto unread = written.Unread();
    for (const std::byte b : unread) result.encoding.push_back(static_cast<unsigned char>(b));
    return result;
}

void FuzzCoinDecompression(std::span<const uint8_t> input)
{
    // The whole input as a coin first: seeds are real chainstate values.
    if (const auto coin = ReencodeCoin(input)) {
        FUZZ_CHECK(coin->consumed > 0 && coin->consumed <= input.size());
        FUZZ_CHECK(coin->coin.out.scriptPubKey.size() <= MAX_SCRIPT_SIZE);
        if (MoneyRange(coin->coin.out.nValue)) {
            FUZZ_CHECK(!coin->encoding.empty());
            CheckCoinRoundTrip(coin->coin);
            // The re-encoding is canonical: it reads back to the same coin
            // and writes back to itself.
            const auto again = ReencodeCoin(coin->encoding);
            FUZZ_CHECK(again && SameCoin(again->coin, coin->coin) && again->encoding == coin->encoding);
        }
    }
    CheckCompressedScript(input);

    FuzzInput pieces{input};
    CheckAmounts(pieces);
    CheckSpecialScript(pieces);
}
