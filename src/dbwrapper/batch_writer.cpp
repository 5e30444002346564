#include <dbwrapper.h>

#include <util/log.h>

#include <utility>

namespace {

constexpr double BYTES_PER_MIB = 1024.0 * 1024.0;

// A write whose batch outgrows this is a big one: its buffer is then sized
// for the whole cap at once (CDBBatch::Reserve) rather than doubling its
// way there. Small writes (a sync of a few blocks) never pay for the cap.
constexpr size_t RESERVE_BATCH_AFTER = size_t{1} << 20;
// Room past the cap for the record that crosses it: a coin's key and value
// take at most a few KiB, since scripts over 10,000 bytes are not stored.
constexpr size_t BATCH_CAP_HEADROOM = size_t{64} << 10;

} // namespace

CDBBatchWriter::CDBBatchWriter(CDBWrapper& db, Options options, Hooks hooks)
    : m_db{db}, m_options{options}, m_hooks{std::move(hooks)}, m_batch{std::make_unique<CDBBatch>(db)}
{
    // A run an earlier write left when it threw holds what the cache still
    // has: it must not join this write's.
    m_db.DiscardIngest();
}

CDBBatchWriter::~CDBBatchWriter() = default;

void CDBBatchWriter::Written(void* end, bool partial)
{
    m_hooks.sample();
    m_hooks.release(end);
    ++m_stats.batches;
    if (partial) m_hooks.after_partial();
}

void CDBBatchWriter::LandInFlight()
{
    if (!m_in_flight.valid()) return;
    const auto wait_start = std::chrono::steady_clock::now();
    m_in_flight.get();
    m_stats.waited += std::chrono::steady_clock::now() - wait_start;
    if (m_in_flight_ingests) {
        m_hooks.sample();
        m_run_end = m_in_flight_end;
        ++m_stats.batches;
        ++m_stats.ingested;
        // A crash here loses the run: the database is as before it.
        m_hooks.after_partial();
    } else {
        Written(m_in_flight_end, /*partial=*/true);
    }
}

void CDBBatchWriter::CommitRun()
{
    if (!m_run_end) return;
    const auto commit_start = std::chrono::steady_clock::now();
    m_db.CommitIngest();
    m_stats.committing += std::chrono::steady_clock::now() - commit_start;
    m_hooks.sample();
    m_hooks.release(*m_run_end);
    m_run_end.reset();
}

void CDBBatchWriter::WritePartial(void* end)
{
    LandInFlight();
    m_hooks.sample();
    const bool ingests = m_options.ingest && m_db.CanIngest(*m_batch);
    if (!ingests) CommitRun();
    if (m_options.overlap && m_batch->InKeyOrder()) {
        std::swap(m_batch, m_other);
        std::swap(m_batch_reserved, m_other_reserved);
        CDBBatch* const writing = m_other.get();
        m_in_flight = ingests ? std::async(std::launch::async, [this, writing] { m_db.IngestBatch(*writing); })
                              : std::async(std::launch::async, [this, writing] { m_db.WriteBatch(*writing); });
        m_in_flight_end = end;
        m_in_flight_ingests = ingests;
        ++m_stats.overlapped;
        if (!m_batch) {
            m_batch = std::make_unique<CDBBatch>(m_db);
            m_batch_reserved = false;
        }
    } else {
        m_other.reset();
        if (ingests) {
            m_db.IngestBatch(*m_batch);
            m_hooks.sample();
            m_run_end = end;
            ++m_stats.batches;
            ++m_stats.ingested;
            m_hooks.after_partial();
        } else {
            m_db.WriteBatch(*m_batch);
            Written(end, /*partial=*/true);
        }
    }
    m_batch->Clear();
}

void CDBBatchWriter::EntryDone(void* next)
{
    const size_t pending = m_batch->SizeEstimate();
    // A batch keeps what it was reserved for across Clear(): one reserve
    // per batch.
    if (!m_batch_reserved && pending > RESERVE_BATCH_AFTER) {
        m_batch->Reserve(m_options.batch_bytes + BATCH_CAP_HEADROOM);
        m_batch_reserved = true;
    }
    if (pending > m_options.batch_bytes) {
        LogDebug(logging::Category::COINDB, "Writing partial batch of {:.2f} MiB", pending / BYTES_PER_MIB);
        WritePartial(next);
    }
}

void CDBBatchWriter::Finish(void* end)
{
    LandInFlight();
    LogDebug(logging::Category::COINDB, "Writing final batch of {:.2f} MiB", m_batch->SizeEstimate() / BYTES_PER_MIB);
    m_hooks.sample();
    if (m_options.ingest && m_db.CanIngest(*m_batch)) {
        m_db.IngestBatch(*m_batch);
        m_run_end = end;
        ++m_stats.batches;
        ++m_stats.ingested;
        CommitRun();
    } else {
        CommitRun();
        m_db.WriteBatch(*m_batch);
        Written(end, /*partial=*/false);
        m_db.StartMemtableFlush();
    }
}
