// Tests of CCoinsViewCache: every state transition of a cache entry
// (AddCoin, SpendCoin, AccessCoin, BatchWrite) as tables, randomized stacks
// of caches checked against a std::map after every step, memory accounting
// and the unspendable-output rule.
//
// The cache's map is private, so an entry's (value, flags) is observed by
// flushing the cache into a test view that copies what BatchWrite receives
// before consuming it. Values in the tables: V0, V1, V2 are distinct unspent
// coins; SPENT is a spent (null) coin; NONE means no entry at all.

#include <coins.h>
#include <kernel/caches.h>
#include <memusage.h>
#include <primitives/transaction.h>
#include <script/script.h>
#include <test/util/cache_entries.h>
#include <test/util/cache_internals.h>
#include <test/util/coin_compare.h>
#include <test/util/random.h>
#include <test/util/setup.h>
#include <txdb.h>
#include <uint256.h>
#include <util/strencodings.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr int NO_ENTRY = -1;
constexpr int CLEAN = 0;
constexpr int DIRTY = CCoinsCacheEntry::DIRTY;
constexpr int FRESH = CCoinsCacheEntry::FRESH;

const char* const OVERWRITE_ERROR = "Attempted to overwrite an unspent coin (when possible_overwrite is false)";
const char* const FRESH_ERROR = "FRESH flag misapplied to coin that exists in parent cache";

enum class Val { NONE, SPENT, V0, V1, V2, MARKER, OTHER };

uint256 HashFromByte(unsigned char byte)
{
    std::array<unsigned char, uint256::SIZE> bytes;
    bytes.fill(byte);
    return uint256{bytes};
}

const COutPoint OUTPOINT{HashFromByte(0xaa), 7};
const uint256 BLOCK_A{HashFromByte(0x0a)};

// A coin whose script is `script_size` copies of `tag` (never OP_RETURN).
Coin MakeCoin(unsigned char tag, size_t script_size, CAmount value, int height, bool coinbase)
{
    return Coin{CTxOut{value, CScript(script_size, tag)}, height, coinbase};
}

// Scripts of different lengths, so that a wrong value also shows up as wrong
// memory accounting.
Coin CoinOf(Val val)
{
    switch (val) {
    case Val::V0: return MakeCoin(0x50, 40, 1000, 100, false);
    case Val::V1: return MakeCoin(0x51, 60, 2000, 200, true);
    case Val::V2: return MakeCoin(0x52, 80, 3000, 300, false);
    case Val::MARKER: return MakeCoin(0x5f, 10, 9999, 999, false);
    case Val::SPENT: return Coin{};
    case Val::NONE:
    case Val::OTHER: break;
    }
    throw std::logic_error("no coin for this value");
}

Val ValOf(const Coin& coin)
{
    if (coin.IsSpent()) return Val::SPENT;
    for (Val val : {Val::V0, Val::V1, Val::V2, Val::MARKER}) {
        if (SameCoin(coin, CoinOf(val))) return val;
    }
    return Val::OTHER;
}

std::string Describe(Val value, int flags)
{
    if (flags == NO_ENTRY) return value == Val::NONE ? "no entry" : "bad state: value without entry";
    static const char* const NAMES[] = {"NONE", "SPENT", "V0", "V1", "V2", "MARKER", "OTHER"};
    std::string text = NAMES[static_cast<int>(value)];
    if (flags == CLEAN) return text + " clean";
    if (flags & DIRTY) text += " DIRTY";
    if (flags & FRESH) text += " FRESH";
    return text;
}

std::string Describe(const std::optional<Coin>& coin)
{
    if (!coin) return "(none)";
    if (coin->IsSpent()) return "(spent)";
    std::ostringstream out;
    out << "{height=" << coin->nHeight << " coinbase=" << coin->IsCoinBase() << " value=" << coin->out.nValue
        << " script=" << coin->out.scriptPubKey.size() << " bytes "
        << HexStr(std::span{coin->out.scriptPubKey.data(), std::min<size_t>(coin->out.scriptPubKey.size(), 8)}) << "}";
    return out.str();
}

bool HasMessage(const std::logic_error& e, const char* expected) { return std::string{e.what()} == expected; }

// What a BatchWrite was handed for one outpoint: a copy, since cache
// entries themselves cannot be copied.
struct WrittenEntry {
    Coin coin;
    int flags;
};

int FlagsOf(const WrittenEntry& entry) { return entry.flags; }

// The bottom of a stack: coins in a std::map, BatchWrite applying DIRTY
// entries (spent ones as erases). It copies what each BatchWrite hands over
// so tests can see the (value, flags) a cache gave it, and counts the
// entries it was shown. m_coins holds unspent coins only, so GetCoin never
// returns a spent one, as no view may.
class TestBaseView final : public CoinsViewEmpty
{
public:
    std::map<COutPoint, Coin> m_coins;
    uint256 m_best_block;
    bool m_record{true};
    std::map<COutPoint, WrittenEntry> m_last_write;
    size_t m_write_calls{0};
    size_t m_last_visited{0};
    // FRESH entries written over a coin this view holds: a cache lied.
    size_t m_fresh_over_existing{0};
    // When set, BatchWrite compares this cache's reported memory usage with
    // a recomputation, before anything is handed over.
    const CCoinsViewCache* m_writer{nullptr};
    size_t m_writer_reported_usage{0};
    size_t m_writer_recomputed_usage{0};

    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override
    {
        if (auto it = m_coins.find(outpoint); it != m_coins.end()) return it->second;
        return std::nullopt;
    }

    uint256 GetBestBlock() const override { return m_best_block; }

    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override
    {
        ++m_write_calls;
        m_last_write.clear();
        m_last_visited = 0;
        if (m_writer) {
            m_writer_reported_usage = m_writer->DynamicMemoryUsage();
            m_writer_recomputed_usage = m_writer->RecomputeDynamicMemoryUsage();
        }
        for (auto it = cursor.Begin(); it != cursor.End(); it = cursor.NextAndMaybeErase(*it)) {
            ++m_last_visited;
            if (m_record) m_last_write.emplace(it->first, WrittenEntry{it->second.coin, FlagsOf(it->second)});
            const CCoinsCacheEntry& entry = it->second;
            if (!entry.IsDirty()) continue;
            auto ours = m_coins.find(it->first);
            if (entry.IsFresh() && ours != m_coins.end() && !ours->second.IsSpent()) ++m_fresh_over_existing;
            if (entry.coin.IsSpent()) {
                if (ours != m_coins.end()) m_coins.erase(ours);
            } else {
                m_coins.insert_or_assign(it->first, entry.coin);
            }
        }
        m_best_block = best_block;
    }
};

// Makes `base` hold `base_value` at OUTPOINT (NONE or a coin),
// then drives `cache`, whose parent is `base`, into the entry state
// (value, flags) with the public API only.
void Prepare(TestBaseView& base, CCoinsViewCache& cache, Val base_value, Val value, int flags)
{
    BOOST_REQUIRE(base_value != Val::SPENT);
    if (base_value != Val::NONE) base.m_coins[OUTPOINT] = CoinOf(base_value);
    const bool base_unspent = base_value != Val::NONE;
    if (flags == NO_ENTRY) return;
    if (flags == CLEAN) {
        // A miss copies the parent's coin in, unflagged.
        BOOST_REQUIRE(base_value == value);
        cache.AccessCoin(OUTPOINT);
        return;
    }
    if (value == Val::SPENT && flags == DIRTY) {
        BOOST_REQUIRE(base_unspent);
        BOOST_REQUIRE(cache.SpendCoin(OUTPOINT));
        return;
    }
    if (flags == DIRTY) {
        cache.AddCoin(OUTPOINT, CoinOf(value), /*possible_overwrite=*/true);
        return;
    }
    if (flags == (DIRTY | FRESH)) {
        BOOST_REQUIRE(!base_unspent);
        cache.AddCoin(OUTPOINT, CoinOf(value), /*possible_overwrite=*/false);
        return;
    }
    BOOST_FAIL("no public way to build " << Describe(value, flags));
}

struct Observed {
    Val value;
    int flags;
};

// The (value, flags) of OUTPOINT in `cache`, found by flushing it into
// `base`, its parent. Also checks the cache's memory accounting against the
// map it hands over, unless told not to.
Observed FlushAndObserve(CCoinsViewCache& cache, TestBaseView& base, bool check_usage = true)
{
    const bool cached_unspent = cache.HaveCoinInCache(OUTPOINT);
    const Coin cached = cached_unspent ? cache.AccessCoin(OUTPOINT) : Coin{};
    // A flush hands over flagged entries only. Uncache drops a clean entry
    // and leaves a flagged one, which tells the two apart, spent or not.
    const size_t entries = cache.GetCacheSize();
    cache.Uncache(OUTPOINT);
    const bool clean_entry = cache.GetCacheSize() < entries;
    base.m_writer = &cache;
    const size_t calls_before = base.m_write_calls;
    cache.Flush();
    base.m_writer = nullptr;
    BOOST_CHECK_EQUAL(base.m_write_calls, calls_before + 1);
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 0U);
    if (check_usage) BOOST_CHECK_EQUAL(base.m_writer_reported_usage, base.m_writer_recomputed_usage);
    if (auto it = base.m_last_write.find(OUTPOINT); it != base.m_last_write.end()) {
        return {ValOf(it->second.coin), FlagsOf(it->second)};
    }
    if (clean_entry) return {cached_unspent ? ValOf(cached) : Val::SPENT, CLEAN};
    return {Val::NONE, NO_ENTRY};
}

void CheckObserved(const Observed& got, Val value, int flags)
{
    BOOST_CHECK_EQUAL(Describe(got.value, got.flags), Describe(value, flags));
}

// Scripts in the shapes the compressor special-cases, random ones from tiny
// to MAX_SCRIPT_SIZE, and (when allowed) unspendable ones.
CScript RandomScript(TestRand& rand, bool allow_unspendable)
{
    const auto random_bytes = [&](size_t size) {
        CScript script(size);
        for (auto& byte : script) byte = static_cast<unsigned char>(rand.Next());
        if (!script.empty() && script[0] == OP_RETURN) script[0] = 0x51;
        return script;
    };
    const auto with_template = [&](std::initializer_list<unsigned char> head, size_t middle, std::initializer_list<unsigned char> tail) {
        CScript script{head};
        const CScript body = random_bytes(middle);
        script.insert(script.end(), body.begin(), body.end());
        script.insert(script.end(), tail);
        return script;
    };
    const uint64_t kind = rand.Below(100);
    if (allow_unspendable && kind < 5) {
        CScript script = random_bytes(1 + rand.Below(40));
        script[0] = OP_RETURN;
        return script;
    }
    if (allow_unspendable && kind < 7) return random_bytes(MAX_SCRIPT_SIZE + 1 + rand.Below(100));
    if (kind < 15) return CScript{};
    if (kind < 40) return with_template({0x76, 0xa9, 0x14}, 20, {0x88, 0xac});
    if (kind < 50) return with_template({0xa9, 0x14}, 20, {0x87});
    if (kind < 55) return with_template({0x21, static_cast<unsigned char>(0x02 | rand.Bool())}, 32, {0xac});
    if (kind < 90) return random_bytes(1 + rand.Below(120));
    if (kind < 98) return random_bytes(500 + rand.Below(3500));
    return random_bytes(MAX_SCRIPT_SIZE);
}

