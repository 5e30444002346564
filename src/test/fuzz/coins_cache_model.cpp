// coins_cache_model: one to three CCoinsViewCache layers over a memory-only
// CCoinsViewDB, driven by the input through AddCoin, SpendCoin, GetCoin,
// Uncache, Flush, Sync (both reach the parents' BatchWrite), pushing and
// popping layers, changing the best block, and flushes into the database
// that a simulated crash cuts short after a partial batch.
//
// The model is one std::map per layer, holding what that layer should
// show: a change made at the top alters the top map only, a flush or sync
// of a layer copies its map into its parent's, and dropping a layer
// without a flush drops its map. After every step every cache must pass
// SanityCheck(), and the top cache must show every coin of its map and
// nothing where an operation just spent or refused one; after every step
// that can change more than one outpoint (Uncache, Flush, Sync, a push or
// pop, a crashed write) it is compared with its map over every outpoint the
// input can name. That full sweep reads every absent outpoint down to
// LevelDB, which after every step would cost two thirds of the run time.
// After every database write, the database is read back whole with its
// cursor and compared with the bottom map.

#include <test/fuzz/fuzz.h>
#include <test/fuzz/fuzz_input.h>

#include <primitives/amount.h>
#include <script/script.h>
#include <test/util/coin_compare.h>
#include <txdb.h>
#include <util/strencodings.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace {

constexpr size_t MAX_CACHES = 3;
// Bounds one run's time whatever the input's length: libFuzzer wants
// thousands of runs a second, not one long one.
constexpr size_t MAX_STEPS = 300;

// The outpoints an input can name: few enough that operations collide on
// the same coin often. 16511 and 16512 are where VARINT's byte order stops
// being numeric, so the database cursor's key order is exercised too.
constexpr size_t TXID_COUNT = 4;
constexpr std::array<uint32_t, 4> VOUTS{0, 1, 16511, 16512};

// The generator point G, uncompressed: a valid key, so P2PK to it gets the
// special compressed form (nSize 4).
constexpr std::string_view G_UNCOMPRESSED =
    "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
    "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8";

constexpr std::array<uint8_t, 4> BLOCK_TAGS{0xb0, 0xb1, 0xb2, 0xb3};

uint256 Filled(uint8_t byte)
{
    std::array<unsigned char, uint256::SIZE> bytes;
    bytes.fill(byte);
    return uint256{bytes};
}

std::vector<COutPoint> AllOutpoints()
{
    std::vector<COutPoint> all;
    for (size_t t = 0; t < TXID_COUNT; ++t) {
        for (const uint32_t vout : VOUTS) all.emplace_back(Filled(static_cast<uint8_t>(0x10 + t)), vout);
    }
    return all;
}

const std::vector<COutPoint>& Outpoints()
{
    static const std::vector<COutPoint> all = AllOutpoints();
    return all;
}

// One script of each shape compression treats differently, plus the two
// unspendable ones AddCoin must ignore.
CScript MakeScript(FuzzInput& in)
{
    const uint8_t kind = in.Below(10);
    const uint8_t fill = in.Byte();
    auto filled = [&](CScript prefix, size_t count, CScript suffix) {
        prefix.insert(prefix.end(), count, fill);
        prefix.insert(prefix.end(), suffix.begin(), suffix.end());
        return prefix;
    };
    switch (kind) {
    case 0: return filled({OP_DUP, OP_HASH160, 20}, 20, {OP_EQUALVERIFY, OP_CHECKSIG}); // P2PKH
    case 1: return filled({OP_HASH160, 20}, 20, {OP_EQUAL});                            // P2SH
    case 2: return filled({OP_0, 20}, 20, {});                                          // P2WPKH, generic
    case 3: return filled({33, uint8_t(2 + (fill & 1))}, 32, {OP_CHECKSIG});            // compressed P2PK
    case 4: {                                                                           // valid uncompressed P2PK
        CScript script{65};
        const auto key = *TryParseHex(G_UNCOMPRESSED);
        script.insert(script.end(), key.begin(), key.end());
        script.push_back(OP_CHECKSIG);
        return script;
    }
    case 5: return filled({65, 0x04}, 64, {OP_CHECKSIG});                               // off-curve key, generic
    case 6: return filled({}, 36 + in.Below(85), {});                                   // past the inline 35 bytes
    case 7: return CScript{};                                                           // empty
    case 8: return filled({OP_RETURN}, in.Below(8), {});                                // unspendable
    default: return filled({}, MAX_SCRIPT_SIZE + 1, {});                                // unspendable by size
    }
}

