#include <dbwrapper_tablefiles.h>

#include <leveldb/env.h>

#include <string>
#include <string_view>

namespace {

bool IsTableFile(std::string_view name)
{
    // LevelDB writes ".ldb"; ".sst" is the name older versions wrote.
    return name.ends_with(".ldb") || name.ends_with(".sst");
}

class BufferedTableFile final : public leveldb::WritableFile
{
public:
    explicit BufferedTableFile(leveldb::WritableFile* file) : m_file{file} { m_buffer.reserve(TABLE_WRITE_BYTES); }

    // LevelDB drops a table it did not close only after a failure, and
    // deletes it; what is still held back goes the same way.
    ~BufferedTableFile() override = default;

    leveldb::Status Append(const leveldb::Slice& data) override
    {
        if (m_buffer.size() + data.size() > TABLE_WRITE_BYTES) {
            if (auto status = Drain(); !status.ok()) return status;
            if (data.size() >= TABLE_WRITE_BYTES) return m_file->Append(data);
        }
        m_buffer.append(data.data(), data.size());
        return leveldb::Status::OK();
    }

    // The point of this class: a block's flush does not reach the kernel.
    leveldb::Status Flush() override { return leveldb::Status::OK(); }

    leveldb::Status Sync() override
    {
        if (auto status = Drain(); !status.ok()) return status;
        return m_file->Sync();
    }

    leveldb::Status Close() override
    {
        if (auto status = Drain(); !status.ok()) return status;
        return m_file->Close();
    }

private:
    leveldb::Status Drain()
    {
        if (m_buffer.empty()) return leveldb::Status::OK();
        auto status = m_file->Append(m_buffer);
        m_buffer.clear();
        return status;
    }

    std::unique_ptr<leveldb::WritableFile> m_file;
    std::string m_buffer;
};

class TableBufferingEnv final : public leveldb::EnvWrapper
{
public:
    explicit TableBufferingEnv(leveldb::Env* base) : leveldb::EnvWrapper{base} {}

    leveldb::Status NewWritableFile(const std::string& name, leveldb::WritableFile** result) override
    {
        auto status = target()->NewWritableFile(name, result);
        if (status.ok() && IsTableFile(name)) *result = new BufferedTableFile{*result};
        return status;
    }
};

} // namespace

std::unique_ptr<leveldb::Env> NewTableBufferingEnv(leveldb::Env* base)
{
    return std::make_unique<TableBufferingEnv>(base);
}