Coin RandomCoin(TestRand& rand, bool allow_unspendable)
{
    const CAmount value = static_cast<CAmount>(rand.Below(2'100'000'000'000'001ULL));
    const int height = static_cast<int>(rand.Below(uint64_t{1} << 31));
    return Coin{CTxOut{value, RandomScript(rand, allow_unspendable)}, height, rand.Bool()};
}

std::string FirstDifference(const std::map<COutPoint, Coin>& a, const std::map<COutPoint, Coin>& b)
{
    for (const auto& [outpoint, coin] : a) {
        auto it = b.find(outpoint);
        if (it == b.end() || !SameCoin(it->second, coin)) {
            return outpoint.ToString() + ": " + Describe(coin) + " vs " + Describe(it == b.end() ? std::nullopt : std::optional{it->second});
        }
    }
    for (const auto& [outpoint, coin] : b) {
        if (!a.contains(outpoint)) return outpoint.ToString() + ": (none) vs " + Describe(coin);
    }
    return "equal";
}

// Sits between a cache and its parent and inspects every BatchWrite before
// passing it on: the entries it sees are the writing cache's own.
class FlushSpy final : public CCoinsViewBacked
{
public:
    using Callback = std::function<void(const CoinsViewCacheCursor&)>;
    FlushSpy(CCoinsView* parent, Callback on_write) : CCoinsViewBacked{parent}, m_on_write{std::move(on_write)} {}

    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256& best_block) override
    {
        m_on_write(cursor);
        CCoinsViewBacked::BatchWrite(cursor, best_block);
    }

private:
    Callback m_on_write;
};

struct SimStats {
    size_t adds_fresh{0};
    size_t adds_overwrite{0};
    size_t adds_unspendable{0};
    size_t spends_hit{0};
    size_t spends_miss{0};
    size_t reads{0};
    size_t emplaces_inserted{0};
    size_t emplaces_ignored{0};
    size_t uncaches{0};
    size_t flushes_to_base{0};
    size_t flushes_below_top{0};
    size_t syncs_to_base{0};
    size_t syncs_below_top{0};
    size_t flushed_entries{0};
    size_t pushes{0};
    size_t pops_flushed{0};
    size_t pops_discarded{0};
    size_t reopens{0};
    size_t partial_batches{0};
    size_t max_depth{0};
};

#define SIM_EXPECT(cond, what)   \
    do {                         \
        if (!(cond)) Fail(what); \
    } while (0)

// A stack of 1 to MAX_LAYERS caches over an in-memory base or a real
// database, driven by random operations on the top cache and compared after
// every step with m_models: m_models[0] is what the base holds, m_models[i+1]
// what layer i shows. Between every two layers a FlushSpy checks what a
// flush hands over: the flag invariants, clean entries equal to the parent's
// view, FRESH entries absent from it, and the cache's memory accounting.
class CoinsStackSim
{
public:
    static constexpr size_t MAX_LAYERS = 4;

    CoinsStackSim(uint64_t seed, std::optional<std::filesystem::path> db_dir)
        : m_seed{seed}, m_rand{seed}, m_db_dir{std::move(db_dir)}
    {
        m_mem_base.m_record = false;
        if (m_db_dir) m_db = MakeDB(/*wipe=*/true);
        std::set<COutPoint> universe;
        for (int tx = 0; tx < 24; ++tx) {
            const uint256 txid = m_rand.Hash();
            const uint64_t outputs = 1 + m_rand.Below(6);
            for (uint32_t n = 0; n < outputs; ++n) {
                // Large indexes take multi-byte VARINTs in database keys.
                universe.emplace(txid, m_rand.OneIn(6) ? static_cast<uint32_t>(m_rand.Next()) : n);
            }
        }
        m_universe.assign(universe.begin(), universe.end());
        m_models.emplace_back();
        AddLayer();
    }

    void Run(int steps)
    {
        for (m_step = 0; m_step < steps && !m_failed; ++m_step) {
            try {
                Step();
                CheckAfterStep();
            } catch (const std::exception& e) {
                Fail(std::string{"unexpected exception: "} + e.what());
            }
        }
        if (m_failed) return;
        m_op = "final flush";
        const auto top_view = m_models.back();
        for (size_t level = m_layers.size(); level-- > 0;) Flush(level);
        SIM_EXPECT(SameCoins(m_models[0], top_view), "after flushing every layer: " + FirstDifference(m_models[0], top_view));
        if (m_db) Reopen(/*resize=*/false);
    }

    bool Failed() const { return m_failed; }
    const SimStats& Stats() const { return m_stats; }
    size_t UniverseSize() const { return m_universe.size(); }

private:
    struct Layer {
        std::unique_ptr<FlushSpy> spy;
        std::unique_ptr<CCoinsViewCache> cache;
        // Outpoints this layer may hold an entry for (a superset).
        std::set<COutPoint> maybe_cached;
    };

    void Fail(const std::string& what)
    {
        if (!m_failed) BOOST_ERROR("seed " << m_seed << ", step " << m_step << " (" << m_op << ", " << m_layers.size() << " layers): " << what);
        m_failed = true;
    }

    std::unique_ptr<CCoinsViewDB> MakeDB(bool wipe)
    {
        CoinsViewOptions options;
        // Tiny batches: nearly every flush is split, bracketed by 'H'.
        options.batch_write_bytes = 128;
        // A 1-in-1 "crash" after each partial batch only counts it.
        options.simulate_crash_ratio = 1;
        options.on_simulated_crash = [this] { ++m_stats.partial_batches; };
        return std::make_unique<CCoinsViewDB>(DBParams{.path = *m_db_dir, .cache_bytes = 1 << 20, .wipe_data = wipe}, options);
    }

    CCoinsView& Base() { return m_db ? static_cast<CCoinsView&>(*m_db) : m_mem_base; }
    CCoinsViewCache& Top() { return *m_layers.back().cache; }
    std::map<COutPoint, Coin>& TopModel() { return m_models.back(); }

    void MarkTouched(const COutPoint& outpoint)
    {
        // Reads through the top pull entries into every layer below it.
        for (auto& layer : m_layers) layer.maybe_cached.insert(outpoint);
    }

    COutPoint PickOutpoint() { return m_universe[m_rand.Below(m_universe.size())]; }

    // Mostly an outpoint the top view has a coin for.
    COutPoint PickLikelyUnspent()
    {
        const auto& model = TopModel();
        if (model.empty() || m_rand.OneIn(3)) return PickOutpoint();
        auto it = model.begin();
        std::advance(it, m_rand.Below(model.size()));
        return it->first;
    }

    void AddLayer()
    {
        const size_t level = m_layers.size();
        CCoinsView* parent = level == 0 ? &Base() : m_layers.back().cache.get();
        Layer layer;
        layer.spy = std::make_unique<FlushSpy>(parent, [this, level](const CoinsViewCacheCursor& cursor) { CheckFlush(level, cursor); });
        layer.cache = std::make_unique<CCoinsViewCache>(layer.spy.get(), /*deterministic=*/true);
        m_layers.push_back(std::move(layer));
        m_models.push_back(m_models.back());
        m_stats.max_depth = std::max(m_stats.max_depth, m_layers.size());
    }

    void Step()
    {
        const uint64_t roll = m_rand.Below(m_db ? 100 : 97);
        if (roll < 26) return AddCoin();
        if (roll < 46) return SpendCoin();
        if (roll < 60) return Read();
        if (roll < 65) return Emplace();
        if (roll < 75) return Uncache();
        if (roll < 80) {
            m_op = "flush";
            return Flush(m_rand.Below(m_layers.size()));
        }
        if (roll < 85) {
            m_op = "sync";
            return Sync(m_rand.Below(m_layers.size()));
        }
        if (roll < 91) return Push();
        if (roll < 97) return Pop();
        return Reopen(/*resize=*/m_rand.Bool());
    }

    void AddCoin()
    {
        m_op = "AddCoin";
        const COutPoint outpoint = PickOutpoint();
        const Coin coin = RandomCoin(m_rand, /*allow_unspendable=*/true);
        // Without possible_overwrite only where there is no coin: a legal call.
        const bool possible_overwrite = TopModel().contains(outpoint) || m_rand.Bool();
        Top().AddCoin(outpoint, Coin{coin}, possible_overwrite);
        MarkTouched(outpoint);
        if (coin.out.scriptPubKey.IsUnspendable()) {
            ++m_stats.adds_unspendable;
            return;
        }
        TopModel().insert_or_assign(outpoint, coin);
        ++(possible_overwrite ? m_stats.adds_overwrite : m_stats.adds_fresh);
    }

    void SpendCoin()
    {
        m_op = "SpendCoin";
        const COutPoint outpoint = PickLikelyUnspent();
        auto& model = TopModel();
        auto it = model.find(outpoint);
        // Half the spends move the coin out, half let the cache drop it.
        Coin moved;
        const bool with_moveout = m_rand.Below(2) == 0;
        const bool spent = Top().SpendCoin(outpoint, with_moveout ? &moved : nullptr);
        MarkTouched(outpoint);
        if (it != model.end()) {
            SIM_EXPECT(spent && (!with_moveout || SameCoin(moved, it->second)), "SpendCoin(" + outpoint.ToString() + ") gave " + Describe(moved) + ", expected " + Describe(it->second));
            model.erase(it);
            ++m_stats.spends_hit;
        } else {
            // A cached spent entry also counts as found (see
            // spendcoin_state_table), but no coin comes out.
            SIM_EXPECT(moved.IsSpent(), "SpendCoin(" + outpoint.ToString() + ") of no coin gave " + Describe(moved));
            ++m_stats.spends_miss;
        }
    }

    void Read()
    {
        m_op = "read";
        const COutPoint outpoint = PickOutpoint();
        const auto it = TopModel().find(outpoint);
        const std::optional<Coin> expected = it == TopModel().end() ? std::nullopt : std::optional{it->second};
        MarkTouched(outpoint);
        ++m_stats.reads;
        switch (m_rand.Below(4)) {
        case 0:
            SIM_EXPECT(SameCoin(Top().GetCoin(outpoint), expected), "GetCoin(" + outpoint.ToString() + ") != " + Describe(expected));
            break;
        case 1: SIM_EXPECT(Top().HaveCoin(outpoint) == expected.has_value(), "HaveCoin(" + outpoint.ToString() + ")"); break;
        case 2: {
            const Coin& coin = Top().AccessCoin(outpoint);
            SIM_EXPECT(expected ? SameCoin(coin, *expected) : coin.IsSpent(), "AccessCoin(" + outpoint.ToString() + ") gave " + Describe(coin));
            break;
        }
        default: SIM_EXPECT(!Top().HaveCoinInCache(outpoint) || expected, "HaveCoinInCache(" + outpoint.ToString() + ") without a coin"); break;
        }
    }

    void Emplace()
    {
        m_op = "EmplaceCoinInternalDANGER";
        // Often one the top holds, so that duplicates (ignored) come up too.
        const COutPoint outpoint = PickLikelyUnspent();
        Coin coin = RandomCoin(m_rand, /*allow_unspendable=*/false);
        CCoinsViewCache& top = Top();
        if (top.HaveCoinInCache(outpoint)) {
            const Coin before = top.AccessCoin(outpoint);
            const size_t usage = top.DynamicMemoryUsage();
            const size_t dirty = top.GetDirtyCount();
            top.EmplaceCoinInternalDANGER(COutPoint{outpoint}, std::move(coin));
            SIM_EXPECT(SameCoin(top.AccessCoin(outpoint), before) && top.DynamicMemoryUsage() == usage && top.GetDirtyCount() == dirty,
                       "a duplicate emplace changed " + outpoint.ToString());
            ++m_stats.emplaces_ignored;
        } else if (!m_layers.back().maybe_cached.contains(outpoint) && !TopModel().contains(outpoint)) {
            // The one safe use: nothing here, nothing below. With no entry
            // here either, the variant that skips the lookup is safe too.
            TopModel().emplace(outpoint, coin);
            if (m_rand.Bool()) {
                top.EmplaceCoinInternalDANGER(COutPoint{outpoint}, std::move(coin));
            } else {
                top.EmplaceNewCoinInternalDANGER(COutPoint{outpoint}, std::move(coin));
            }
            MarkTouched(outpoint);
            ++m_stats.emplaces_inserted;
        }
    }

    void Uncache()
    {
        m_op = "Uncache";
        m_layers[m_rand.Below(m_layers.size())].cache->Uncache(PickOutpoint());
        ++m_stats.uncaches;
    }

    // What a layer writes down becomes entries of the layer below.
    void MarkWrittenDown(size_t level)
    {
        if (level > 0) m_layers[level - 1].maybe_cached.insert(m_layers[level].maybe_cached.begin(), m_layers[level].maybe_cached.end());
    }

    // Flush's post-condition (coins.h): the layer holds no entry at all,
    // nothing is flagged or counted and no coin memory is left, only the
    // bucket array, kept for the refill; the parent took the layer's view.
    void Flush(size_t level)
    {
        Layer& layer = m_layers[level];
        const CCoinsViewCache& cache = *layer.cache;
        MarkWrittenDown(level);
        const uint256 block = m_rand.Hash();
        layer.cache->SetBestBlock(block);
        layer.cache->Flush();
        const std::string where = "layer " + std::to_string(level) + " after Flush: ";
        SIM_EXPECT(cache.GetCacheSize() == 0 && CacheMap(cache).empty(), where + std::to_string(cache.GetCacheSize()) + " entries left");
        SIM_EXPECT(cache.GetDirtyCount() == 0, where + "dirty count " + std::to_string(cache.GetDirtyCount()));
        const CoinsFlaggedList& flagged = CacheFlagged(cache);
        SIM_EXPECT(flagged.First() == flagged.End() && flagged.Last() == flagged.End(), where + "the flagged list is not empty");
        SIM_EXPECT(CacheUsage(cache) == 0 && cache.DynamicMemoryUsage() == cache.RecomputeDynamicMemoryUsage(), where + "coin memory left");
        layer.maybe_cached.clear();
        CheckWrittenDown(level, block, "flush", m_stats.flushes_below_top, m_stats.flushes_to_base);
    }

    // Sync's post-condition (coins.h): no entry is flagged, every spent
    // entry is gone, and every unspent one is still cached, clean, with the
    // coin it had; the parent took the layer's view. Checked on the map
    // itself, entry by entry.
    void Sync(size_t level)
    {
        Layer& layer = m_layers[level];
        CCoinsViewCache& cache = *layer.cache;
        MarkWrittenDown(level);
        const uint256 block = m_rand.Hash();
        cache.SetBestBlock(block);
        std::map<COutPoint, Coin> unspent_before;
        for (const auto& [outpoint, entry] : CacheMap(cache)) {
            if (!entry.coin.IsSpent()) unspent_before.emplace(outpoint, entry.coin);
        }
        cache.Sync();
        const std::string where = "layer " + std::to_string(level) + " after Sync: ";
        SIM_EXPECT(cache.GetDirtyCount() == 0, where + "dirty count " + std::to_string(cache.GetDirtyCount()));
        SIM_EXPECT(CacheFlagged(cache).Empty(), where + "the flagged list is not empty");
        std::map<COutPoint, Coin> after;
        for (const auto& [outpoint, entry] : CacheMap(cache)) {
            SIM_EXPECT(!entry.coin.IsSpent(), where + "spent entry left at " + outpoint.ToString());
            SIM_EXPECT(!entry.IsDirty() && !entry.IsFresh(), where + "flagged entry at " + outpoint.ToString());
            after.emplace(outpoint, entry.coin);
        }
        SIM_EXPECT(SameCoins(after, unspent_before), where + "cached coins changed: " + FirstDifference(after, unspent_before));
        SIM_EXPECT(cache.DynamicMemoryUsage() == cache.RecomputeDynamicMemoryUsage(), where + "memory accounting off");
        CheckWrittenDown(level, block, "sync", m_stats.syncs_below_top, m_stats.syncs_to_base);
    }

    // After layer `level` wrote its changes down with best block `block`:
    // the parent's view is the layer's, the best block went with it, and a
    // write to the base left it complete, with no 'H', holding the model.
    void CheckWrittenDown(size_t level, const uint256& block, const std::string& what, size_t& below_top, size_t& to_base)
    {
        m_models[level] = m_models[level + 1];
        const CCoinsView& parent = level == 0 ? Base() : *m_layers[level - 1].cache;
        SIM_EXPECT(parent.GetBestBlock() == block, "best block not passed down by a " + what + " of layer " + std::to_string(level));
        if (level + 1 < m_layers.size()) ++below_top;
        if (level > 0) return;
        ++to_base;
        m_base_best_block = block;
        if (m_db) SIM_EXPECT(m_db->GetHeadBlocks().empty(), "'H' left after a completed " + what);
        CheckBaseContents();
    }

    void Push()
    {
        m_op = "push layer";
        if (m_layers.size() >= MAX_LAYERS) return;
        AddLayer();
        ++m_stats.pushes;
    }

    void Pop()
    {
        m_op = "pop layer";
        if (m_layers.size() <= 1) return;
        if (m_rand.Bool()) {
            Flush(m_layers.size() - 1);
            ++m_stats.pops_flushed;
        } else {
            ++m_stats.pops_discarded;
        }
        m_layers.pop_back();
        m_models.pop_back();
    }

    // Closes and reopens the database (or resizes its cache, which does the
    // same) under the caches, which keep their unflushed changes.
    void Reopen(bool resize)
    {
        m_op = resize ? "ResizeCache" : "reopen database";
        if (resize) {
            m_db->ResizeCache((1 + m_rand.Below(4)) << 20);
        } else {
            m_db.reset();
            m_db = MakeDB(/*wipe=*/false);
            m_layers[0].spy->SetBackend(*m_db);
        }
        ++m_stats.reopens;
        SIM_EXPECT(m_db->GetBestBlock() == m_base_best_block, "best block changed across a reopen");
        CheckBaseContents();
    }

    void CheckBaseContents()
    {
        std::map<COutPoint, Coin> stored;
        if (m_db) {
            for (auto cursor = m_db->Cursor(); cursor->Valid(); cursor->Next()) {
                COutPoint outpoint;
                Coin coin;
                SIM_EXPECT(cursor->GetKey(outpoint) && cursor->GetValue(coin), "unreadable database entry");
                stored.emplace(outpoint, coin);
            }
        } else {
            stored = m_mem_base.m_coins;
            SIM_EXPECT(m_mem_base.m_fresh_over_existing == 0, "a FRESH entry reached the base over an existing coin");
        }
        SIM_EXPECT(SameCoins(stored, m_models[0]), "base contents differ from the model: " + FirstDifference(stored, m_models[0]));
    }

    // Runs inside a flush or sync of layer `level`, before the parent
    // applies it: walks the flagged entries the cursor will hand over.
    void CheckFlush(size_t level, const CoinsViewCacheCursor& cursor)
    {
        const CCoinsViewCache& cache = *m_layers[level].cache;
        const auto& parent_view = m_models[level];
        const auto& view = m_models[level + 1];
        const std::string where = "write-back of layer " + std::to_string(level) + ": ";
        size_t listed = 0;
        for (const CoinsCachePair* it = cursor.Begin(); it != cursor.End(); it = cursor.Next(*it)) {
            const auto& [outpoint, entry] = *it;
            ++listed;
            const std::string entry_text = where + outpoint.ToString() + " " + Describe(entry.coin) + " flags " + std::to_string(FlagsOf(entry));
            // A cache only ever flags DIRTY first: the list holds no clean
            // and no FRESH-only entry.
            SIM_EXPECT(entry.IsDirty(), "listed entry without DIRTY at " + entry_text);
            SIM_EXPECT(!entry.IsFresh() || !entry.coin.IsSpent(), "spent FRESH entry at " + entry_text);
            const auto below = parent_view.find(outpoint);
            SIM_EXPECT(!entry.IsFresh() || below == parent_view.end(), "FRESH but the parent has a coin at " + entry_text);
            const auto shown = view.find(outpoint);
            SIM_EXPECT(entry.coin.IsSpent() ? shown == view.end() : (shown != view.end() && SameCoin(shown->second, entry.coin)),
                       "entry unlike the layer's view at " + entry_text);
        }
        SIM_EXPECT(listed == cache.GetDirtyCount(), where + "GetDirtyCount() " + std::to_string(cache.GetDirtyCount()) + ", listed " + std::to_string(listed));
        SIM_EXPECT(cache.RecomputeDynamicMemoryUsage() == cache.DynamicMemoryUsage(),
                   where + "DynamicMemoryUsage() " + std::to_string(cache.DynamicMemoryUsage()) + ", recomputed " + std::to_string(cache.RecomputeDynamicMemoryUsage()));
        m_stats.flushed_entries += listed;
    }

    // Reads every outpoint of layer `level`'s view (one of GetCoin, HaveCoin,
    // AccessCoin) and compares with its model. The reads pull clean copies
    // into this layer and those below; they are uncached again afterwards
    // so that checking does not change the state under test.
    void CheckView(size_t level)
    {
        const size_t count = m_universe.size();
        std::vector<std::vector<bool>> cached(level + 1, std::vector<bool>(count));
        for (size_t j = 0; j <= level; ++j) {
            for (size_t u = 0; u < count; ++u) cached[j][u] = m_layers[j].cache->HaveCoinInCache(m_universe[u]);
        }
        CCoinsViewCache& view = *m_layers[level].cache;
        const auto& model = m_models[level + 1];
        // PeekCoin first: it must agree with the model and leave every
        // layer's entries and memory as they were.
        std::vector<std::pair<size_t, size_t>> sizes;
        for (const auto& layer : m_layers) sizes.emplace_back(layer.cache->GetCacheSize(), layer.cache->DynamicMemoryUsage());
        for (size_t u = 0; u < count && !m_failed; ++u) {
            const auto it = model.find(m_universe[u]);
            const std::optional<Coin> expected = it == model.end() ? std::nullopt : std::optional{it->second};
            SIM_EXPECT(SameCoin(view.PeekCoin(m_universe[u]), expected), "layer " + std::to_string(level) + " peeks " +
                                                                             Describe(view.PeekCoin(m_universe[u])) + " at " + m_universe[u].ToString() + ", model " + Describe(expected));
        }
        for (size_t j = 0; j < m_layers.size(); ++j) {
            SIM_EXPECT(sizes[j] == std::make_pair(m_layers[j].cache->GetCacheSize(), m_layers[j].cache->DynamicMemoryUsage()),
                       "PeekCoin changed layer " + std::to_string(j));
        }
        const uint64_t method = (m_step + level) % 3;
        for (size_t u = 0; u < count && !m_failed; ++u) {
            const COutPoint& outpoint = m_universe[u];
            const auto it = model.find(outpoint);
            const std::optional<Coin> expected = it == model.end() ? std::nullopt : std::optional{it->second};
            bool ok = !cached[level][u] || expected;
            if (method == 0) ok = ok && SameCoin(view.GetCoin(outpoint), expected);
            if (method == 1) ok = ok && view.HaveCoin(outpoint) == expected.has_value();
            if (method == 2) ok = ok && (expected ? SameCoin(view.AccessCoin(outpoint), *expected) : view.AccessCoin(outpoint).IsSpent());
            SIM_EXPECT(ok, "layer " + std::to_string(level) + " shows " + Describe(view.GetCoin(outpoint)) + " at " + outpoint.ToString() + ", model " + Describe(expected));
        }
        for (size_t j = 0; j <= level; ++j) {
            for (size_t u = 0; u < count; ++u) {
                if (!cached[j][u]) m_layers[j].cache->Uncache(m_universe[u]);
            }
        }
        for (size_t j = 0; j <= level; ++j) {
            for (size_t u = 0; u < count; ++u) {
                SIM_EXPECT(m_layers[j].cache->HaveCoinInCache(m_universe[u]) == cached[j][u], "Uncache did not drop a clean entry");
            }
        }
    }

    void CheckAfterStep()
    {
        for (const auto& layer : m_layers) layer.cache->SanityCheck();
        CheckView(m_layers.size() - 1);
        if (m_step % 16 == 0) {
            for (size_t level = 0; level + 1 < m_layers.size(); ++level) CheckView(level);
        }
    }

    const uint64_t m_seed;
    TestRand m_rand;
    std::optional<std::filesystem::path> m_db_dir;
    TestBaseView m_mem_base;
    std::unique_ptr<CCoinsViewDB> m_db;
    uint256 m_base_best_block;
    std::vector<COutPoint> m_universe;
    std::vector<Layer> m_layers;
    std::vector<std::map<COutPoint, Coin>> m_models;
    SimStats m_stats;
    int m_step{0};
    const char* m_op{"setup"};
    bool m_failed{false};
};

void CheckSimCoverage(const CoinsStackSim& sim, bool with_db)
{
    const SimStats& s = sim.Stats();
    BOOST_TEST_MESSAGE("universe " << sim.UniverseSize() << ": adds " << s.adds_fresh << "/" << s.adds_overwrite << "/" << s.adds_unspendable
                                   << ", spends " << s.spends_hit << "/" << s.spends_miss << ", reads " << s.reads << ", emplaces "
                                   << s.emplaces_inserted << "/" << s.emplaces_ignored << ", flushes " << s.flushes_to_base << "/"
                                   << s.flushes_below_top << ", syncs " << s.syncs_to_base << "/" << s.syncs_below_top << " ("
                                   << s.flushed_entries << " entries), pops " << s.pops_flushed << "/"
                                   << s.pops_discarded << ", reopens " << s.reopens << ", partial batches " << s.partial_batches);
    BOOST_CHECK_GT(s.adds_fresh, 0U);
    BOOST_CHECK_GT(s.adds_overwrite, 0U);
    BOOST_CHECK_GT(s.adds_unspendable, 0U);
    BOOST_CHECK_GT(s.spends_hit, 0U);
    BOOST_CHECK_GT(s.spends_miss, 0U);
    BOOST_CHECK_GT(s.reads, 0U);
    BOOST_CHECK_GT(s.emplaces_inserted, 0U);
    BOOST_CHECK_GT(s.emplaces_ignored, 0U);
    BOOST_CHECK_GT(s.uncaches, 0U);
    BOOST_CHECK_GT(s.flushes_to_base, 0U);
    BOOST_CHECK_GT(s.flushes_below_top, 0U);
    BOOST_CHECK_GT(s.syncs_to_base, 0U);
    BOOST_CHECK_GT(s.syncs_below_top, 0U);
    BOOST_CHECK_GT(s.pops_flushed, 0U);
    BOOST_CHECK_GT(s.pops_discarded, 0U);
    BOOST_CHECK_EQUAL(s.max_depth, CoinsStackSim::MAX_LAYERS);
    if (with_db) {
        BOOST_CHECK_GT(s.reopens, 0U);
        BOOST_CHECK_GT(s.partial_batches, s.flushes_to_base + s.syncs_to_base);
    }
}

} // namespace