CAmount MakeAmount(FuzzInput& in)
{
    switch (in.Below(4)) {
    case 0: return 0;
    case 1: return MAX_MONEY;
    case 2: return in.Byte();
    default: return static_cast<CAmount>(in.Integral<uint64_t>() % (static_cast<uint64_t>(MAX_MONEY) + 1));
    }
}

Coin MakeCoin(FuzzInput& in)
{
    CScript script = MakeScript(in);
    const CAmount amount = MakeAmount(in);
    const uint32_t height = in.Integral<uint32_t>() & 0x7fffffff;
    return Coin{CTxOut{amount, std::move(script)}, static_cast<int>(height), in.Bool()};
}

// Thrown by the database's crash hook; deliberately no std::exception, so
// that nothing between the hook and the harness can take it for an error
// of its own.
struct SimulatedCrash {
};

using CoinMap = std::map<COutPoint, Coin>;

class CacheModel
{
public:
    explicit CacheModel(FuzzInput& in) : m_in{in}
    {
        // Batches of a few coins, so that a flush is split and a simulated
        // crash can land between batches. The hook is called after every
        // partial batch (ratio 1 always draws) and throws only when armed.
        const size_t batch_bytes = 1 + size_t{m_in.Byte()} * 8;
        m_db = std::make_unique<CCoinsViewDB>(
            DBParams{.path = "fuzz_coins_cache_model", .cache_bytes = 1 << 20, .memory_only = true, .obfuscate = false},
            CoinsViewOptions{.batch_write_bytes = batch_bytes, .simulate_crash_ratio = 1, .on_simulated_crash = [this] { OnPartialBatch(); }});
        m_models.emplace_back();
        PushCache();
        // The database needs a best block to write; later ones come from
        // SetBestBlock on the top cache and travel down with the flushes.
        m_caches.front()->SetBestBlock(Filled(BLOCK_TAGS[0]));
    }
    CacheModel(const CacheModel&) = delete;
    CacheModel& operator=(const CacheModel&) = delete;

    void Run()
    {
        while (!m_in.Empty() && m_stats.steps < MAX_STEPS) {
            m_touched.reset();
            m_sweep = false;
            Step();
            ++m_stats.steps;
            CheckCaches();
            CheckTop();
        }
    }

    const CacheModelStats& Stats() const { return m_stats; }

private:
    CCoinsViewCache& Top() { return *m_caches.back(); }
    CoinMap& TopModel() { return m_models.back(); }

    const COutPoint& PickOutpoint() { return Outpoints()[m_in.Below(Outpoints().size())]; }
    // For AddCoin and SpendCoin, which change the view at one outpoint.
    const COutPoint& Touch(const COutPoint& outpoint)
    {
        m_touched = outpoint;
        return outpoint;
    }
    size_t PickLayer() { return m_in.Below(m_caches.size()); }

    void Step()
    {
        switch (m_in.Below(12)) {
        case 0:
        case 1: AddCoin(); break;
        case 2: SpendCoin(); break;
        case 3: CheckOneAtLayer(); break;
        case 4:
            m_caches[PickLayer()]->Uncache(PickOutpoint());
            m_sweep = true;
            break;
        case 5:
            WriteBack(PickLayer(), /*flush=*/true);
            m_sweep = true;
            break;
        case 6:
            WriteBack(PickLayer(), /*flush=*/false);
            m_sweep = true;
            break;
        case 7:
            PushCache();
            m_sweep = true;
            break;
        case 8:
            PopCache();
            m_sweep = true;
            break;
        case 9: Top().SetBestBlock(Filled(BLOCK_TAGS[m_in.Below(BLOCK_TAGS.size())])); break;
        case 10:
            CrashingWrite();
            m_sweep = true;
            break;
        default: CheckTopCached(); break;
        }
    }

