#ifndef COINSDB_TOOLS_OUTPUT_FILE_H
#define COINSDB_TOOLS_OUTPUT_FILE_H

// How coinsdb-genchain and coinsdb-gensnapshot write their output, the way
// dumptxoutset writes a snapshot: into "<path>.incomplete", renamed to
// <path> only once complete, so that a failed run never leaves behind a
// file that looks finished.

#include <streams.h>

#include <filesystem>
#include <functional>

// Refuses a path that exists, then lets write() fill the temporary file
// (buffered, so that small records cost few write calls), closes it and
// renames it into place. Throws std::runtime_error with a message for the
// user; once the temporary file exists, any failure, write()'s included,
// removes it and reads "generating <path> failed: <why>".
void WriteOutputFile(const std::filesystem::path& path, const std::function<void(AutoFile&)>& write);

#endif // COINSDB_TOOLS_OUTPUT_FILE_H