BOOST_AUTO_TEST_SUITE(coins_tests)

// Every state the tables start from, built through the public API, reads
// back as intended. The other tables rely on these builders.
BOOST_AUTO_TEST_CASE(state_builders_reach_every_valid_state)
{
    struct Case {
        Val base;
        Val value;
        int flags;
    };
    // clang-format off
    const Case cases[] = {
        // base        value        flags
        {Val::NONE,    Val::NONE,   NO_ENTRY     },
        {Val::V1,      Val::NONE,   NO_ENTRY     },
        {Val::V1,      Val::SPENT,  DIRTY        },
        {Val::V1,      Val::V1,     CLEAN        },
        {Val::V0,      Val::V1,     DIRTY        },
        {Val::NONE,    Val::V1,     DIRTY        },
        {Val::NONE,    Val::V1,     DIRTY | FRESH},
    };
    // clang-format on
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT("base " << Describe(c.base, CLEAN) << ", state " << Describe(c.value, c.flags))
        {
            TestBaseView base;
            CCoinsViewCache cache{&base, /*deterministic=*/true};
            Prepare(base, cache, c.base, c.value, c.flags);
            CheckObserved(FlushAndObserve(cache, base), c.value, c.flags);
        }
    }
}

// Sync writes what Flush would and keeps the cache: every unspent coin stays
// cached, clean; spent entries that were written go; clean entries are not
// even visited. A second Sync finds nothing to write.
BOOST_AUTO_TEST_CASE(sync_state_table)
{
    struct Case {
        Val base;
        Val value;
        int flags;
        Val base_after;
        size_t entries_after;
    };
    // clang-format off
    const Case cases[] = {
        // base        value        flags          base after   cached entries after
        {Val::NONE,    Val::NONE,   NO_ENTRY,      Val::NONE,   0},
        {Val::V1,      Val::NONE,   NO_ENTRY,      Val::V1,     0},
        {Val::V1,      Val::SPENT,  DIRTY,         Val::NONE,   0},
        {Val::V1,      Val::V1,     CLEAN,         Val::V1,     1},
        {Val::V0,      Val::V1,     DIRTY,         Val::V1,     1},
        {Val::NONE,    Val::V1,     DIRTY,         Val::V1,     1},
        {Val::NONE,    Val::V1,     DIRTY | FRESH, Val::V1,     1},
    };
    // clang-format on
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT("base " << Describe(c.base, CLEAN) << ", state " << Describe(c.value, c.flags))
        {
            TestBaseView base;
            CCoinsViewCache cache{&base, /*deterministic=*/true};
            Prepare(base, cache, c.base, c.value, c.flags);
            cache.SetBestBlock(BLOCK_A);
            base.m_writer = &cache;
            cache.Sync();
            BOOST_CHECK_EQUAL(base.m_writer_reported_usage, base.m_writer_recomputed_usage);
            const bool flagged = c.flags != NO_ENTRY && c.flags != CLEAN;
            BOOST_CHECK_EQUAL(base.m_last_visited, flagged ? 1U : 0U);
            const auto stored = base.m_coins.find(OUTPOINT);
            BOOST_CHECK_EQUAL(Describe(stored == base.m_coins.end() ? Val::NONE : ValOf(stored->second), CLEAN), Describe(c.base_after, CLEAN));
            BOOST_CHECK(base.GetBestBlock() == BLOCK_A);
            // The cache: same coins, nothing flagged, accounting intact.
            BOOST_CHECK_EQUAL(cache.GetCacheSize(), c.entries_after);
            BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
            const bool unspent = c.value != Val::NONE && c.value != Val::SPENT;
            BOOST_CHECK_EQUAL(cache.HaveCoinInCache(OUTPOINT), unspent);
            if (unspent) BOOST_CHECK(SameCoin(cache.AccessCoin(OUTPOINT), CoinOf(c.value)));
            BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), cache.RecomputeDynamicMemoryUsage());
            cache.SanityCheck();
            // Nothing left to write.
            cache.Sync();
            BOOST_CHECK_EQUAL(base.m_last_visited, 0U);
            BOOST_CHECK(base.m_last_write.empty());
        }
    }
}