    void AddCoin()
    {
        const COutPoint& outpoint = Touch(PickOutpoint());
        const Coin coin = MakeCoin(m_in);
        bool possible_overwrite = m_in.Bool();
        const bool unspendable = coin.out.scriptPubKey.IsUnspendable();
        const bool exists = TopModel().contains(outpoint);
        if (exists && !possible_overwrite) {
            if (!Top().HaveCoinInCache(outpoint)) {
                // Without the coin in this cache, AddCoin cannot see the
                // overwrite; its contract makes the caller say so.
                possible_overwrite = true;
            } else {
                bool refused = false;
                try {
                    Top().AddCoin(outpoint, Coin{coin}, /*possible_overwrite=*/false);
                } catch (const std::logic_error&) {
                    refused = true;
                }
                // An unspendable output is dropped before the check.
                FUZZ_CHECK(refused != unspendable);
                ++m_stats.overwrites_refused;
                return;
            }
        }
        Top().AddCoin(outpoint, Coin{coin}, possible_overwrite);
        if (unspendable) return;
        TopModel()[outpoint] = coin;
        ++m_stats.coins_added;
    }

    void SpendCoin()
    {
        const COutPoint& outpoint = Touch(PickOutpoint());
        const bool move_out = m_in.Bool();
        Coin moved;
        const bool found = Top().SpendCoin(outpoint, move_out ? &moved : nullptr);
        const auto it = TopModel().find(outpoint);
        if (it == TopModel().end()) {
            // Found only as an entry that is already spent.
            if (found && move_out) FUZZ_CHECK(moved.IsSpent());
            return;
        }
        FUZZ_CHECK(found);
        if (move_out) FUZZ_CHECK(SameCoin(moved, it->second));
        TopModel().erase(it);
    }

    // Reads one coin through a lower layer, which caches it there.
    void CheckOneAtLayer()
    {
        const size_t layer = PickLayer();
        const COutPoint& outpoint = PickOutpoint();
        CheckCoin(*m_caches[layer], m_models[layer + 1], outpoint);
    }

    // HaveCoinInCache never reads the parent, so a coin it reports must be
    // one the model has.
    void CheckTopCached()
    {
        const COutPoint& outpoint = PickOutpoint();
        if (Top().HaveCoinInCache(outpoint)) FUZZ_CHECK(TopModel().contains(outpoint));
        const Coin& accessed = Top().AccessCoin(outpoint);
        const auto it = TopModel().find(outpoint);
        FUZZ_CHECK(accessed.IsSpent() == (it == TopModel().end()));
        if (it != TopModel().end()) FUZZ_CHECK(SameCoin(accessed, it->second));
    }

    // Flush or Sync of cache `layer` into its parent, a cache or the
    // database: the parent then shows what the layer shows.
    void WriteBack(size_t layer, bool flush)
    {
        CCoinsViewCache& cache = *m_caches[layer];
        const uint256 best = cache.GetBestBlock();
        flush ? cache.Flush() : cache.Sync();
        FinishWriteBack(layer, flush, best);
    }

    void FinishWriteBack(size_t layer, bool flush, const uint256& best)
    {
        CCoinsViewCache& cache = *m_caches[layer];
        if (flush) {
            FUZZ_CHECK(cache.GetCacheSize() == 0);
        }
        FUZZ_CHECK(cache.GetDirtyCount() == 0);
        m_models[layer] = m_models[layer + 1];
        if (layer == 0) {
            m_db_best = best;
            ++m_stats.db_writes;
            CheckDatabase();
        }
    }

    // A write into the database that dies after its n-th partial batch, as
    // -dbcrashratio makes the node die: the database is then between two
    // states and says so with 'H', while the cache still holds every change
    // the database did not store. Writing again, to the same best block as
    // a restarted node's replay would, must complete it.
    void CrashingWrite()
    {
        const bool flush = m_in.Bool();
        m_crash_after = 1 + m_in.Below(3);
        m_partial_batches = 0;
        CCoinsViewCache& bottom = *m_caches.front();
        const uint256 best = bottom.GetBestBlock();
        bool crashed = false;
        try {
            flush ? bottom.Flush() : bottom.Sync();
        } catch (const SimulatedCrash&) {
            crashed = true;
        }
        m_crash_after.reset();
        if (!crashed) {
            FinishWriteBack(0, flush, best);
            return;
        }
        ++m_stats.simulated_crashes;
        FUZZ_CHECK(m_db->GetBestBlock().IsNull());
        FUZZ_CHECK((m_db->GetHeadBlocks() == std::vector<uint256>{best, m_db_best}));
        bottom.SanityCheck();
        CheckLayer(0);

        bottom.Flush();
        FinishWriteBack(0, /*flush=*/true, best);
    }

    void OnPartialBatch()
    {
        if (m_crash_after && ++m_partial_batches == *m_crash_after) throw SimulatedCrash{};
    }

    void PushCache()
    {
        if (m_caches.size() == MAX_CACHES) return;
        CCoinsView* parent = m_caches.empty() ? static_cast<CCoinsView*>(m_db.get()) : m_caches.back().get();
        m_caches.push_back(std::make_unique<CCoinsViewCache>(parent, /*deterministic=*/true));
        m_models.push_back(m_models.back());
        m_stats.max_depth = std::max(m_stats.max_depth, m_caches.size());
    }

    // Drops the top cache, written back first or abandoned with its changes.
    // The bottom cache stays: it carries the database's best block.
    void PopCache()
    {
        const bool write_back = m_in.Bool();
        if (m_caches.size() == 1) return;
        if (write_back) WriteBack(m_caches.size() - 1, /*flush=*/true);
        m_caches.pop_back();
        m_models.pop_back();
    }

    void CheckCoin(const CCoinsViewCache& cache, const CoinMap& model, const COutPoint& outpoint)
    {
        const std::optional<Coin> coin = cache.GetCoin(outpoint);
        const auto it = model.find(outpoint);
        FUZZ_CHECK(coin.has_value() == (it != model.end()));
        if (coin) FUZZ_CHECK(SameCoin(*coin, it->second));
    }

    void CheckLayer(size_t layer)
    {
        for (const COutPoint& outpoint : Outpoints()) CheckCoin(*m_caches[layer], m_models[layer + 1], outpoint);
    }

    void CheckTop()
    {
        if (m_sweep) return CheckLayer(m_caches.size() - 1);
        for (const auto& [outpoint, coin] : TopModel()) CheckCoin(Top(), TopModel(), outpoint);
        if (m_touched) CheckCoin(Top(), TopModel(), *m_touched);
    }

    void CheckCaches()
    {
        for (const auto& cache : m_caches) {
            cache->SanityCheck();
            FUZZ_CHECK(cache->DynamicMemoryUsage() == cache->RecomputeDynamicMemoryUsage());
        }
    }

    // The whole database through its cursor: exactly the bottom map, in
    // chainstate key order, with the best block of the last write and no
    // unfinished-write marker.
    void CheckDatabase()
    {
        ++m_stats.db_compares;
        FUZZ_CHECK(m_db->GetBestBlock() == m_db_best);
        FUZZ_CHECK(m_db->GetHeadBlocks().empty());
        CoinMap on_disk;
        std::optional<COutPoint> previous;
        for (auto cursor = m_db->Cursor(); cursor->Valid(); cursor->Next()) {
            COutPoint outpoint;
            Coin coin;
            FUZZ_CHECK(cursor->GetKey(outpoint) && cursor->GetValue(coin));
            if (previous) FUZZ_CHECK(CoinKeyLess(*previous, outpoint));
            previous = outpoint;
            on_disk.emplace(outpoint, std::move(coin));
        }
        FUZZ_CHECK(on_disk.size() == m_models.front().size());
        for (const auto& [outpoint, coin] : m_models.front()) {
            const auto it = on_disk.find(outpoint);
            FUZZ_CHECK(it != on_disk.end() && SameCoin(it->second, coin));
        }
    }

    FuzzInput& m_in;
    // Declared before the database, whose crash hook reads them.
    std::optional<size_t> m_crash_after;
    size_t m_partial_batches{0};
    std::unique_ptr<CCoinsViewDB> m_db;
    // m_caches[i] is backed by m_caches[i - 1], the first by the database.
    std::vector<std::unique_ptr<CCoinsViewCache>> m_caches;
    // m_models[0] is the database, m_models[i + 1] what m_caches[i] shows.
    std::vector<CoinMap> m_models;
    // The database's best block after its last complete write.
    uint256 m_db_best;
    // What the current step changed: one outpoint, or possibly many.
    std::optional<COutPoint> m_touched;
    bool m_sweep{false};
    CacheModelStats m_stats;
};

} // namespace

CacheModelStats RunCacheModel(std::span<const uint8_t> input)
{
    FuzzInput in{input};
    CacheModel model{in};
    model.Run();
    return model.Stats();
}

void FuzzCoinsCacheModel(std::span<const uint8_t> input) { RunCacheModel(input); }