// Writing back costs what changed, not what is cached: 1,000,000 clean
// coins and 10 changes hand over exactly the 10, for a Sync and a Flush.
BOOST_AUTO_TEST_CASE(write_back_visits_only_flagged_entries)
{
    constexpr uint32_t CLEAN_COINS = 1'000'000;
    TestBaseView base;
    base.m_record = false;
    const uint256 txid{HashFromByte(0x77)};
    for (uint32_t n = 0; n < CLEAN_COINS; ++n) base.m_coins.emplace_hint(base.m_coins.end(), COutPoint{txid, n}, CoinOf(Val::V1));
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    for (uint32_t n = 0; n < CLEAN_COINS; ++n) BOOST_REQUIRE(cache.HaveCoin(COutPoint{txid, n}));
    BOOST_REQUIRE_EQUAL(cache.GetDirtyCount(), 0U);
    const auto make_changes = [&](uint32_t first) {
        // Five new coins and five spends of cached ones.
        for (uint32_t i = 0; i < 5; ++i) cache.AddCoin(COutPoint{HashFromByte(0x78), first + i}, CoinOf(Val::V2), /*possible_overwrite=*/false);
        for (uint32_t i = 0; i < 5; ++i) BOOST_REQUIRE(cache.SpendCoin(COutPoint{txid, first + i}));
        BOOST_REQUIRE_EQUAL(cache.GetDirtyCount(), 10U);
    };

    make_changes(0);
    cache.SetBestBlock(BLOCK_A);
    cache.Sync();
    BOOST_CHECK_EQUAL(base.m_last_visited, 10U);
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), CLEAN_COINS - 5 + 5);
    BOOST_CHECK_EQUAL(base.m_coins.size(), CLEAN_COINS - 5 + 5);

    make_changes(100);
    cache.Flush();
    BOOST_CHECK_EQUAL(base.m_last_visited, 10U);
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 0U);
    BOOST_CHECK_EQUAL(base.m_coins.size(), CLEAN_COINS);
}

// AddCoin never reads the parent: only the cache's own entry decides.
BOOST_AUTO_TEST_CASE(addcoin_state_table)
{
    struct Case {
        Val base;
        Val value;
        int flags;
        bool possible_overwrite;
        Val result_value;
        int result_flags;
        bool throws;
    };
    // clang-format off
    const Case cases[] = {
        // base        cache before                possible   cache after                 throws
        //             value        flags          overwrite  value        flags
        {Val::NONE,    Val::NONE,   NO_ENTRY,      false,     Val::V2,     DIRTY | FRESH, false},
        {Val::NONE,    Val::NONE,   NO_ENTRY,      true,      Val::V2,     DIRTY,         false},
        // The caller vouched there is no coin, so even with one below the
        // entry is FRESH: a misuse BatchWrite or the database may catch.
        {Val::V1,      Val::NONE,   NO_ENTRY,      false,     Val::V2,     DIRTY | FRESH, false},
        {Val::V1,      Val::NONE,   NO_ENTRY,      true,      Val::V2,     DIRTY,         false},
        {Val::V1,      Val::V1,     CLEAN,         false,     Val::V1,     CLEAN,         true },
        {Val::V1,      Val::V1,     CLEAN,         true,      Val::V2,     DIRTY,         false},
        {Val::V0,      Val::V1,     DIRTY,         false,     Val::V1,     DIRTY,         true },
        {Val::V0,      Val::V1,     DIRTY,         true,      Val::V2,     DIRTY,         false},
        {Val::NONE,    Val::V1,     DIRTY | FRESH, false,     Val::V1,     DIRTY | FRESH, true },
        {Val::NONE,    Val::V1,     DIRTY | FRESH, true,      Val::V2,     DIRTY | FRESH, false},
        // A spend the parent has not seen yet must survive: never FRESH.
        {Val::V1,      Val::SPENT,  DIRTY,         false,     Val::V2,     DIRTY,         false},
        {Val::V1,      Val::SPENT,  DIRTY,         true,      Val::V2,     DIRTY,         false},
    };
    // clang-format on
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT("base " << Describe(c.base, CLEAN) << ", cache " << Describe(c.value, c.flags)
                                   << ", possible_overwrite " << c.possible_overwrite)
        {
            TestBaseView base;
            CCoinsViewCache cache{&base, /*deterministic=*/true};
            Prepare(base, cache, c.base, c.value, c.flags);
            bool threw = false;
            try {
                cache.AddCoin(OUTPOINT, CoinOf(Val::V2), c.possible_overwrite);
            } catch (const std::logic_error& e) {
                threw = true;
                BOOST_CHECK_EQUAL(e.what(), OVERWRITE_ERROR);
            }
            BOOST_CHECK_EQUAL(threw, c.throws);
            // After a throw the usage counter is known to be off: see
            // addcoin_throw_keeps_memory_accounting.
            CheckObserved(FlushAndObserve(cache, base, /*check_usage=*/!c.throws), c.result_value, c.result_flags);
        }
    }
}

BOOST_AUTO_TEST_CASE(spendcoin_state_table)
{
    struct Case {
        Val base;
        Val value;
        int flags;
        bool result;
        Val moved_out;
        Val result_value;
        int result_flags;
    };
    // clang-format off
    const Case cases[] = {
        // base        cache before                returns  moved out     cache after
        //             value        flags                                 value        flags
        {Val::NONE,    Val::NONE,   NO_ENTRY,      false,   Val::MARKER,  Val::NONE,   NO_ENTRY},
        // A miss reads the parent's coin first; the spend must reach it.
        {Val::V1,      Val::NONE,   NO_ENTRY,      true,    Val::V1,      Val::SPENT,  DIRTY   },
        {Val::V1,      Val::V1,     CLEAN,         true,    Val::V1,      Val::SPENT,  DIRTY   },
        {Val::V0,      Val::V1,     DIRTY,         true,    Val::V1,      Val::SPENT,  DIRTY   },
        // The parent never saw a FRESH coin: forgetting it is the spend.
        {Val::NONE,    Val::V1,     DIRTY | FRESH, true,    Val::V1,      Val::NONE,   NO_ENTRY},
        // A cached spent entry counts as found, as in Bitcoin Core, although
        // coins.h says SpendCoin "returns false when there is no unspent
        // coin". Re-spending changes nothing below.
        {Val::V1,      Val::SPENT,  DIRTY,         true,    Val::SPENT,   Val::SPENT,  DIRTY   },
    };
    // clang-format on
    for (const Case& c : cases) {
        for (const bool with_moveout : {true, false}) {
            BOOST_TEST_CONTEXT("base " << Describe(c.base, CLEAN) << ", cache " << Describe(c.value, c.flags)
                                       << ", moveout " << with_moveout)
            {
                TestBaseView base;
                CCoinsViewCache cache{&base, /*deterministic=*/true};
                Prepare(base, cache, c.base, c.value, c.flags);
                Coin moved = CoinOf(Val::MARKER);
                BOOST_CHECK_EQUAL(cache.SpendCoin(OUTPOINT, with_moveout ? &moved : nullptr), c.result);
                BOOST_CHECK_EQUAL(cache.HaveCoin(OUTPOINT), false);
                if (with_moveout) BOOST_CHECK(ValOf(moved) == c.moved_out);
                CheckObserved(FlushAndObserve(cache, base, /*check_usage=*/true), c.result_value, c.result_flags);
            }
        }
    }
}

// A miss copies the parent's coin in as a clean entry; a hit neither reads
// the parent nor touches the flags.
BOOST_AUTO_TEST_CASE(accesscoin_state_table)
{
    struct Case {
        Val base;
        Val value;
        int flags;
        Val returned;
        Val result_value;
        int result_flags;
    };
    // clang-format off
    const Case cases[] = {
        // base        cache before                returns      cache after
        //             value        flags                       value        flags
        {Val::NONE,    Val::NONE,   NO_ENTRY,      Val::SPENT,  Val::NONE,   NO_ENTRY     },
        {Val::V1,      Val::NONE,   NO_ENTRY,      Val::V1,     Val::V1,     CLEAN        },
        {Val::V1,      Val::V1,     CLEAN,         Val::V1,     Val::V1,     CLEAN        },
        {Val::V0,      Val::V1,     DIRTY,         Val::V1,     Val::V1,     DIRTY        },
        {Val::NONE,    Val::V1,     DIRTY | FRESH, Val::V1,     Val::V1,     DIRTY | FRESH},
        {Val::V1,      Val::SPENT,  DIRTY,         Val::SPENT,  Val::SPENT,  DIRTY        },
    };
    // clang-format on
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT("base " << Describe(c.base, CLEAN) << ", cache " << Describe(c.value, c.flags))
        {
            TestBaseView base;
            CCoinsViewCache cache{&base, /*deterministic=*/true};
            Prepare(base, cache, c.base, c.value, c.flags);
            // The base changing afterwards shows whether a hit reads it.
            if (c.flags != NO_ENTRY) base.m_coins[OUTPOINT] = CoinOf(Val::V2);
            BOOST_CHECK(ValOf(cache.AccessCoin(OUTPOINT)) == c.returned);
            const bool unspent = c.returned != Val::SPENT;
            BOOST_CHECK_EQUAL(cache.HaveCoin(OUTPOINT), unspent);
            BOOST_CHECK_EQUAL(cache.HaveCoinInCache(OUTPOINT), unspent);
            BOOST_CHECK_EQUAL(cache.GetCoin(OUTPOINT).has_value(), unspent);
            BOOST_CHECK_EQUAL(cache.GetDirtyCount(), size_t{c.result_flags != NO_ENTRY && (c.result_flags & DIRTY) != 0});
            CheckObserved(FlushAndObserve(cache, base), c.result_value, c.result_flags);
        }
    }
}

// No view's GetCoin (or PeekCoin) returns a spent coin. A parent that does
// is refused with std::logic_error by every read that would cache its
// answer, through GetCoin for a plain cache and PeekCoin for an overlay,
// and nothing is cached: a clean spent entry would be a state no cache may
// hold (coins.h). The cache stays usable.
BOOST_AUTO_TEST_CASE(spent_coin_from_the_parent_is_refused)
{
    struct SpentAtOutpoint final : CoinsViewEmpty {
        std::optional<Coin> GetCoin(const COutPoint& outpoint) const override
        {
            if (outpoint == OUTPOINT) return Coin{};
            return std::nullopt;
        }
    };
    const char* const refused = "CCoinsViewCache: the parent view returned a spent coin";
    const std::vector<std::pair<const char*, std::function<void(CCoinsViewCache&)>>> reads{
        {"AccessCoin", [](CCoinsViewCache& cache) { cache.AccessCoin(OUTPOINT); }},
        {"GetCoin", [](CCoinsViewCache& cache) { cache.GetCoin(OUTPOINT); }},
        {"HaveCoin", [](CCoinsViewCache& cache) { cache.HaveCoin(OUTPOINT); }},
        {"SpendCoin", [](CCoinsViewCache& cache) { cache.SpendCoin(OUTPOINT); }},
    };
    SpentAtOutpoint parent;
    for (const bool overlay : {false, true}) {
        for (const auto& [name, read] : reads) {
            BOOST_TEST_CONTEXT(name << (overlay ? " through an overlay" : ""))
            {
                std::unique_ptr<CCoinsViewCache> cache;
                if (overlay) {
                    cache = std::make_unique<CoinsViewOverlay>(&parent, nullptr, /*deterministic=*/true);
                } else {
                    cache = std::make_unique<CCoinsViewCache>(&parent, /*deterministic=*/true);
                }
                const size_t usage = cache->DynamicMemoryUsage();
                BOOST_CHECK_EXCEPTION(read(*cache), std::logic_error, [&](const auto& e) { return HasMessage(e, refused); });
                BOOST_CHECK_EQUAL(cache->GetCacheSize(), 0U);
                BOOST_CHECK_EQUAL(cache->GetDirtyCount(), 0U);
                BOOST_CHECK_EQUAL(cache->DynamicMemoryUsage(), usage);
                cache->SanityCheck();
                // Other outpoints read as before.
                BOOST_CHECK(!cache->HaveCoin(COutPoint{}));
            }
        }
    }
}

// parent.BatchWrite(child) for every parent entry state (as a cache reaches
// it through the public API) and every (spent?, DIRTY, FRESH) combination of
// the child's entry, including the ones a cache never produces. Children
// without DIRTY are ignored. A throw leaves the parent's entry unchanged.
BOOST_AUTO_TEST_CASE(batchwrite_state_table)
{
    struct Case {
        Val parent_value;
        int parent_flags;
        Val child_value;
        int child_flags;
        Val result_value;
        int result_flags;
        bool throws;
    };
    // clang-format off
    const Case cases[] = {
        // parent before                child entry                  parent after                throws
        // value        flags           value        flags           value        flags
        {Val::NONE,     NO_ENTRY,       Val::NONE,   NO_ENTRY,       Val::NONE,   NO_ENTRY,      false},
        {Val::NONE,     NO_ENTRY,       Val::V2,     CLEAN,          Val::NONE,   NO_ENTRY,      false},
        {Val::NONE,     NO_ENTRY,       Val::V2,     FRESH,          Val::NONE,   NO_ENTRY,      false},
        {Val::NONE,     NO_ENTRY,       Val::V2,     DIRTY,          Val::V2,     DIRTY,         false},
        {Val::NONE,     NO_ENTRY,       Val::V2,     DIRTY | FRESH,  Val::V2,     DIRTY | FRESH, false},
        {Val::NONE,     NO_ENTRY,       Val::SPENT,  CLEAN,          Val::NONE,   NO_ENTRY,      false},
        {Val::NONE,     NO_ENTRY,       Val::SPENT,  FRESH,          Val::NONE,   NO_ENTRY,      false},
        {Val::NONE,     NO_ENTRY,       Val::SPENT,  DIRTY,          Val::SPENT,  DIRTY,         false},
        {Val::NONE,     NO_ENTRY,       Val::SPENT,  DIRTY | FRESH,  Val::NONE,   NO_ENTRY,      false},

        {Val::SPENT,    DIRTY,          Val::NONE,   NO_ENTRY,       Val::SPENT,  DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::V2,     CLEAN,          Val::SPENT,  DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::V2,     FRESH,          Val::SPENT,  DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::V2,     DIRTY,          Val::V2,     DIRTY,         false},
        // Our spend is still unwritten, so the re-added coin is not FRESH.
        {Val::SPENT,    DIRTY,          Val::V2,     DIRTY | FRESH,  Val::V2,     DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::SPENT,  CLEAN,          Val::SPENT,  DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::SPENT,  FRESH,          Val::SPENT,  DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::SPENT,  DIRTY,          Val::SPENT,  DIRTY,         false},
        {Val::SPENT,    DIRTY,          Val::SPENT,  DIRTY | FRESH,  Val::SPENT,  DIRTY,         false},

        {Val::V1,       CLEAN,          Val::NONE,   NO_ENTRY,       Val::V1,     CLEAN,         false},
        {Val::V1,       CLEAN,          Val::V2,     CLEAN,          Val::V1,     CLEAN,         false},
        {Val::V1,       CLEAN,          Val::V2,     FRESH,          Val::V1,     CLEAN,         false},
        {Val::V1,       CLEAN,          Val::V2,     DIRTY,          Val::V2,     DIRTY,         false},
        {Val::V1,       CLEAN,          Val::V2,     DIRTY | FRESH,  Val::V1,     CLEAN,         true },
        {Val::V1,       CLEAN,          Val::SPENT,  CLEAN,          Val::V1,     CLEAN,         false},
        {Val::V1,       CLEAN,          Val::SPENT,  FRESH,          Val::V1,     CLEAN,         false},
        {Val::V1,       CLEAN,          Val::SPENT,  DIRTY,          Val::SPENT,  DIRTY,         false},
        {Val::V1,       CLEAN,          Val::SPENT,  DIRTY | FRESH,  Val::V1,     CLEAN,         true },

        {Val::V1,       DIRTY,          Val::NONE,   NO_ENTRY,       Val::V1,     DIRTY,         false},
        {Val::V1,       DIRTY,          Val::V2,     CLEAN,          Val::V1,     DIRTY,         false},
        {Val::V1,       DIRTY,          Val::V2,     FRESH,          Val::V1,     DIRTY,         false},
        {Val::V1,       DIRTY,          Val::V2,     DIRTY,          Val::V2,     DIRTY,         false},
        {Val::V1,       DIRTY,          Val::V2,     DIRTY | FRESH,  Val::V1,     DIRTY,         true },
        {Val::V1,       DIRTY,          Val::SPENT,  CLEAN,          Val::V1,     DIRTY,         false},
        {Val::V1,       DIRTY,          Val::SPENT,  FRESH,          Val::V1,     DIRTY,         false},
        {Val::V1,       DIRTY,          Val::SPENT,  DIRTY,          Val::SPENT,  DIRTY,         false},
        {Val::V1,       DIRTY,          Val::SPENT,  DIRTY | FRESH,  Val::V1,     DIRTY,         true },

        {Val::V1,       DIRTY | FRESH,  Val::NONE,   NO_ENTRY,       Val::V1,     DIRTY | FRESH, false},
        {Val::V1,       DIRTY | FRESH,  Val::V2,     CLEAN,          Val::V1,     DIRTY | FRESH, false},
        {Val::V1,       DIRTY | FRESH,  Val::V2,     FRESH,          Val::V1,     DIRTY | FRESH, false},
        {Val::V1,       DIRTY | FRESH,  Val::V2,     DIRTY,          Val::V2,     DIRTY | FRESH, false},
        {Val::V1,       DIRTY | FRESH,  Val::V2,     DIRTY | FRESH,  Val::V1,     DIRTY | FRESH, true },
        {Val::V1,       DIRTY | FRESH,  Val::SPENT,  CLEAN,          Val::V1,     DIRTY | FRESH, false},
        {Val::V1,       DIRTY | FRESH,  Val::SPENT,  FRESH,          Val::V1,     DIRTY | FRESH, false},
        // Our parent never saw the coin: the spend erases our entry.
        {Val::V1,       DIRTY | FRESH,  Val::SPENT,  DIRTY,          Val::NONE,   NO_ENTRY,      false},
        {Val::V1,       DIRTY | FRESH,  Val::SPENT,  DIRTY | FRESH,  Val::V1,     DIRTY | FRESH, true },
    };
    // clang-format on
    // What the parent's own parent holds for each parent state.
    const auto base_for = [](Val value, int flags) {
        if (flags == NO_ENTRY || flags == (DIRTY | FRESH)) return Val::NONE;
        if (flags == CLEAN) return value;
        return Val::V0;
    };
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT("parent " << Describe(c.parent_value, c.parent_flags) << ", child "
                                     << Describe(c.child_value, c.child_flags))
        {
            TestBaseView base;
            CCoinsViewCache parent{&base, /*deterministic=*/true};
            Prepare(base, parent, base_for(c.parent_value, c.parent_flags), c.parent_value, c.parent_flags);
            parent.SetBestBlock(BLOCK_A);

            FlaggedMap child;
            if (c.child_flags != NO_ENTRY) child.Add(OUTPOINT, CoinOf(c.child_value), c.child_flags);
            const uint256 new_block{HashFromByte(0x0b)};
            bool threw = false;
            try {
                child.WriteTo(parent, new_block);
            } catch (const std::logic_error& e) {
                threw = true;
                BOOST_CHECK_EQUAL(e.what(), FRESH_ERROR);
            }
            BOOST_CHECK_EQUAL(threw, c.throws);
            if (!threw) {
                // Every flagged entry was visited and released. A flush's
                // cursor erases nothing: the cache drops its map afterwards.
                BOOST_CHECK_EQUAL(child.FlaggedCount(), 0U);
                BOOST_CHECK_EQUAL(child.map.size(), c.child_flags == NO_ENTRY ? 0U : 1U);
                BOOST_CHECK(parent.GetBestBlock() == new_block);
            } else {
                BOOST_CHECK(parent.GetBestBlock() == BLOCK_A);
            }
            CheckObserved(FlushAndObserve(parent, base), c.result_value, c.result_flags);
        }
    }
}

// The same rules through real caches: a FRESH coin added in a child while
// the parent caches an unspent one is caught when the child flushes, and a
// three-level stack carries a spend and a new coin all the way down.
BOOST_AUTO_TEST_CASE(flush_through_stacked_caches)
{
    {
        TestBaseView base;
        base.m_coins[OUTPOINT] = CoinOf(Val::V1);
        CCoinsViewCache parent{&base, /*deterministic=*/true};
        CCoinsViewCache child{&parent, /*deterministic=*/true};
        BOOST_CHECK(SameCoin(parent.AccessCoin(OUTPOINT), CoinOf(Val::V1)));
        // Misuse: the child does not look below before vouching.
        child.AddCoin(OUTPOINT, CoinOf(Val::V2), /*possible_overwrite=*/false);
        BOOST_CHECK_EXCEPTION(child.Flush(), std::logic_error, [](const auto& e) { return HasMessage(e, FRESH_ERROR); });
        CheckObserved(FlushAndObserve(parent, base), Val::V1, CLEAN);
    }
    {
        const COutPoint other{HashFromByte(0xbb), 0};
        TestBaseView base;
        base.m_coins[OUTPOINT] = CoinOf(Val::V1);
        CCoinsViewCache parent{&base, /*deterministic=*/true};
        CCoinsViewCache child{&parent, /*deterministic=*/true};
        Coin moved;
        BOOST_CHECK(child.SpendCoin(OUTPOINT, &moved));
        BOOST_CHECK(SameCoin(moved, CoinOf(Val::V1)));
        child.AddCoin(other, CoinOf(Val::V2), /*possible_overwrite=*/false);
        child.SetBestBlock(BLOCK_A);
        child.Flush();
        // The parent read V1 while the child fetched it, then took the spend.
        BOOST_CHECK_EQUAL(parent.GetCacheSize(), 2U);
        BOOST_CHECK_EQUAL(parent.GetDirtyCount(), 2U);
        BOOST_CHECK(!parent.HaveCoin(OUTPOINT));
        BOOST_CHECK(SameCoin(parent.AccessCoin(other), CoinOf(Val::V2)));
        BOOST_CHECK(parent.GetBestBlock() == BLOCK_A);
        BOOST_CHECK(base.HaveCoin(OUTPOINT));
        base.m_writer = &parent;
        parent.Flush();
        BOOST_CHECK_EQUAL(base.m_writer_reported_usage, base.m_writer_recomputed_usage);
        BOOST_CHECK(!base.HaveCoin(OUTPOINT));
        BOOST_CHECK(SameCoin(base.GetCoin(other), CoinOf(Val::V2)));
        BOOST_CHECK(FlagsOf(base.m_last_write.at(other)) == (DIRTY | FRESH));
        BOOST_CHECK(FlagsOf(base.m_last_write.at(OUTPOINT)) == DIRTY);
        BOOST_CHECK(base.GetBestBlock() == BLOCK_A);
        BOOST_CHECK_EQUAL(base.m_fresh_over_existing, 0U);
    }
}

// Best blocks: a cache falls back to its parent's until it is told one, and
// a flush passes its own down.
BOOST_AUTO_TEST_CASE(best_block_passes_down_on_flush)
{
    TestBaseView base;
    base.m_best_block = BLOCK_A;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    BOOST_CHECK(cache.GetBestBlock() == BLOCK_A);
    const uint256 next{HashFromByte(0x0c)};
    cache.SetBestBlock(next);
    BOOST_CHECK(base.GetBestBlock() == BLOCK_A);
    cache.Flush();
    BOOST_CHECK(base.GetBestBlock() == next);
    BOOST_CHECK(cache.GetBestBlock() == next);
}

BOOST_AUTO_TEST_CASE(memory_usage_follows_coins_and_returns_after_flush)
{
    constexpr size_t BIG = 1000;
    constexpr size_t SMALL = 10;
    TestBaseView base;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    const size_t empty_usage = cache.DynamicMemoryUsage();
    size_t usage = empty_usage;
    for (uint32_t i = 0; i < 50; ++i) {
        cache.AddCoin(COutPoint{HashFromByte(0x10), i}, MakeCoin(0x51, BIG, 1, 1, false), /*possible_overwrite=*/false);
        const size_t now = cache.DynamicMemoryUsage();
        BOOST_CHECK_GE(now, usage + memusage::MallocUsage(BIG));
        usage = now;
    }
    // An entry costs its own bytes in the map's arena: no malloc header.
    const size_t node = sizeof(CoinsCachePair);
    BOOST_CHECK_GE(usage, empty_usage + 50 * (memusage::MallocUsage(BIG) + node));
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 50U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 50U);

    // Same map shape, so the change is exactly the scripts' difference; a
    // script this small lives inside the coin, with no heap block.
    static_assert(SMALL <= SCRIPT_INLINE_BYTES);
    cache.AddCoin(COutPoint{HashFromByte(0x10), 0}, MakeCoin(0x52, SMALL, 1, 1, false), /*possible_overwrite=*/true);
    BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), usage - memusage::MallocUsage(BIG));
    usage = cache.DynamicMemoryUsage();
    // A FRESH coin spent is erased: its script and its node go.
    Coin moved;
    BOOST_CHECK(cache.SpendCoin(COutPoint{HashFromByte(0x10), 1}, &moved));
    BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), usage - memusage::MallocUsage(BIG) - node);
    usage = cache.DynamicMemoryUsage();

    base.m_writer = &cache;
    cache.SetBestBlock(BLOCK_A);
    cache.Flush();
    BOOST_CHECK_EQUAL(base.m_writer_reported_usage, usage);
    BOOST_CHECK_EQUAL(base.m_writer_recomputed_usage, usage);
    // Every node and script is gone; the bucket array stays for the refill
    // (50 entries need fewer than 128 buckets).
    const size_t buckets_only = cache.DynamicMemoryUsage();
    BOOST_CHECK_GT(buckets_only, empty_usage);
    BOOST_CHECK_LE(buckets_only, memusage::MallocUsage(128 * sizeof(void*)));
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 0U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
    BOOST_CHECK_EQUAL(base.m_coins.size(), 49U);

    // Coins read back in from the parent are counted too.
    const size_t before_reads = cache.DynamicMemoryUsage();
    for (uint32_t i = 2; i < 12; ++i) BOOST_CHECK(cache.HaveCoin(COutPoint{HashFromByte(0x10), i}));
    BOOST_CHECK_GE(cache.DynamicMemoryUsage(), before_reads + 10 * (memusage::MallocUsage(BIG) + node));
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
    cache.Flush();
    BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), buckets_only);
}

// A flush after a snapshot load's emplaces frees the heap scripts of the
// emplaced entries and drops the map without destroying every entry, if
// those scripts are all the heap bytes the cache holds (DropEntries);
// otherwise (a coin added another way) it destroys every entry. Spends in
// between free slots that the next emplace reuses, so a slot can be listed
// twice. Either way the parent gets every coin before anything is freed,
// and only the map's bucket array and the slot list's capacity stay
// counted. (A script left unfreed shows as a leak in the sanitizers' run.)
BOOST_AUTO_TEST_CASE(flush_after_emplaces_frees_every_script)
{
    TestRand rand{0x6d1};
    for (int round = 0; round < 60; ++round) {
        TestBaseView base;
        base.m_record = false;
        CCoinsViewCache cache{&base, /*deterministic=*/true};
        std::map<COutPoint, Coin> model;
        // Every fourth round has no heap script; every third, no coin
        // added through AddCoin.
        const bool inline_only = round % 4 == 0;
        const bool emplaces_only = round % 3 == 0;
        for (int fill = 0; fill < 2; ++fill) {
            const int coins = 1 + static_cast<int>(rand.Below(150));
            for (int i = 0; i < coins; ++i) {
                const COutPoint outpoint{rand.Hash(), static_cast<uint32_t>(rand.Below(4))};
                if (model.contains(outpoint)) continue;
                const size_t script = rand.Below(inline_only ? SCRIPT_INLINE_BYTES + 1 : 3 * SCRIPT_INLINE_BYTES);
                const Coin coin = MakeCoin(0x60, script, 1 + i, 1 + fill, false);
                if (!emplaces_only && rand.OneIn(5)) {
                    cache.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
                } else {
                    cache.EmplaceNewCoinInternalDANGER(COutPoint{outpoint}, Coin{coin});
                }
                model.emplace(outpoint, coin);
                if (rand.OneIn(4)) {
                    // A FRESH coin spent: its entry and slot are freed.
                    auto spent = model.begin();
                    std::advance(spent, rand.Below(model.size()));
                    BOOST_CHECK(cache.SpendCoin(spent->first));
                    model.erase(spent);
                }
            }
            base.m_writer = &cache;
            cache.SetBestBlock(BLOCK_A);
            cache.Flush();
            BOOST_CHECK_EQUAL(base.m_writer_reported_usage, base.m_writer_recomputed_usage);
            BOOST_CHECK_EQUAL(cache.GetCacheSize(), 0U);
            BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
            BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), cache.RecomputeDynamicMemoryUsage());
            BOOST_REQUIRE_EQUAL(base.m_coins.size(), model.size());
            for (const auto& [outpoint, coin] : model) BOOST_CHECK(SameCoin(base.m_coins.at(outpoint), coin));
            // A coin read back from the parent is an entry the slot list
            // does not name: the next flush destroys every entry.
            if (!model.empty()) BOOST_CHECK(cache.HaveCoin(model.begin()->first));
        }
    }
}

BOOST_AUTO_TEST_CASE(dirty_count_counts_dirty_entries)
{
    const auto outpoint = [](uint32_t n) { return COutPoint{HashFromByte(0x20), n}; };
    TestBaseView base;
    for (uint32_t n : {0, 1, 2}) base.m_coins[outpoint(n)] = CoinOf(Val::V0);
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    Coin moved;

    BOOST_CHECK(SameCoin(cache.AccessCoin(outpoint(0)), CoinOf(Val::V0)));
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
    cache.AddCoin(outpoint(3), CoinOf(Val::V1), /*possible_overwrite=*/false);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 1U);
    BOOST_CHECK(cache.SpendCoin(outpoint(1), &moved));
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 2U);
    // Added FRESH and spent again: the entry is gone, nothing to write.
    cache.AddCoin(outpoint(4), CoinOf(Val::V1), /*possible_overwrite=*/false);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 3U);
    BOOST_CHECK(cache.SpendCoin(outpoint(4), &moved));
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 2U);
    cache.AddCoin(outpoint(2), CoinOf(Val::V2), /*possible_overwrite=*/true);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 3U);
    cache.EmplaceCoinInternalDANGER(outpoint(5), CoinOf(Val::V2));
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 4U);
    // Overwriting a DIRTY entry does not count it twice.
    cache.AddCoin(outpoint(3), CoinOf(Val::V2), /*possible_overwrite=*/true);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 4U);
    // Uncache drops only the clean entry.
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 5U);
    for (uint32_t n = 0; n < 6; ++n) cache.Uncache(outpoint(n));
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 4U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 4U);

    cache.Flush();
    size_t written_dirty = 0;
    for (const auto& [outpoint, entry] : base.m_last_write) written_dirty += (entry.flags & DIRTY) != 0;
    BOOST_CHECK_EQUAL(written_dirty, 4U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
}

// The dirty count follows the DIRTY flag alone: a spend, or a parent's
// BatchWrite of a spend, that erases a FRESH entry takes one off the count
// only when that entry was DIRTY. Each (spent?, DIRTY, FRESH) state is put
// into the cache's map directly, the ones a cache never makes included
// (FRESH alone, spent and clean), as Bitcoin Core's tables start from them;
// every state after the operation is a valid one.
BOOST_AUTO_TEST_CASE(dirty_count_drops_only_for_dirty_entries)
{
    struct Case {
        Val value;
        int flags;
        Val result_value;
        int result_flags;
    };
    // clang-format off
    const Case cases[]{
        // entry before                 after a spend, or a spent DIRTY child written in
        // value        flags           value        flags
        {Val::V1,       CLEAN,          Val::SPENT,  DIRTY   },
        {Val::V1,       DIRTY,          Val::SPENT,  DIRTY   },
        {Val::V1,       FRESH,          Val::NONE,   NO_ENTRY},
        {Val::V1,       DIRTY | FRESH,  Val::NONE,   NO_ENTRY},
        {Val::SPENT,    CLEAN,          Val::SPENT,  DIRTY   },
        {Val::SPENT,    DIRTY,          Val::SPENT,  DIRTY   },
        {Val::SPENT,    FRESH,          Val::NONE,   NO_ENTRY},
        {Val::SPENT,    DIRTY | FRESH,  Val::NONE,   NO_ENTRY},
    };
    // clang-format on
    for (const Case& c : cases) {
        for (const bool by_batch_write : {false, true}) {
            BOOST_TEST_CONTEXT("entry " << Describe(c.value, c.flags) << (by_batch_write ? ", BatchWrite" : ", SpendCoin"))
            {
                TestBaseView base;
                CCoinsViewCache cache{&base, /*deterministic=*/true};
                auto [it, inserted] = CacheMap(cache).emplace(OUTPOINT, CoinOf(c.value));
                BOOST_REQUIRE(inserted);
                CacheUsage(cache) += it->second.coin.DynamicMemoryUsage();
                if (c.flags & DIRTY) ++CacheDirtyCount(cache);
                SetFlags(it, CacheFlagged(cache), c.flags);

                if (by_batch_write) {
                    FlaggedMap child;
                    child.Add(OUTPOINT, Coin{}, DIRTY);
                    child.WriteTo(cache, BLOCK_A);
                } else {
                    BOOST_CHECK(cache.SpendCoin(OUTPOINT));
                }
                const auto after = CacheMap(cache).find(OUTPOINT);
                if (after == CacheMap(cache).end()) {
                    CheckObserved({Val::NONE, NO_ENTRY}, c.result_value, c.result_flags);
                } else {
                    CheckObserved({ValOf(after->second.coin), FlagsOf(after->second)}, c.result_value, c.result_flags);
                }
                BOOST_CHECK_EQUAL(cache.GetDirtyCount(), c.result_flags == NO_ENTRY ? 0U : 1U);
                cache.SanityCheck();
            }
        }
    }
}

// The snapshot-loading shortcut: DIRTY but never FRESH (the parent is not
// consulted, so nothing is known about it), and a duplicate is ignored.
BOOST_AUTO_TEST_CASE(emplace_coin_internal_danger)
{
    const COutPoint spent_outpoint{HashFromByte(0x30), 1};
    TestBaseView base;
    base.m_coins[OUTPOINT] = CoinOf(Val::V0);
    base.m_coins[spent_outpoint] = CoinOf(Val::V0);
    CCoinsViewCache cache{&base, /*deterministic=*/true};

    cache.EmplaceCoinInternalDANGER(COutPoint{OUTPOINT}, CoinOf(Val::V1));
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 1U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 1U);
    BOOST_CHECK(SameCoin(cache.AccessCoin(OUTPOINT), CoinOf(Val::V1)));
    const size_t usage = cache.DynamicMemoryUsage();

    cache.EmplaceCoinInternalDANGER(COutPoint{OUTPOINT}, CoinOf(Val::V2));
    BOOST_CHECK(SameCoin(cache.AccessCoin(OUTPOINT), CoinOf(Val::V1)));
    BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), usage);
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 1U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 1U);

    // A spent entry is an entry too: the emplace does not revive the coin.
    Coin moved;
    BOOST_CHECK(cache.SpendCoin(spent_outpoint, &moved));
    cache.EmplaceCoinInternalDANGER(COutPoint{spent_outpoint}, CoinOf(Val::V2));
    BOOST_CHECK(!cache.HaveCoin(spent_outpoint));

    CheckObserved(FlushAndObserve(cache, base), Val::V1, DIRTY);
    BOOST_CHECK(FlagsOf(base.m_last_write.at(spent_outpoint)) == DIRTY);
    BOOST_CHECK(base.m_last_write.at(spent_outpoint).coin.IsSpent());
    BOOST_CHECK(SameCoin(base.GetCoin(OUTPOINT), CoinOf(Val::V1)));
    BOOST_CHECK(!base.GetCoin(spent_outpoint));
}

// Provably unspendable outputs (OP_RETURN first, or a script over
// MAX_SCRIPT_SIZE) never enter the cache, not even over an existing coin.
// The limits themselves are spendable, and survive the database.
BOOST_AUTO_TEST_CASE(unspendable_outputs_are_not_added)
{
    const auto outpoint = [](uint32_t n) { return COutPoint{HashFromByte(0x40), n}; };
    const std::vector<CScript> unspendable{
        CScript{OP_RETURN},
        CScript{OP_RETURN, 0x04, 0xde, 0xad, 0xbe, 0xef},
        CScript(MAX_SCRIPT_SIZE + 1, 0x51),
        CScript(MAX_SCRIPT_SIZE + 1, OP_RETURN),
    };
    const std::vector<CScript> spendable{
        CScript{},
        CScript{0x51, OP_RETURN},
        CScript(MAX_SCRIPT_SIZE, 0x51),
    };

    TempDirFixture tmp;
    CCoinsViewDB db{DBParams{.path = tmp.m_path / "chainstate", .cache_bytes = 1 << 20}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    CCoinsViewCache cache{&db, /*deterministic=*/true};
    const size_t empty_usage = cache.DynamicMemoryUsage();
    for (uint32_t i = 0; i < unspendable.size(); ++i) {
        BOOST_CHECK(unspendable[i].IsUnspendable());
        cache.AddCoin(outpoint(i), Coin{CTxOut{1000, unspendable[i]}, 10, false}, /*possible_overwrite=*/false);
        BOOST_CHECK(!cache.HaveCoin(outpoint(i)));
    }
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 0U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
    BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), empty_usage);

    cache.AddCoin(OUTPOINT, CoinOf(Val::V1), /*possible_overwrite=*/false);
    BOOST_CHECK_NO_THROW(cache.AddCoin(OUTPOINT, Coin{CTxOut{5, CScript{OP_RETURN}}, 1, false}, /*possible_overwrite=*/false));
    BOOST_CHECK(SameCoin(cache.AccessCoin(OUTPOINT), CoinOf(Val::V1)));

    std::vector<Coin> spendable_coins;
    for (uint32_t i = 0; i < spendable.size(); ++i) {
        BOOST_CHECK(!spendable[i].IsUnspendable());
        spendable_coins.emplace_back(CTxOut{1000 + i, spendable[i]}, 10, false);
        cache.AddCoin(outpoint(100 + i), Coin{spendable_coins.back()}, /*possible_overwrite=*/false);
        BOOST_CHECK(cache.HaveCoin(outpoint(100 + i)));
    }
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 1 + spendable.size());

    cache.SetBestBlock(BLOCK_A);
    cache.Flush();
    for (uint32_t i = 0; i < unspendable.size(); ++i) BOOST_CHECK(!db.HaveCoin(outpoint(i)));
    for (uint32_t i = 0; i < spendable.size(); ++i) BOOST_CHECK(SameCoin(db.GetCoin(outpoint(100 + i)), spendable_coins[i]));
    size_t stored = 0;
    for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) ++stored;
    BOOST_CHECK_EQUAL(stored, 1 + spendable.size());
}

// CoinsViewEmpty: one shared instance that finds nothing and stores
// nothing. A cache flushed or synced into it gets an exception and keeps
// every change, flagged as before; a view derived from it answers HaveCoin
// and PeekCoin through its own GetCoin. CCoinsView itself is abstract: the
// empty view is the only view of nothing.
BOOST_AUTO_TEST_CASE(empty_view_finds_nothing_and_refuses_writes)
{
    static_assert(std::is_abstract_v<CCoinsView>);
    static_assert(!std::is_default_constructible_v<CoinsViewEmpty> && !std::is_copy_constructible_v<CoinsViewEmpty>);
    CoinsViewEmpty& empty = CoinsViewEmpty::Get();
    BOOST_CHECK(&empty == &CoinsViewEmpty::Get());
    for (const COutPoint& outpoint : {OUTPOINT, COutPoint{}, COutPoint{HashFromByte(0x01), 0}}) {
        BOOST_CHECK(!empty.GetCoin(outpoint));
        BOOST_CHECK(!empty.PeekCoin(outpoint));
        BOOST_CHECK(!empty.HaveCoin(outpoint));
    }
    BOOST_CHECK(empty.GetBestBlock().IsNull());
    BOOST_CHECK(empty.GetHeadBlocks().empty());
    BOOST_CHECK(empty.Cursor() == nullptr);
    BOOST_CHECK_EQUAL(empty.EstimateSize(), 0U);

    const char* const refused = "CoinsViewEmpty::BatchWrite: this view stores nothing";
    for (const bool flush : {true, false}) {
        BOOST_TEST_CONTEXT((flush ? "Flush" : "Sync"))
        {
            CCoinsViewCache cache{&empty, /*deterministic=*/true};
            BOOST_CHECK(cache.GetBestBlock().IsNull());
            cache.AddCoin(OUTPOINT, CoinOf(Val::V1), /*possible_overwrite=*/false);
            cache.SetBestBlock(BLOCK_A);
            const size_t usage = cache.DynamicMemoryUsage();
            if (flush) {
                BOOST_CHECK_EXCEPTION(cache.Flush(), std::logic_error, [&](const auto& e) { return HasMessage(e, refused); });
            } else {
                BOOST_CHECK_EXCEPTION(cache.Sync(), std::logic_error, [&](const auto& e) { return HasMessage(e, refused); });
            }
            BOOST_CHECK(SameCoin(cache.AccessCoin(OUTPOINT), CoinOf(Val::V1)));
            BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 1U);
            BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), usage);
            cache.SanityCheck();
            cache.Reset();
        }
    }

    struct OneCoin final : CoinsViewEmpty {
        std::optional<Coin> GetCoin(const COutPoint& outpoint) const override
        {
            if (outpoint == OUTPOINT) return CoinOf(Val::V2);
            return std::nullopt;
        }
    };
    const OneCoin one;
    BOOST_CHECK(one.HaveCoin(OUTPOINT));
    BOOST_CHECK(SameCoin(one.PeekCoin(OUTPOINT), CoinOf(Val::V2)));
    BOOST_CHECK(!one.HaveCoin(COutPoint{}));
    BOOST_CHECK(!one.PeekCoin(COutPoint{}));
}

// Randomized stacks over the in-memory base: see CoinsStackSim.
BOOST_AUTO_TEST_CASE(random_stack_over_memory_base)
{
    for (const uint64_t seed : {1, 2, 3, 4}) {
        BOOST_TEST_CONTEXT("seed " << seed)
        {
            CoinsStackSim sim{seed, std::nullopt};
            sim.Run(/*steps=*/1500);
            BOOST_CHECK(!sim.Failed());
            CheckSimCoverage(sim, /*with_db=*/false);
        }
    }
}

// Randomized stacks over a CCoinsViewDB with tiny write batches, reopened
// under the caches now and then.
BOOST_AUTO_TEST_CASE(random_stack_over_database)
{
    for (const uint64_t seed : {11, 12}) {
        BOOST_TEST_CONTEXT("seed " << seed)
        {
            TempDirFixture tmp;
            CoinsStackSim sim{seed, tmp.m_path / "chainstate"};
            sim.Run(/*steps=*/800);
            BOOST_CHECK(!sim.Failed());
            CheckSimCoverage(sim, /*with_db=*/true);
        }
    }
}

// A refused overwrite must leave the usage counter as it was.
BOOST_AUTO_TEST_CASE(addcoin_throw_keeps_memory_accounting)
{
    TestBaseView base;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    cache.AddCoin(OUTPOINT, CoinOf(Val::V1), /*possible_overwrite=*/false);
    const size_t usage = cache.DynamicMemoryUsage();
    BOOST_CHECK_EXCEPTION(cache.AddCoin(OUTPOINT, CoinOf(Val::V2), /*possible_overwrite=*/false), std::logic_error,
                          [](const auto& e) { return HasMessage(e, OVERWRITE_ERROR); });
    BOOST_CHECK(SameCoin(cache.AccessCoin(OUTPOINT), CoinOf(Val::V1)));
    BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), usage);
    base.m_writer = &cache;
    cache.Flush();
    BOOST_CHECK_EQUAL(base.m_writer_reported_usage, base.m_writer_recomputed_usage);
}

// A spend without moveout must free the script, as the counter assumes
// (a std::vector::clear() would keep the heap block).
BOOST_AUTO_TEST_CASE(spend_without_moveout_keeps_memory_accounting)
{
    TestBaseView base;
    base.m_coins[OUTPOINT] = CoinOf(Val::V1);
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    BOOST_CHECK(cache.SpendCoin(OUTPOINT));
    BOOST_CHECK(!cache.HaveCoin(OUTPOINT));
    base.m_writer = &cache;
    cache.Flush();
    BOOST_CHECK_EQUAL(base.m_writer_reported_usage, base.m_writer_recomputed_usage);
    BOOST_CHECK(FlagsOf(base.m_last_write.at(OUTPOINT)) == DIRTY);
    BOOST_CHECK(!base.HaveCoin(OUTPOINT));
}

// AddCoins: which outputs may replace a coin, and the flags each gets. The
// parent holds `parent` at output 0; `cached` copies it into the cache
// first, which is where AddCoin looks for a coin it would overwrite.
// Without check_for_overwrite a coinbase always passes possible_overwrite
// (never FRESH) and anything else never does; with it, the view decides.
BOOST_AUTO_TEST_CASE(addcoins_state_table)
{
    struct Case {
        Val parent;
        bool cached;
        bool coinbase;
        bool check_for_overwrite;
        int flags; // of output 0 afterwards; NO_ENTRY: AddCoins throws
    };
    // clang-format off
    const Case cases[]{
        // parent    cached  coinbase check  flags
        {Val::NONE, false,  false,   false, DIRTY | FRESH},
        {Val::NONE, false,  false,   true,  DIRTY | FRESH},
        {Val::NONE, false,  true,    false, DIRTY},
        {Val::NONE, false,  true,    true,  DIRTY | FRESH},
        {Val::V0,   true,   false,   false, NO_ENTRY},
        {Val::V0,   false,  false,   true,  DIRTY},
        {Val::V0,   true,   false,   true,  DIRTY},
        {Val::V0,   true,   true,    false, DIRTY},
        {Val::V0,   false,  true,    true,  DIRTY},
    };
    // clang-format on
    for (const Case& c : cases) {
        CMutableTransaction mtx;
        mtx.vin.emplace_back(c.coinbase ? COutPoint{} : OUTPOINT);
        mtx.vout.emplace_back(4000, CScript(30, 0x53));
        mtx.vout.emplace_back(0, CScript{OP_RETURN, 0x01, 0x02});
        mtx.vout.emplace_back(5000, CScript(70, 0x54));
        const CTransaction tx{mtx};
        BOOST_REQUIRE_EQUAL(tx.IsCoinBase(), c.coinbase);
        const COutPoint out0{tx.GetHash(), 0};
        BOOST_TEST_CONTEXT("parent " << Describe(c.parent, CLEAN) << ", cached " << c.cached << ", coinbase " << c.coinbase
                                     << ", check_for_overwrite " << c.check_for_overwrite)
        {
            TestBaseView base;
            if (c.parent != Val::NONE) base.m_coins[out0] = CoinOf(c.parent);
            CCoinsViewCache cache{&base, /*deterministic=*/true};
            if (c.cached) BOOST_REQUIRE(SameCoin(cache.AccessCoin(out0), CoinOf(c.parent)));
            if (c.flags == NO_ENTRY) {
                BOOST_CHECK_EXCEPTION(AddCoins(cache, tx, 77, c.check_for_overwrite), std::logic_error,
                                      [](const auto& e) { return HasMessage(e, OVERWRITE_ERROR); });
                BOOST_CHECK(SameCoin(cache.AccessCoin(out0), CoinOf(c.parent)));
                continue;
            }
            AddCoins(cache, tx, 77, c.check_for_overwrite);
            for (uint32_t n : {0u, 2u}) {
                BOOST_CHECK(SameCoin(cache.AccessCoin(COutPoint{tx.GetHash(), n}), Coin{tx.vout[n], 77, c.coinbase}));
                BOOST_CHECK_EQUAL(cache.AccessCoin(COutPoint{tx.GetHash(), n}).IsCoinBase(), c.coinbase);
            }
            // The OP_RETURN output never becomes a coin.
            BOOST_CHECK(!cache.HaveCoin(COutPoint{tx.GetHash(), 1}));
            cache.Flush();
            BOOST_CHECK_EQUAL(base.m_last_write.size(), 2U);
            BOOST_CHECK_EQUAL(Describe(ValOf(base.m_last_write.at(out0).coin), base.m_last_write.at(out0).flags),
                              Describe(Val::OTHER, c.flags));
            BOOST_CHECK(SameCoin(base.GetCoin(out0), Coin{tx.vout[0], 77, c.coinbase}));
        }
    }
}

// PeekCoin through two caches over a database answers as GetCoin does, a
// spent entry in either cache hiding the coin below it, and leaves both
// caches' entries and memory exactly as they were; GetCoin then fills them.
BOOST_AUTO_TEST_CASE(peekcoin_fills_no_cache)
{
    const auto outpoint = [](uint32_t n) { return COutPoint{HashFromByte(0x60), n}; };
    TempDirFixture tmp;
    CCoinsViewDB db{DBParams{.path = tmp.m_path / "chainstate", .cache_bytes = 1 << 20}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    {
        CCoinsViewCache loader{&db, /*deterministic=*/true};
        for (uint32_t n = 0; n < 6; ++n) loader.AddCoin(outpoint(n), CoinOf(n % 2 ? Val::V1 : Val::V0), /*possible_overwrite=*/false);
        loader.SetBestBlock(BLOCK_A);
        loader.Flush();
    }
    CCoinsViewCache middle{&db, /*deterministic=*/true};
    CCoinsViewCache top{&middle, /*deterministic=*/true};
    // 0: only in the database. 1: spent in the middle cache. 2: spent in the
    // top cache. 3: overwritten in the top cache. 4: cached clean in the
    // middle. 5: cached clean in both. 6: added in the middle. 7: nowhere.
    BOOST_REQUIRE(middle.SpendCoin(outpoint(1)));
    BOOST_REQUIRE(top.SpendCoin(outpoint(2)));
    top.AddCoin(outpoint(3), CoinOf(Val::V2), /*possible_overwrite=*/true);
    BOOST_REQUIRE(middle.HaveCoin(outpoint(4)));
    BOOST_REQUIRE(top.HaveCoin(outpoint(5)));
    middle.AddCoin(outpoint(6), CoinOf(Val::V2), /*possible_overwrite=*/false);
    const std::optional<Coin> expected[]{CoinOf(Val::V0), std::nullopt, std::nullopt, CoinOf(Val::V2),
                                         CoinOf(Val::V0), CoinOf(Val::V1), CoinOf(Val::V2), std::nullopt};

    const size_t top_entries = top.GetCacheSize(), middle_entries = middle.GetCacheSize();
    const size_t top_usage = top.DynamicMemoryUsage(), middle_usage = middle.DynamicMemoryUsage();
    for (uint32_t n = 0; n < std::size(expected); ++n) {
        BOOST_TEST_CONTEXT("outpoint " << n)
        {
            BOOST_CHECK_EQUAL(Describe(top.PeekCoin(outpoint(n))), Describe(expected[n]));
            // The database's PeekCoin is its GetCoin.
            BOOST_CHECK(SameCoin(db.PeekCoin(outpoint(n)), db.GetCoin(outpoint(n))));
        }
    }
    BOOST_CHECK_EQUAL(top.GetCacheSize(), top_entries);
    BOOST_CHECK_EQUAL(middle.GetCacheSize(), middle_entries);
    BOOST_CHECK_EQUAL(top.DynamicMemoryUsage(), top_usage);
    BOOST_CHECK_EQUAL(middle.DynamicMemoryUsage(), middle_usage);
    BOOST_CHECK(!top.HaveCoinInCache(outpoint(0)) && !middle.HaveCoinInCache(outpoint(0)));

    // GetCoin gives the same answers, and does fill the caches.
    for (uint32_t n = 0; n < std::size(expected); ++n) BOOST_CHECK_EQUAL(Describe(top.GetCoin(outpoint(n))), Describe(expected[n]));
    BOOST_CHECK(top.HaveCoinInCache(outpoint(0)) && middle.HaveCoinInCache(outpoint(0)));
    BOOST_CHECK_GT(top.GetCacheSize(), top_entries);
    top.SanityCheck();
    middle.SanityCheck();
}

// A view over another that counts the coins asked of it.
class CountingView : public CCoinsViewBacked
{
public:
    using CCoinsViewBacked::CCoinsViewBacked;
    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override
    {
        ++reads;
        return CCoinsViewBacked::GetCoin(outpoint);
    }
    std::optional<Coin> PeekCoin(const COutPoint& outpoint) const override
    {
        ++reads;
        return CCoinsViewBacked::PeekCoin(outpoint);
    }
    mutable size_t reads{0};
};

// A cache marked as holding every coin of its (empty) parent, against an
// unmarked twin over another empty parent: random adds, spends, lookups of
// coins that exist, were spent or never existed, and Syncs, with a Flush
// late in each round. Every answer is the twin's, and while the mark lasts
// (until the Flush) the marked cache never reads its parent.
BOOST_AUTO_TEST_CASE(cache_holding_every_parent_coin_skips_the_parent_randomized)
{
    TestRand rand{0x5eed};
    for (int round = 0; round < 8; ++round) {
        BOOST_TEST_CONTEXT("round " << round)
        {
            CCoinsViewDB marked_db{DBParams{.path = "marked", .memory_only = true}, CoinsViewOptions{}};
            CCoinsViewDB twin_db{DBParams{.path = "twin", .memory_only = true}, CoinsViewOptions{}};
            CountingView counting{&marked_db};
            CCoinsViewCache marked{&counting, /*deterministic=*/true};
            CCoinsViewCache twin{&twin_db, /*deterministic=*/true};
            marked.MarkHoldsEveryParentCoin();
            std::vector<COutPoint> seen;
            const auto pick = [&] { return seen.empty() || rand.OneIn(4) ? COutPoint{rand.Hash(), static_cast<uint32_t>(rand.Below(3))} : seen[rand.Below(seen.size())]; };
            const int flush_at = 300 + static_cast<int>(rand.Below(200));
            for (int step = 0; step < 600; ++step) {
                if (step == flush_at) {
                    marked.SetBestBlock(BLOCK_A);
                    twin.SetBestBlock(BLOCK_A);
                    marked.Flush();
                    twin.Flush();
                    BOOST_CHECK(!marked.HoldsEveryParentCoin());
                    continue;
                }
                const COutPoint outpoint = pick();
                switch (rand.Below(6)) {
                case 0: {
                    const Coin coin = RandomCoin(rand, /*allow_unspendable=*/false);
                    const bool overwrite = twin.HaveCoin(outpoint);
                    marked.AddCoin(outpoint, Coin{coin}, overwrite);
                    twin.AddCoin(outpoint, Coin{coin}, overwrite);
                    seen.push_back(outpoint);
                    break;
                }
                case 1:
                    BOOST_CHECK_EQUAL(marked.SpendCoin(outpoint), twin.SpendCoin(outpoint));
                    break;
                case 2:
                    BOOST_CHECK_EQUAL(marked.HaveCoin(outpoint), twin.HaveCoin(outpoint));
                    break;
                case 3:
                    BOOST_CHECK_EQUAL(Describe(marked.PeekCoin(outpoint)), Describe(twin.PeekCoin(outpoint)));
                    break;
                case 4:
                    BOOST_CHECK_EQUAL(Describe(marked.GetCoin(outpoint)), Describe(twin.GetCoin(outpoint)));
                    break;
                case 5:
                    if (rand.OneIn(10)) {
                        marked.SetBestBlock(HashFromByte(0x0b));
                        twin.SetBestBlock(HashFromByte(0x0b));
                        marked.Sync();
                        twin.Sync();
                        BOOST_CHECK(marked.HoldsEveryParentCoin() == (step < flush_at));
                    }
                    break;
                }
                if (step < flush_at) BOOST_REQUIRE_EQUAL(counting.reads, 0U);
            }
            // After the Flush the parent is asked again, and answers the same.
            BOOST_CHECK_GT(counting.reads, 0U);
            for (const COutPoint& outpoint : seen) BOOST_CHECK_EQUAL(Describe(marked.GetCoin(outpoint)), Describe(twin.GetCoin(outpoint)));
            marked.SanityCheck();
        }
    }
}

// What ends the mark besides a Flush: Reset, Uncache of an entry, a new
// parent. Uncache of an outpoint the cache lacks drops nothing, and a
// Flush of a cache without entries writes only a best block: both keep it.
BOOST_AUTO_TEST_CASE(holding_every_parent_coin_ends_when_a_coin_may_be_dropped)
{
    CCoinsViewDB db{DBParams{.path = "ends", .memory_only = true}, CoinsViewOptions{}};
    const COutPoint outpoint{HashFromByte(0x71), 0};
    struct Case {
        const char* what;
        std::function<void(CCoinsViewCache&)> act;
        bool still_holds;
    };
    const Case cases[]{
        {"Sync", [](CCoinsViewCache& c) { c.SetBestBlock(BLOCK_A); c.Sync(); }, true},
        {"Flush of a cache without entries", [](CCoinsViewCache& c) { c.Reset(); c.MarkHoldsEveryParentCoin(); c.SetBestBlock(BLOCK_A); c.Flush(); }, true},
        {"Uncache of a missing coin", [](CCoinsViewCache& c) { c.Uncache(COutPoint{HashFromByte(0x72), 0}); }, true},
        {"Flush", [](CCoinsViewCache& c) { c.SetBestBlock(BLOCK_A); c.Flush(); }, false},
        {"Reset", [](CCoinsViewCache& c) { c.Reset(); }, false},
        {"Uncache of a clean coin", [](CCoinsViewCache& c) { c.SetBestBlock(BLOCK_A); c.Sync(); c.Uncache(COutPoint{HashFromByte(0x71), 0}); }, false},
        {"SetBackend", [&db](CCoinsViewCache& c) { c.SetBackend(db); }, false},
    };
    for (const Case& c : cases) {
        BOOST_TEST_CONTEXT(c.what)
        {
            CCoinsViewDB fresh{DBParams{.path = "fresh", .memory_only = true}, CoinsViewOptions{}};
            CCoinsViewCache cache{&fresh, /*deterministic=*/true};
            cache.MarkHoldsEveryParentCoin();
            cache.AddCoin(outpoint, CoinOf(Val::V0), /*possible_overwrite=*/false);
            c.act(cache);
            BOOST_CHECK_EQUAL(cache.HoldsEveryParentCoin(), c.still_holds);
        }
    }
}

// An ephemeral view reused round after round, as Core reuses one per block:
// random changes on a cache over a database, then either a flush (the block
// connected), a throw, or just the end of the scope, with a ResetGuard in
// every case. The database is compared with a std::map model after each
// round, and the cache must be as new: no entries, nothing flagged, no coin
// memory, the database's best block, and the database untouched unless
// flushed into.
BOOST_AUTO_TEST_CASE(reset_guard_against_model)
{
    TestRand rand{21};
    std::vector<COutPoint> universe;
    for (uint32_t n = 0; n < 40; ++n) universe.emplace_back(HashFromByte(static_cast<unsigned char>(0x70 + n % 4)), n);
    TempDirFixture tmp;
    CCoinsViewDB db{DBParams{.path = tmp.m_path / "chainstate", .cache_bytes = 1 << 20}, CoinsViewOptions{.batch_write_bytes = DEFAULT_DB_CACHE_BATCH}};
    CCoinsViewCache ephemeral{&db, /*deterministic=*/true};
    std::map<COutPoint, Coin> model;
    uint256 model_best;
    size_t flushed = 0, thrown = 0, dropped = 0;

    for (int round = 0; round < 80; ++round) {
        std::map<COutPoint, Coin> pending = model;
        const uint64_t ending = rand.Below(3);
        try {
            const auto guard = ephemeral.CreateResetGuard();
            const uint64_t ops = 1 + rand.Below(30);
            for (uint64_t op = 0; op < ops; ++op) {
                const COutPoint& outpoint = universe[rand.Below(universe.size())];
                switch (rand.Below(3)) {
                case 0: {
                    const Coin coin = RandomCoin(rand, /*allow_unspendable=*/false);
                    ephemeral.AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/pending.contains(outpoint) || rand.Bool());
                    pending.insert_or_assign(outpoint, coin);
                    break;
                }
                case 1: {
                    // A spent entry counts as found too: only a coin must be.
                    const bool found = ephemeral.SpendCoin(outpoint);
                    BOOST_CHECK(found || !pending.contains(outpoint));
                    pending.erase(outpoint);
                    break;
                }
                default: {
                    const auto it = pending.find(outpoint);
                    BOOST_CHECK(SameCoin(ephemeral.GetCoin(outpoint), it == pending.end() ? std::nullopt : std::optional{it->second}));
                }
                }
            }
            const uint256 block = rand.Hash();
            ephemeral.SetBestBlock(block);
            BOOST_CHECK(ephemeral.GetBestBlock() == block);
            if (ending == 0) {
                ephemeral.Flush();
                model = pending;
                model_best = block;
                ++flushed;
            } else if (ending == 1) {
                throw std::runtime_error("invalid block");
            } else {
                ++dropped;
            }
        } catch (const std::runtime_error&) {
            ++thrown;
        }

        BOOST_TEST_CONTEXT("round " << round << ", ending " << ending)
        {
            BOOST_CHECK_EQUAL(ephemeral.GetCacheSize(), 0U);
            BOOST_CHECK_EQUAL(ephemeral.GetDirtyCount(), 0U);
            BOOST_CHECK_EQUAL(ephemeral.DynamicMemoryUsage(), ephemeral.RecomputeDynamicMemoryUsage());
            ephemeral.SanityCheck();
            BOOST_CHECK(db.GetBestBlock() == model_best);
            BOOST_CHECK(ephemeral.GetBestBlock() == model_best);
            std::map<COutPoint, Coin> stored;
            for (auto cursor = db.Cursor(); cursor->Valid(); cursor->Next()) {
                COutPoint outpoint;
                Coin coin;
                BOOST_REQUIRE(cursor->GetKey(outpoint) && cursor->GetValue(coin));
                stored.emplace(outpoint, coin);
            }
            BOOST_CHECK_MESSAGE(SameCoins(stored, model), FirstDifference(stored, model));
            for (const COutPoint& outpoint : universe) {
                const auto it = model.find(outpoint);
                BOOST_CHECK(SameCoin(ephemeral.PeekCoin(outpoint), it == model.end() ? std::nullopt : std::optional{it->second}));
            }
        }
    }
    BOOST_CHECK_GT(flushed, 10U);
    BOOST_CHECK_GT(thrown, 10U);
    BOOST_CHECK_GT(dropped, 10U);
}

// The cursor counts the cache's DIRTY entries down as it releases them, to
// 0 after a complete write into a test view or a parent cache, flush or
// sync alike; a FRESH-only entry (never made by a cache) is not counted.
BOOST_AUTO_TEST_CASE(cursor_counts_down_dirty_count)
{
    const auto outpoint = [](uint32_t n) { return COutPoint{HashFromByte(0x80), n}; };
    struct Entry {
        Val value;
        int flags;
    };
    // clang-format off
    const Entry entries[]{
        {Val::V0,    DIRTY},
        {Val::V1,    DIRTY | FRESH},
        {Val::V2,    FRESH},
        {Val::SPENT, DIRTY},
        {Val::V0,    CLEAN},
    };
    // clang-format on
    for (const bool will_erase : {true, false}) {
        for (const bool into_cache : {false, true}) {
            BOOST_TEST_CONTEXT("will_erase " << will_erase << ", into a cache " << into_cache)
            {
                FlaggedMap flagged;
                for (uint32_t n = 0; n < std::size(entries); ++n) {
                    flagged.Add(outpoint(n), entries[n].value == Val::SPENT ? Coin{} : CoinOf(entries[n].value), entries[n].flags);
                }
                BOOST_CHECK_EQUAL(flagged.dirty_count, 3U);
                TestBaseView base;
                CCoinsViewCache parent{&base, /*deterministic=*/true};
                CCoinsView& target = into_cache ? static_cast<CCoinsView&>(parent) : base;
                flagged.WriteTo(target, BLOCK_A, will_erase);
                BOOST_CHECK_EQUAL(flagged.dirty_count, 0U);
                BOOST_CHECK_EQUAL(flagged.FlaggedCount(), 0U);
                // A sync's cursor erases the spent entry at once.
                BOOST_CHECK_EQUAL(flagged.map.size(), will_erase ? 5U : 4U);
                if (into_cache) {
                    // The parent now holds the three DIRTY ones, DIRTY.
                    BOOST_CHECK_EQUAL(parent.GetDirtyCount(), 3U);
                    parent.SanityCheck();
                }
            }
        }
    }
}

// A parent that stores every entry it is handed, releases them all at once
// (ReleaseUntil(End()), as a database's final batch does) and then, when
// told to, throws: a failure after the write, such as its log line.
class ReleaseAllView final : public CoinsViewEmpty
{
public:
    std::map<COutPoint, Coin> m_coins;
    bool m_throw_after{false};

    std::optional<Coin> GetCoin(const COutPoint& outpoint) const override
    {
        if (auto it = m_coins.find(outpoint); it != m_coins.end()) return it->second;
        return std::nullopt;
    }

    void BatchWrite(CoinsViewCacheCursor& cursor, const uint256&) override
    {
        for (auto it = cursor.Begin(); it != cursor.End(); it = cursor.Next(*it)) {
            if (!it->second.IsDirty()) continue;
            if (it->second.coin.IsSpent()) {
                m_coins.erase(it->first);
            } else {
                m_coins.insert_or_assign(it->first, it->second.coin);
            }
        }
        cursor.ReleaseUntil(cursor.End());
        if (m_throw_after) throw std::runtime_error{"after the write"};
    }
};

// Releasing everything up to End() in a flush only empties the list: the
// map goes next, whole. A sync's release still cleans each entry. A flush
// that throws once everything is released drops the map all the same, so
// no entry is left carrying flags the parent has already acted on: a FRESH
// coin spent afterwards must reach the parent as a spend.
BOOST_AUTO_TEST_CASE(release_all_then_the_map_goes)
{
    const auto outpoint = [](uint32_t n) { return COutPoint{HashFromByte(0x81), n}; };
    for (const bool throws : {false, true}) {
        BOOST_TEST_CONTEXT("throws after the write " << throws)
        {
            ReleaseAllView base;
            base.m_throw_after = throws;
            CCoinsViewCache cache{&base, /*deterministic=*/true};
            for (uint32_t n = 0; n < 4; ++n) cache.AddCoin(outpoint(n), CoinOf(Val::V1), /*possible_overwrite=*/false);
            BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 4U);
            if (throws) {
                BOOST_CHECK_THROW(cache.Flush(), std::runtime_error);
            } else {
                cache.Flush();
            }
            BOOST_CHECK_EQUAL(base.m_coins.size(), 4U);
            BOOST_CHECK_EQUAL(cache.GetCacheSize(), 0U);
            BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
            BOOST_CHECK_EQUAL(cache.DynamicMemoryUsage(), cache.RecomputeDynamicMemoryUsage());
            cache.SanityCheck();
            // Read back from the parent, clean; a spend now reaches it.
            BOOST_CHECK(cache.SpendCoin(outpoint(0)));
            base.m_throw_after = false;
            cache.Flush();
            BOOST_CHECK(!base.m_coins.contains(outpoint(0)));
            BOOST_CHECK_EQUAL(base.m_coins.size(), 3U);
        }
    }
    // A sync keeps its entries, cleaned one by one.
    ReleaseAllView base;
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    for (uint32_t n = 0; n < 4; ++n) cache.AddCoin(outpoint(n), CoinOf(Val::V1), /*possible_overwrite=*/false);
    cache.Sync();
    BOOST_CHECK_EQUAL(cache.GetCacheSize(), 4U);
    BOOST_CHECK_EQUAL(cache.GetDirtyCount(), 0U);
    cache.SanityCheck();
    BOOST_CHECK(cache.SpendCoin(outpoint(1)));
    cache.Sync();
    BOOST_CHECK(!base.m_coins.contains(outpoint(1)));
}

// A cursor built with Core's four arguments keeps no byte count: the
// caller's usage is not its business.
BOOST_AUTO_TEST_CASE(cursor_without_usage)
{
    FlaggedMap flagged;
    flagged.Add(OUTPOINT, CoinOf(Val::V1), DIRTY);
    const size_t usage = flagged.usage;
    TestBaseView base;
    CCoinsViewCache parent{&base, /*deterministic=*/true};
    CoinsViewCacheCursor cursor{flagged.dirty_count, flagged.list, flagged.map, /*will_erase=*/true};
    parent.BatchWrite(cursor, BLOCK_A);
    BOOST_CHECK_EQUAL(flagged.dirty_count, 0U);
    BOOST_CHECK_EQUAL(flagged.usage, usage);
    BOOST_CHECK(SameCoin(parent.AccessCoin(OUTPOINT), CoinOf(Val::V1)));
}

// CCoinsMap::contains, which Core's cache simulations call to ask whether a
// coin is cached at all, spent or not: a spent coin the base still holds
// stays as an entry until written, a FRESH one spent goes at once, a miss
// caches nothing, and a flush leaves nothing.
BOOST_AUTO_TEST_CASE(map_contains_what_the_cache_holds)
{
    const auto outpoint = [](uint32_t n) { return COutPoint{HashFromByte(0x82), n}; };
    TestBaseView base;
    base.m_coins.emplace(outpoint(0), CoinOf(Val::V1));
    base.m_coins.emplace(outpoint(1), CoinOf(Val::V1));
    CCoinsViewCache cache{&base, /*deterministic=*/true};
    const CCoinsMap& map = CacheMap(cache);

    BOOST_CHECK(!map.contains(outpoint(0)));
    BOOST_CHECK(!cache.AccessCoin(outpoint(0)).IsSpent());
    BOOST_CHECK(map.contains(outpoint(0)));
    BOOST_CHECK(cache.SpendCoin(outpoint(1)));
    BOOST_CHECK(map.contains(outpoint(1)));
    cache.AddCoin(outpoint(2), CoinOf(Val::V2), /*possible_overwrite=*/false);
    BOOST_CHECK(map.contains(outpoint(2)));
    BOOST_CHECK(cache.SpendCoin(outpoint(2)));
    BOOST_CHECK(!map.contains(outpoint(2)));
    BOOST_CHECK(cache.AccessCoin(outpoint(3)).IsSpent());
    BOOST_CHECK(!map.contains(outpoint(3)));
    BOOST_CHECK_EQUAL(map.size(), 2U);

    cache.SetBestBlock(BLOCK_A);
    cache.Flush();
    for (uint32_t n = 0; n < 4; ++n) BOOST_CHECK(!map.contains(outpoint(n)));
}

BOOST_AUTO_TEST_SUITE_END()
